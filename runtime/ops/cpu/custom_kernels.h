// Hand-written eager cpu kernels for the ops.yaml entries with `kernel: custom`: reductions,
// softmax, matrix products, views, cat, indexing and clamp. lazygen derives these names and
// signatures (op id: `sum.dim_IntList` -> sum_dim_intlist) and declares them again in generated
// cpu_kernels.h.
//
// Each kernel first calls its shape function (ops/shape/custom_shapes.h or the shape rule of
// its `shape:` kind), so errors match lazy tracing. Operands must be cpu tensors. Views return
// tensors sharing self's storage (writes through one are visible in the other); every other
// kernel returns new contiguous memory. Large kernels split work over the cpu thread pool.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "lazygen/dtype.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen::cpu {

// ---- reductions (ops/cpu/reduce.cpp). Float sums accumulate in double; integral and bool
// sums produce int64. A given dtype converts the input first, as PyTorch does.
Tensor sum(const Tensor& self, std::optional<DType> dtype);
Tensor sum_dim_intlist(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                       bool keepdim, std::optional<DType> dtype);
// Floating inputs (or a floating dtype) only.
Tensor mean_dim(const Tensor& self, const std::optional<std::vector<int64_t>>& dim, bool keepdim,
                std::optional<DType> dtype);
// NaN propagates; reduced dims must be non-empty.
Tensor amax(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim);
Tensor amin(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim);
// Values and the int64 index of the first maximum (of the first NaN, if any).
std::tuple<Tensor, Tensor> max_dim(const Tensor& self, int64_t dim, bool keepdim);
// Over the flattened tensor when dim is nullopt.
Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim);

// ---- sorting and scans (ops/cpu/sort.cpp), along one dim, row by row over the cpu thread pool.
// sort is stable; NaN orders above every number (last ascending, first descending), as PyTorch.
std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending);
// The k largest (smallest) elements in sorted order, ties in index order, and their indices.
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted);
// Running sums, accumulated sequentially in double (int64 for integral and bool inputs).
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<DType> dtype);

// ---- collectives (ops/cpu/collective.cpp): the installed communicator's primitives
// (lazygen/distributed/communicator.h) over a contiguous copy; every rank must call them alike.
Tensor all_reduce(const Tensor& self, std::string_view reduce_op);  // 'sum' or 'mean'
Tensor all_gather(const Tensor& self);  // every rank's self along dim 0, in rank order
Tensor broadcast(const Tensor& self, int64_t src);

// ---- softmax (ops/cpu/softmax.cpp): in the input's floating dtype; half_to_float must be false.
Tensor _softmax(const Tensor& self, int64_t dim, bool half_to_float);
Tensor _log_softmax(const Tensor& self, int64_t dim, bool half_to_float);

// ---- matrix products (ops/cpu/matmul.cpp): OpenBLAS for float32/float64, read in place when
// the operands' strides allow (transposed views included); a plain loop for other dtypes.
Tensor mm(const Tensor& self, const Tensor& mat2);
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha);
Tensor bmm(const Tensor& self, const Tensor& mat2);

// ---- LAPACK (ops/cpu/lapack.cpp): OpenBLAS's getrf (of [b, m, n]), potrf and trsm (of square
// [b, n, n]) on each matrix of the batch, float32/float64, matrices split over the cpu thread
// pool; failures are reported in info, never thrown.
std::tuple<Tensor, Tensor, Tensor> _lapack_getrf(const Tensor& self);
std::tuple<Tensor, Tensor> _lapack_potrf(const Tensor& self, bool upper);
Tensor _lapack_trsm(const Tensor& self, const Tensor& B, bool upper, bool unitriangular);
// (ops/cpu/spectral.cpp) syevd and gesdd, with LAPACK's workspace; failures in info.
std::tuple<Tensor, Tensor, Tensor> _lapack_syevd(const Tensor& self, bool upper, bool compute_v);
std::tuple<Tensor, Tensor, Tensor, Tensor> _lapack_gesdd(const Tensor& self, bool full_matrices,
                                                         bool compute_uv);
// (ops/cpu/lapack_qr.cpp) geqrf, then orgqr for Q.
std::tuple<Tensor, Tensor> _lapack_geqrf(const Tensor& self, bool complete, bool compute_q);
// (ops/cpu/lapack_lstsq.cpp) gels, gelsy, gelsd or gelss.
std::tuple<Tensor, Tensor, Tensor, Tensor> _lapack_gels(const Tensor& self, const Tensor& B,
                                                        std::string_view driver,
                                                        std::optional<double> rcond);

// ---- views (ops/cpu/views.cpp)
Tensor view(const Tensor& self, const std::vector<int64_t>& size);
Tensor permute(const Tensor& self, const std::vector<int64_t>& dims);
Tensor transpose_int(const Tensor& self, int64_t dim0, int64_t dim1);
Tensor t(const Tensor& self);
Tensor expand(const Tensor& self, const std::vector<int64_t>& size, bool implicit);
Tensor slice_tensor(const Tensor& self, int64_t dim, std::optional<int64_t> start,
                    std::optional<int64_t> end, int64_t step);
Tensor select_int(const Tensor& self, int64_t dim, int64_t index);
Tensor squeeze_dim(const Tensor& self, int64_t dim);
Tensor unsqueeze(const Tensor& self, int64_t dim);
// A view when self's strides allow one (PyTorch's computeStride rule), else a contiguous copy.
Tensor reshape(const Tensor& self, const std::vector<int64_t>& shape);
Tensor flatten_using_ints(const Tensor& self, int64_t start_dim, int64_t end_dim);
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length);

// ---- copies (ops/cpu/cat.cpp)
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);

// ---- indexing (ops/cpu/indexing.cpp): index values out of [0, size(dim)) throw
// std::out_of_range naming the op and the shapes. Results are new contiguous tensors.
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha);
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad);
// Duplicate indices accumulate, in index's row-major order.
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
// The same with reduce (sum, prod, mean, amax, amin) in place of the sum; without include_self
// a position some index names starts from the reduction's identity. mean divides by the count of
// values reduced (floor division for integers); amax and amin keep NaN.
Tensor scatter_reduce_two(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          std::string_view reduce, bool include_self);
// Zeros of input_sizes with grad_output copied into their slice(dim, start, end, step).
Tensor slice_backward(const Tensor& grad_output, const std::vector<int64_t>& input_sizes,
                      int64_t dim, int64_t start, int64_t end, int64_t step);
// A copy of self with src copied into its slice(dim, start, end, step).
Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim,
                     std::optional<int64_t> start, std::optional<int64_t> end, int64_t step);

// ---- clamp (ops/cpu/clamp.cpp)
Tensor clamp(const Tensor& self, const std::optional<Scalar>& min,
             const std::optional<Scalar>& max);

}  // namespace lazygen::cpu
