// Triangular solves and the Cholesky factorization (lazygen/composite.h): linalg_solve_triangular,
// linalg_cholesky_ex, cholesky_solve and cholesky_inverse, unrolled over the matrix size as
// Note [Unrolled LU] (linalg.cpp).
//
// Note [Unrolled Cholesky]
// Step j of A = L L^T (A [b, n, n], only its lower triangle read) computes column j of L from
// the columns before it, as LAPACK's unblocked potrf does: d = A[j, j] - L[j, :j] . L[j, :j],
// L[j, j] = sqrt(d), L[j+1:, j] = (A[j+1:, j] - L[j+1:, :j] L[j, :j]^T) / L[j, j]. A step whose d
// is not positive (or NaN) fails: info is the first such j (1-based), LAPACK's "leading minor of
// order j is not positive-definite"; the columns from there on hold NaN where LAPACK leaves its
// partial work (neither is meaningful, and PyTorch raises unless asked for info). upper: U = L^T
// of A^T, so only A's upper triangle is read, as in PyTorch.
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/_lapack_potrf.h"
#include "lazygen/generated/ops/bmm.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/logical_not.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/sqrt.h"
#include "lazygen/generated/ops/transpose.h"
#include "lazygen/operators.h"
#include "ops/composite/linalg_parts.h"

namespace lazygen {

using linalg_parts::batch_shape;
using linalg_parts::broadcast_batches;
using linalg_parts::check_equation;
using linalg_parts::check_matrix;
using linalg_parts::check_square;
using linalg_parts::identity_like;
using linalg_parts::substitute;

namespace {

Tensor entry(const Tensor& m, int64_t row, int64_t rows, int64_t col, int64_t cols) {
  return narrow(narrow(m, 1, row, rows), 2, col, cols);
}

// The lower Cholesky factor of m [b, n, n] (n > 0) and the failed steps, bool [b, n].
std::tuple<Tensor, Tensor> lower_cholesky(const Tensor& m) {
  const int64_t b = m.size(0), n = m.size(1);
  std::vector<Tensor> columns, failed;
  for (int64_t j = 0; j < n; ++j) {
    Tensor d = entry(m, j, 1, j, 1);  // [b, 1, 1]
    Tensor below = entry(m, j + 1, n - j - 1, j, 1);
    if (j > 0) {
      const Tensor known = cat(columns, 2);                          // [b, n, j]
      const Tensor row = transpose(entry(known, j, 1, 0, j), 1, 2);  // [b, j, 1]
      d = d - bmm(entry(known, j, 1, 0, j), row);
      below = below - bmm(entry(known, j + 1, n - j - 1, 0, j), row);
    }
    failed.push_back(reshape(logical_not(gt(d, 0)), {b, 1}));
    const Tensor diagonal = sqrt(d);
    std::vector<Tensor> parts;
    if (j > 0) parts.push_back(zeros({b, j, 1}, m.dtype(), m.device()));
    parts.push_back(diagonal);
    parts.push_back(below / diagonal);
    columns.push_back(cat(parts, 1));
  }
  return {cat(columns, 2), cat(failed, 1)};
}

}  // namespace

Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left,
                               bool unitriangular) {
  const char* op = "linalg.solve_triangular";
  check_square(op, A);
  check_matrix(op, "B", B, A);
  check_equation(op, A, B, left);
  if (left) {
    const linalg_parts::Batched m = broadcast_batches(op, A, B);
    return reshape(substitute(m.a, m.b, !upper, unitriangular),
                   batch_shape(m.batch, B.size(-2), B.size(-1)));
  }
  // X A = B as A^T X^T = B^T, where A^T is lower exactly when A is upper.
  const linalg_parts::Batched m = broadcast_batches(op, A, transpose(B, -2, -1));
  const Tensor xt = substitute(transpose(m.a, 1, 2), m.b, upper, unitriangular);
  return transpose(reshape(xt, batch_shape(m.batch, B.size(-1), B.size(-2))), -2, -1);
}

std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, bool upper) {
  check_square("linalg.cholesky", A);
  const int64_t n = A.size(-1), b = linalg_parts::batch_count(A);
  const std::vector<int64_t> batch = linalg_parts::batch_dims(A);
  if (n == 0) return {A * 1, zeros(batch, DType::Int32, A.device())};
  if (linalg_parts::use_lapack({&A})) {  // See Note [LAPACK or unrolled] in linalg_parts.h
    const auto [factor, info] = _lapack_potrf(reshape(A, {b, n, n}), upper);
    return {reshape(factor, A.sizes()), reshape(info, batch)};
  }
  const Tensor m = reshape(upper ? transpose(A, -2, -1) : A, {b, n, n});
  const auto [lower, failed] = lower_cholesky(m);
  const Tensor factor = reshape(upper ? transpose(lower, 1, 2) : lower, A.sizes());
  return {factor, reshape(linalg_parts::first_failure(failed), batch)};
}

Tensor cholesky_solve(const Tensor& B, const Tensor& L, bool upper) {
  const char* op = "cholesky_solve";
  check_square(op, L);
  check_matrix(op, "B", B, L);
  check_equation(op, L, B, true);
  const linalg_parts::Batched m = broadcast_batches(op, L, B);
  // A = L L^T: L y = B, then L^T x = y; A = U^T U: U^T y = B, then U x = y.
  const Tensor lower = upper ? transpose(m.a, 1, 2) : m.a;
  const Tensor x =
      substitute(transpose(lower, 1, 2), substitute(lower, m.b, true, false), false, false);
  return reshape(x, batch_shape(m.batch, B.size(-2), B.size(-1)));
}

Tensor cholesky_inverse(const Tensor& L, bool upper) {
  check_square("cholesky_inverse", L);
  return cholesky_solve(identity_like(L), L, upper);
}

}  // namespace lazygen
