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
#include <cmath>
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
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

namespace lazygen {
namespace {

void check_square(const char* op, const Tensor& a) {
  if (a.dim() < 2 || a.size(-1) != a.size(-2)) {
    throw ShapeError(
        op, "expected a batch of square matrices [..., n, n], got shape " + sizes_str(a.sizes()));
  }
  if (!is_floating(a.dtype())) {
    throw ShapeError(op, "expected a floating tensor, got " + std::string(dtype_name(a.dtype())));
  }
}

}  // namespace

std::tuple<Tensor, Tensor> lu_factor(const Tensor& A) {
  check_square("lu_factor", A);
  const int64_t n = A.size(-1);
  const std::vector<int64_t> batch(A.sizes().begin(), A.sizes().end() - 2);
  int64_t b = 1;
  for (int64_t s : batch) b *= s;
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

// The row order P^T applies, [b, n]: LAPACK's pivots (swap row k with row pivots[k] - 1, in
// order) composed into one permutation. (P^T B)[i] = B[perm[i]].
Tensor row_order(const Tensor& pivots, int64_t b, int64_t n, Device device) {
  const Tensor rows = reshape(arange(n, DType::Int64, device), {1, n});
  Tensor perm = expand(rows, {b, n});
  const Tensor piv = reshape(pivots.to(DType::Int64), {b, n}) - 1;
  for (int64_t k = 0; k < n; ++k) {
    const Tensor p = narrow(piv, 1, k, 1);  // [b, 1]
    const Tensor at_k = narrow(perm, 1, k, 1), at_p = gather(perm, 1, p);
    perm = where(eq(rows, k), at_p, where(eq(rows, p), at_k, perm));
  }
  return perm;
}

Tensor rows_of(const Tensor& t, const Tensor& order) {  // t [b, n, k] with its rows in `order`
  return gather(t, 1, expand(unsqueeze(order, 2), t.sizes()));
}

// Solves T x = c for triangular T [b, n, n] (lower: forward substitution; else backward), with
// an implied unit diagonal when `unit`. c [b, n, k].
Tensor substitute(const Tensor& T, const Tensor& c, bool lower, bool unit) {
  const int64_t n = T.size(1);
  std::vector<Tensor> x(static_cast<size_t>(n));
  for (int64_t step = 0; step < n; ++step) {
    const int64_t i = lower ? step : n - 1 - step;
    Tensor r = narrow(c, 1, i, 1);  // [b, 1, k]
    if (step > 0) {
      const int64_t from = lower ? 0 : i + 1;
      std::vector<Tensor> known(x.begin() + from, x.begin() + from + step);
      r = r - bmm(narrow(narrow(T, 1, i, 1), 2, from, step), cat(known, 1));
    }
    x[static_cast<size_t>(i)] = unit ? r : r / narrow(narrow(T, 1, i, 1), 2, i, 1);
  }
  return n == 0 ? c : cat(x, 1);
}

}  // namespace

Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool adjoint) {
  check_square("lu_solve", LU);
  const int64_t n = LU.size(-1);
  if (B.dim() != LU.dim() || B.size(-2) != n) {
    throw ShapeError("lu_solve", "expected B [..., " + std::to_string(n) + ", k] for LU of shape " +
                                     sizes_str(LU.sizes()) + ", got " + sizes_str(B.sizes()));
  }
  int64_t b = 1;
  for (int64_t d = 0; d + 2 < LU.dim(); ++d) b *= LU.size(d);
  const Tensor lu = reshape(LU, {b, n, n}), rhs = reshape(B, {b, n, B.size(-1)});
  const Tensor perm = row_order(pivots, b, n, LU.device());
  Tensor x;
  if (!adjoint) {  // P L U x = B: L y = P^T B, then U x = y
    x = substitute(lu, substitute(lu, rows_of(rhs, perm), true, true), false, false);
  } else {  // U^T L^T P^T x = B: U^T z = B, L^T w = z, then x = P w
    const Tensor lt = transpose(lu, 1, 2);
    const Tensor w = substitute(lt, substitute(lt, rhs, true, false), false, true);
    x = rows_of(w, std::get<1>(sort(perm, 1)));  // P w: the inverse row order
  }
  return reshape(x, B.sizes());
}

std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A) {
  check_square("linalg_inv_ex", A);
  const int64_t n = A.size(-1);
  // PyTorch's CPU kernel hands LAPACK the row-major matrix, so it factors A^T: so does this, for
  // the same info (A^-1 is the transpose of (A^T)^-1).
  const auto [lu, pivots] = lu_factor(transpose(A, -2, -1));
  const Tensor index = arange(n, DType::Int64, A.device());
  const Tensor identity = expand(eq(unsqueeze(index, 1), index).to(A.dtype()), A.sizes());
  const Tensor zero_pivot = eq(diagonal_copy(lu, 0, -2, -1), 0);  // [..., n]
  const Tensor first = argmax(zero_pivot.to(DType::Int32), -1) + 1;
  const Tensor info = where(any(zero_pivot, -1), first, zeros({}, DType::Int64, A.device()));
  return {transpose(lu_solve(lu, pivots, identity), -2, -1), info.to(DType::Int32)};
}

}  // namespace lazygen
