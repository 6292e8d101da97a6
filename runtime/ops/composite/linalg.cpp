// LU factorization with partial pivoting, the signed log-determinant, LU solves and inverses
// (lazygen/composite.h), unrolled over the matrix size from argmax, gather, narrow, cat and
// pointwise ops.
//
// Note [Unrolled LU]
// Each elimination step k of A [..., n, n] picks the row with the largest |A[i, k]| (i >= k) per
// matrix (argmax), swaps it with row k by gathering every row through a per-matrix permutation,
// divides the column below the pivot by it (L's column) and subtracts the outer product from the
// trailing block, reassembling the matrix with narrow and cat. The result is LAPACK's getrf
// layout: L below the diagonal (unit diagonal implied), U on and above, and 1-based int32
// pivots, as PyTorch's linalg_lu_factor. n steps of a few ops each: the graph grows with n (fine
// for the small matrices logdet is used on), and autograd differentiates through the arithmetic
// (the pivot choices are constants). A zero pivot (a singular matrix) leaves its column as is.
#include <algorithm>
#include <cmath>
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/_lapack_getrf.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/argmax.h"
#include "lazygen/generated/ops/bmm.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/gather.h"
#include "lazygen/generated/ops/log.h"
#include "lazygen/generated/ops/lt.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/ne.h"
#include "lazygen/generated/ops/remainder.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/select.h"
#include "lazygen/generated/ops/sort.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/transpose.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"
#include "ops/composite/linalg_parts.h"

namespace lazygen {

using linalg_parts::check_square;
using linalg_parts::substitute;

namespace {

// lu_factor_ex by _lapack_getrf (See Note [LAPACK or unrolled] in linalg_parts.h), square or not.
std::tuple<Tensor, Tensor, Tensor> lapack_lu_factor(const Tensor& A) {
  linalg_parts::check_floating_matrix("lu_factor", A);
  const int64_t m = A.size(-2), n = A.size(-1), b = linalg_parts::batch_count(A);
  const std::vector<int64_t> batch = linalg_parts::batch_dims(A);
  std::vector<int64_t> pivot_sizes = batch;
  pivot_sizes.push_back(std::min(m, n));
  const auto [lu, pivots, info] = _lapack_getrf(reshape(A, {b, m, n}));
  return {reshape(lu, A.sizes()), reshape(pivots, pivot_sizes), reshape(info, batch)};
}

}  // namespace

std::tuple<Tensor, Tensor> lu_factor(const Tensor& A) {
  if (linalg_parts::use_lapack({&A})) {
    const auto [lu, pivots, info] = lapack_lu_factor(A);
    return {lu, pivots};
  }
  check_square("lu_factor", A);
  const int64_t n = A.size(-1), b = linalg_parts::batch_count(A);
  const std::vector<int64_t> batch = linalg_parts::batch_dims(A);
  Tensor m = reshape(A, {b, n, n});
  const Tensor rows = reshape(arange(n, DType::Int64, A.device()), {1, n});
  std::vector<Tensor> pivots;
  for (int64_t k = 0; k < n; ++k) {
    const Tensor column = narrow(select(m, 2, k), 1, k, n - k);  // [b, n - k]
    const Tensor p = unsqueeze(argmax(abs(column), 1) + k, 1);   // [b, 1]
    pivots.push_back(p);
    const Tensor perm =
        where(eq(rows, k), p, where(eq(rows, p), full({}, k, DType::Int64, A.device()), rows));
    m = gather(m, 1, expand(unsqueeze(perm, 2), {b, n, n}));
    if (k == n - 1) break;
    const Tensor pivot = unsqueeze(select(select(m, 1, k), 1, k), 1);  // [b, 1]
    const Tensor safe = where(eq(pivot, 0), ones({}, m.dtype(), m.device()), pivot);
    const Tensor lower =
        narrow(narrow(m, 1, k + 1, n - k - 1), 2, k, 1) / unsqueeze(safe, 2);  // [b, n-k-1, 1]
    const Tensor right = narrow(narrow(m, 1, k, 1), 2, k + 1, n - k - 1);      // [b, 1, n-k-1]
    const Tensor below = narrow(m, 1, k + 1, n - k - 1);
    const Tensor trailing = narrow(below, 2, k + 1, n - k - 1) - lower * right;
    std::vector<Tensor> parts;
    if (k > 0) parts.push_back(narrow(below, 2, 0, k));
    parts.push_back(lower);
    parts.push_back(trailing);
    m = cat({narrow(m, 1, 0, k + 1), cat(parts, 2)}, 1);
  }
  std::vector<int64_t> piv_sizes = batch;
  piv_sizes.push_back(n);
  const Tensor piv = n == 0 ? zeros({b, 0}, DType::Int64, A.device()) : cat(pivots, 1);
  return {reshape(m, A.sizes()), reshape(piv + 1, piv_sizes).to(DType::Int32)};
}

std::tuple<Tensor, Tensor> lu_slogdet(const Tensor& LU, const Tensor& pivots) {
  check_square("lu_slogdet", LU);
  const int64_t n = LU.size(-1);
  const Tensor diag = diagonal_copy(LU, 0, -2, -1);  // [..., n]
  const Tensor swaps =
      sum(ne(pivots.to(DType::Int64), arange(1, n + 1, 1, DType::Int64, LU.device())),
          std::vector<int64_t>{-1});
  const Tensor negatives = sum(lt(diag, 0), std::vector<int64_t>{-1});
  const Tensor odd = eq(remainder(swaps + negatives, 2), 1);
  const Tensor singular = any(eq(diag, 0), -1);
  const Tensor one = ones({}, LU.dtype(), LU.device());
  const Tensor sign = where(singular, zeros({}, LU.dtype(), LU.device()), where(odd, -one, one));
  return {sign, sum(log(abs(diag)), std::vector<int64_t>{-1})};
}

std::tuple<Tensor, Tensor> slogdet(const Tensor& A) {
  check_square("slogdet", A);
  const auto [lu, pivots] = lu_factor(A);
  return lu_slogdet(lu, pivots);
}

Tensor logdet(const Tensor& A) {
  const auto [sign, logabsdet] = slogdet(A);
  return where(lt(sign, 0), full({}, NAN, A.dtype(), A.device()),
               logabsdet);  // log|det| = -inf when singular
}

namespace {

// The row order P^T applies to `n` rows, [b, n]: LAPACK's pivots [b, k] (swap row i with row
// pivots[i] - 1, in order; k <= n) composed into one permutation. (P^T B)[i] = B[perm[i]].
Tensor row_order(const Tensor& pivots, int64_t b, int64_t n, Device device) {
  const Tensor rows = reshape(arange(n, DType::Int64, device), {1, n});
  Tensor perm = expand(rows, {b, n});
  const int64_t swaps = pivots.dim() == 0 ? 0 : pivots.size(-1);
  const Tensor piv = reshape(pivots.to(DType::Int64), {b, swaps}) - 1;
  for (int64_t k = 0; k < swaps; ++k) {
    const Tensor p = narrow(piv, 1, k, 1);  // [b, 1]
    const Tensor at_k = narrow(perm, 1, k, 1), at_p = gather(perm, 1, p);
    perm = where(eq(rows, k), at_p, where(eq(rows, p), at_k, perm));
  }
  return perm;
}

Tensor rows_of(const Tensor& t, const Tensor& order) {  // t [b, n, k] with its rows in `order`
  return gather(t, 1, expand(unsqueeze(order, 2), t.sizes()));
}

}  // namespace

Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool adjoint) {
  check_square("lu_solve", LU);
  const int64_t n = LU.size(-1);
  if (B.dim() < 2 || B.size(-2) != n) {
    throw ShapeError("lu_solve", "expected B [..., " + std::to_string(n) + ", k] for LU of shape " +
                                     sizes_str(LU.sizes()) + ", got " + sizes_str(B.sizes()));
  }
  const linalg_parts::Batched m = linalg_parts::broadcast_batches("lu_solve", LU, B);
  const int64_t b = m.a.size(0);
  std::vector<int64_t> piv_sizes = m.batch;
  piv_sizes.push_back(n);
  const Tensor piv = reshape(expand(pivots, piv_sizes), {b, n});
  const Tensor perm = row_order(piv, b, n, LU.device());
  Tensor x;
  if (!adjoint) {  // P L U x = B: L y = P^T B, then U x = y
    x = substitute(m.a, substitute(m.a, rows_of(m.b, perm), true, true), false, false);
  } else {  // U^T L^T P^T x = B: U^T z = B, L^T w = z, then x = P w
    const Tensor lt = transpose(m.a, 1, 2);
    const Tensor w = substitute(lt, substitute(lt, m.b, true, false), false, true);
    x = rows_of(w, std::get<1>(sort(perm, 1)));  // P w: the inverse row order
  }
  return reshape(x, linalg_parts::batch_shape(m.batch, n, B.size(-1)));
}

std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU, const Tensor& pivots,
                                             bool unpack_data, bool unpack_pivots) {
  linalg_parts::check_floating_matrix("lu_unpack", LU);
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  const int64_t b = linalg_parts::batch_count(LU);
  const Tensor none = zeros({0}, LU.dtype(), LU.device());
  Tensor P = none, L = none, U = none;
  if (unpack_pivots) {  // A = P L U: column i of P is row perm[i] of the identity
    const Tensor perm = row_order(pivots, b, m, LU.device());  // [b, m]
    const Tensor index = reshape(arange(m, DType::Int64, LU.device()), {1, m, 1});
    P = reshape(eq(index, unsqueeze(perm, 1)).to(LU.dtype()),
                linalg_parts::batch_shape(linalg_parts::batch_dims(LU), m, m));
  }
  if (unpack_data) {  // L [..., m, k] and U [..., k, n]
    const Tensor left = narrow(LU, -1, 0, k);
    L = tril(left, -1) + linalg_parts::identity_like(left);
    U = triu(narrow(LU, -2, 0, k));
  }
  return {P, L, U};
}

std::tuple<Tensor, Tensor, Tensor> lu_factor_ex(const Tensor& A) {
  if (linalg_parts::use_lapack({&A})) return lapack_lu_factor(A);
  check_square("lu_factor_ex", A);
  const auto [lu, pivots] = lu_factor(A);
  return {lu, pivots, linalg_parts::first_failure(eq(diagonal_copy(lu, 0, -2, -1), 0))};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B,
                                                           bool left) {
  check_square("linalg.solve", A);
  linalg_parts::check_matrix("linalg.solve", "B", B.dim() == 1 ? unsqueeze(B, -1) : B, A);
  const bool vector =
      B.dim() == 1 ||
      (B.dim() == A.dim() - 1 && std::equal(B.sizes().begin(), B.sizes().end(), A.sizes().begin()));
  const Tensor rhs = vector ? unsqueeze(B, -1) : B;
  linalg_parts::check_equation("linalg.solve", A, rhs, left);
  if (vector && !left) {
    throw ShapeError("linalg.solve",
                     "Vector broadcasting of the left hand side is not supported for left=False. "
                     "In this case linalg.solve is equivalent to B / A.squeeze(-1)");
  }
  // PyTorch's kernel factors A^T for a contiguous A (a lazygen tensor always is) and solves
  // with adjoint = true; its backward relies on that factorization.
  const auto [lu, pivots, info] = lu_factor_ex(transpose(A, -2, -1));
  Tensor x = left ? lu_solve(lu, pivots, rhs, true)
                  : transpose(lu_solve(lu, pivots, transpose(rhs, -2, -1), false), -2, -1);
  if (vector) x = select(x, -1, 0);
  return {x, lu, pivots, info};
}

std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A) {
  check_square("linalg_inv_ex", A);
  // PyTorch's CPU kernel hands LAPACK the row-major matrix, so it factors A^T: so does this, for
  // the same info (A^-1 is the transpose of (A^T)^-1).
  const auto [lu, pivots, info] = lu_factor_ex(transpose(A, -2, -1));
  return {transpose(lu_solve(lu, pivots, linalg_parts::identity_like(A)), -2, -1), info};
}

}  // namespace lazygen
