// What the linear-algebra composites share (linalg.cpp, cholesky.cpp, qr.cpp): argument checks,
// batches of matrices as [b, n, k] tensors, and triangular substitution.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "lazygen/tensor.h"

namespace lazygen::linalg_parts {

// Throws the ShapeError of `op` unless `a` is a floating batch of square matrices [..., n, n].
void check_square(const char* op, const Tensor& a);
// Throws the ShapeError of `op` unless `a` is a floating batch of matrices [..., m, n].
void check_floating_matrix(const char* op, const Tensor& a);
// Throws the ShapeError of `op` unless `a` (the argument called `name`) is a floating batch of
// matrices [..., m, n] of `like`'s dtype.
void check_matrix(const char* op, const char* name, const Tensor& a, const Tensor& like);
// Throws PyTorch's ShapeError of `op` unless B's rows (left: A X = B) or columns (X A = B) match
// square A's size.
void check_equation(const char* op, const Tensor& A, const Tensor& B, bool left);

// Note [LAPACK or unrolled]
// The factorizations and triangular solves have two forms. On a backend that runs on the cpu
// (eager cpu tensors, and the lazy device while lazy_backend() is "cpu") they are the LAPACK ops
// of ops.yaml (_lapack_getrf, _lapack_potrf, _lapack_trsm, _lapack_geqrf: one OpenBLAS call per
// matrix, one IR node per factorization). Elsewhere (the CUDA backend, which has no LAPACK kernels,
// and any other backend), and whenever an operand needs a gradient, they are unrolled into n steps
// of ops every backend runs and autograd differentiates (Note [Unrolled LU]); the LAPACK ops have
// no derivatives. (On the PyTorch device PyTorch's autograd differentiates the aten ops with its
// own formulas, so its kernels never see a tensor that needs a gradient: LAPACK there too.) Both
// follow LAPACK's algorithms and conventions (pivots, info, signs), so
// results agree to rounding; a zero pivot or a failed Cholesky step leaves LAPACK's partial
// results in the LAPACK form and NaN or the unscaled column in the unrolled one, neither of
// which PyTorch promises. set_lapack_enabled(false) (or LAZYGEN_LAPACK=0 in the environment)
// unrolls everywhere, for tests and A/B measurements of the unrolled form. Rectangular LU has the
// LAPACK form only (refused where it does not run); eigh, svd and lstsq too, and they take it
// whatever set_lapack_enabled says.
//
// Whether the composites take the LAPACK ops for these operands (all floating, none needing a
// gradient, all on a device whose work runs on the cpu): See Note [LAPACK or unrolled].
bool use_lapack(std::initializer_list<const Tensor*> operands);

// The identity matrix of a's dtype and device (ones where row == column), broadcast to a's shape
// [..., m, n].
Tensor identity_like(const Tensor& a);

// A tensor's batch dims (all but the last two), and their product.
std::vector<int64_t> batch_dims(const Tensor& t);
int64_t batch_count(const Tensor& t);
// `batch` followed by rows and cols.
std::vector<int64_t> batch_shape(std::vector<int64_t> batch, int64_t rows, int64_t cols);

// A [..., n, n] and B [..., n, k] with their batch dims broadcast together (a ShapeError of `op`
// names both shapes when they do not), flattened to [b, n, n] and [b, n, k].
struct Batched {
  Tensor a, b;
  std::vector<int64_t> batch;  // the broadcast batch dims
};
Batched broadcast_batches(const char* op, const Tensor& A, const Tensor& B);

// Solves T x = c for triangular T [b, n, n] (lower: forward substitution, reading only the
// triangle on and below the diagonal; else backward, on and above), with an implied unit
// diagonal when `unit`. c [b, n, k]. _lapack_trsm, or n steps of a few ops each (Note [Unrolled
// LU]), as Note [LAPACK or unrolled] says.
Tensor substitute(const Tensor& T, const Tensor& c, bool lower, bool unit);

// LAPACK's info from a bool mask [..., n] of failed steps: int32 [...], 0 where no step failed,
// else the 1-based index of the first that did.
Tensor first_failure(const Tensor& failed);

}  // namespace lazygen::linalg_parts
