// Hand-written shape functions for the ops.yaml entries with `shape: custom` or `shape: view`.
//
// Each maps the op's arguments (a Shape for each Tensor, std::vector<Shape> for Tensor[]) to the
// Shapes of its outputs, with exactly the signature lazygen derives (it checks them, and
// declares them again in generated shape_inference.h). The same function serves eager kernels
// (runtime/ops/cpu/, which call it first) and lazy tracing, so an op rejects bad arguments the
// same way on every device: a ShapeError naming the op's schema name and the shapes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "lazygen/scalar.h"
#include "lazygen/shape.h"

namespace lazygen {

// ---- reductions
// Values (self's dtype) and int64 indices of the maximum over `dim`; the dim must be non-empty.
std::vector<Shape> compute_shape_max_dim(const Shape& self, int64_t dim, bool keepdim);

// ---- matrix products: operands share one dtype
std::vector<Shape> compute_shape_mm(const Shape& self, const Shape& mat2);
std::vector<Shape> compute_shape_addmm(const Shape& self, const Shape& mat1, const Shape& mat2,
                                       const Scalar& beta, const Scalar& alpha);
std::vector<Shape> compute_shape_bmm(const Shape& self, const Shape& mat2);

// ---- LAPACK (linalg_shapes.cpp): batches of matrices self [b, m, n]; getrf: LU like self, int32
// pivots [b, min(m, n)] and info [b]; square ones for the others: potrf: the factor like self and
// int32 info [b]; trsm: X like B [b, n, k], of self's dtype.
std::vector<Shape> compute_shape__lapack_getrf(const Shape& self);
std::vector<Shape> compute_shape__lapack_potrf(const Shape& self, bool upper);
std::vector<Shape> compute_shape__lapack_trsm(const Shape& self, const Shape& B, bool upper,
                                              bool unitriangular);
// syevd: eigenvalues [b, n] and eigenvectors [b, n, n] (empty [0] without compute_v), both of
// self's dtype, int32 info [b]; gesdd of self [b, m, n] with k = min(m, n): U [b, m, k or m],
// S [b, k], Vh [b, k or n, n] (U and Vh empty [0] without compute_uv), int32 info [b].
std::vector<Shape> compute_shape__lapack_syevd(const Shape& self, bool upper, bool compute_v);
std::vector<Shape> compute_shape__lapack_gesdd(const Shape& self, bool full_matrices,
                                               bool compute_uv);
// geqrf of self [b, m, n] with k = min(m, n): Q [b, m, k] ([b, m, m] when complete; empty [0]
// without compute_q) and R [b, k, n] ([b, m, n]), both of self's dtype.
std::vector<Shape> compute_shape__lapack_geqrf(const Shape& self, bool complete, bool compute_q);
// The least-squares drivers over self [b, m, n] and B [b, m, k] of self's dtype: solution
// [b, max(m, n), k], int64 rank [b] ([0] for gels), singular values [b, min(m, n)] (gelsd,
// gelss; else [0]) and int32 info [b]. driver: gels, gelsy, gelsd or gelss.
std::vector<Shape> compute_shape__lapack_gels(const Shape& self, const Shape& B,
                                              std::string_view driver, std::optional<double> rcond);

// ---- views (the result aliases self on eager devices)
// One size may be -1 (inferred); the element count must not change.
std::vector<Shape> compute_shape_view(const Shape& self, const std::vector<int64_t>& size);
std::vector<Shape> compute_shape_permute(const Shape& self, const std::vector<int64_t>& dims);
std::vector<Shape> compute_shape_transpose_int(const Shape& self, int64_t dim0, int64_t dim1);
std::vector<Shape> compute_shape_t(const Shape& self);
// Sizes of -1 keep self's size; new leading dims are allowed; only size-1 dims grow.
std::vector<Shape> compute_shape_expand(const Shape& self, const std::vector<int64_t>& size,
                                        bool implicit);
std::vector<Shape> compute_shape_slice_tensor(const Shape& self, int64_t dim,
                                              std::optional<int64_t> start,
                                              std::optional<int64_t> end, int64_t step);
std::vector<Shape> compute_shape_select_int(const Shape& self, int64_t dim, int64_t index);
std::vector<Shape> compute_shape_squeeze_dim(const Shape& self, int64_t dim);
std::vector<Shape> compute_shape_unsqueeze(const Shape& self, int64_t dim);
// reshape/flatten: the sizes alone; whether the result can alias self is the kernel's business.
std::vector<Shape> compute_shape_reshape(const Shape& self, const std::vector<int64_t>& shape);
// Dims start_dim..end_dim merged into one; a 0-dim self becomes [1].
std::vector<Shape> compute_shape_flatten_using_ints(const Shape& self, int64_t start_dim,
                                                    int64_t end_dim);
// -size <= start <= size (negative wraps) and start + length <= size after wrapping.
std::vector<Shape> compute_shape_narrow(const Shape& self, int64_t dim, int64_t start,
                                        int64_t length);
// input_sizes (grad_output's dtype); grad_output must have the shape of that slice of them.
std::vector<Shape> compute_shape_slice_backward(const Shape& grad_output,
                                                const std::vector<int64_t>& input_sizes,
                                                int64_t dim, int64_t start, int64_t end,
                                                int64_t step);
// self's shape; src must have the shape of self.slice(dim, start, end, step) and a dtype that
// casts to self's.
std::vector<Shape> compute_shape_slice_scatter(const Shape& self, const Shape& src, int64_t dim,
                                               std::optional<int64_t> start,
                                               std::optional<int64_t> end, int64_t step);

// ---- copies
// Sizes agree except along dim (1-D empty tensors are skipped, as in PyTorch); dtypes promote.
std::vector<Shape> compute_shape_cat(const std::vector<Shape>& tensors, int64_t dim);

// ---- indexing (ops/shape/indexing_shapes.cpp)
// index: int64 or int32 with at most one dim; the result is self with index.numel() at dim.
std::vector<Shape> compute_shape_index_select(const Shape& self, int64_t dim, const Shape& index);
// self's shape; source has self's dtype and slice shape, and index.numel() entries at dim.
std::vector<Shape> compute_shape_index_add(const Shape& self, int64_t dim, const Shape& index,
                                           const Shape& source, const Scalar& alpha);
// index: int64 of self's rank, no larger than self apart from dim; the result has its sizes.
std::vector<Shape> compute_shape_gather(const Shape& self, int64_t dim, const Shape& index,
                                        bool sparse_grad);
// self's shape; index as for gather and no larger than src (of self's dtype) in any dim.
std::vector<Shape> compute_shape_scatter_add(const Shape& self, int64_t dim, const Shape& index,
                                             const Shape& src);
// As scatter_add, with reduce one of sum, prod, mean, amax and amin (mean not of bool).
std::vector<Shape> compute_shape_scatter_reduce_two(const Shape& self, int64_t dim,
                                                    const Shape& index, const Shape& src,
                                                    std::string_view reduce, bool include_self);
// A bool mask; self and mask broadcast; self's dtype.
std::vector<Shape> compute_shape_masked_fill_scalar(const Shape& self, const Shape& mask,
                                                    const Scalar& value);
// A bool condition; the three broadcast; self's and other's promoted dtype.
std::vector<Shape> compute_shape_where_self(const Shape& condition, const Shape& self,
                                            const Shape& other);

// ---- pointwise with optional bounds (ops/shape/misc_shapes.cpp)
// At least one bound; not bool; the dtype promotes self with the bounds, as PyTorch's clamp.
std::vector<Shape> compute_shape_clamp(const Shape& self, const std::optional<Scalar>& min,
                                       const std::optional<Scalar>& max);

// The start and length a slice takes along a dim of `size` (start/end clamped like PyTorch).
struct SliceRange {
  int64_t start;
  int64_t length;
};
SliceRange slice_range(const char* op, int64_t size, std::optional<int64_t> start,
                       std::optional<int64_t> end, int64_t step);

}  // namespace lazygen
