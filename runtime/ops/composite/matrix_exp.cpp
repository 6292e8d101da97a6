// linalg_matrix_exp (lazygen/composite.h): the matrix exponential by scaling and squaring.
//
// Note [Matrix exponential by scaling and squaring]
// Each matrix A_i of the batch is scaled by 2^-s_i, s_i = max(0, ceil(log2 ||A_i||_1)), so that
// X_i = A_i 2^-s_i has ||X_i||_1 <= 1; e^X_i is its Taylor polynomial of degree 18 (the terms
// left out sum to less than 1/19! < 1e-17, below float64's rounding), evaluated as a polynomial
// in X^4 whose coefficients are polynomials in X of degree 3 (Paterson and Stockmeyer: 7 matrix
// products, not 18); then e^A_i = (e^X_i)^(2^s_i) by s_i squarings. Every matrix squares in the
// same bmm, a matrix whose s_i is reached keeping its value (where), so one host read of the
// largest s_i (a sync on the lazy device) fixes how many squarings the batch runs. A non-finite
// norm takes no squaring (the result is not finite either). PyTorch's kernel scales and squares
// too (choosing among Taylor degrees up to 18 by the norm), so results agree to rounding.
#include <string>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/amax.h"
#include "lazygen/generated/ops/bmm.h"
#include "lazygen/generated/ops/ceil.h"
#include "lazygen/generated/ops/clamp_min.h"
#include "lazygen/generated/ops/exp2.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/log2.h"
#include "lazygen/generated/ops/lt.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"
#include "ops/composite/host_extremes.h"
#include "ops/composite/linalg_parts.h"

namespace lazygen {
namespace {

// The Taylor polynomial of degree 18 of e^X for X [b, n, n] (Note [Matrix exponential by scaling
// and squaring]).
Tensor taylor_18(const Tensor& X) {
  double c[19];
  c[0] = 1;
  for (int i = 1; i <= 18; ++i) c[i] = c[i - 1] / i;
  const Tensor I = linalg_parts::identity_like(X);
  const Tensor X2 = bmm(X, X), X3 = bmm(X2, X), X4 = bmm(X2, X2);
  auto chunk = [&](int j) {  // c[4j] I + c[4j+1] X + c[4j+2] X^2 + c[4j+3] X^3
    Tensor p = I * c[4 * j] + X * c[4 * j + 1] + X2 * c[4 * j + 2];
    return j < 4 ? p + X3 * c[4 * j + 3] : p;
  };
  Tensor P = chunk(4);
  for (int j = 3; j >= 0; --j) P = bmm(P, X4) + chunk(j);
  return P;
}

}  // namespace

Tensor linalg_matrix_exp(const Tensor& A) {
  constexpr const char* kOp = "linalg.matrix_exp";
  if (A.dim() < 2) throw ShapeError(kOp, "The input tensor A must have at least 2 dimensions.");
  if (A.size(-1) != A.size(-2)) {
    throw ShapeError(kOp, "A must be batches of square matrices, but they are " +
                              std::to_string(A.size(-2)) + " by " + std::to_string(A.size(-1)) +
                              " matrices");
  }
  if (!is_floating(A.dtype())) {
    throw ShapeError("matrix_exp", "Expected a floating point or complex tensor as input. Got " +
                                       std::string(dtype_name(A.dtype())));
  }
  if (A.numel() == 0) return A.clone();
  const int64_t n = A.size(-1), b = linalg_parts::batch_count(A);
  const Tensor a = reshape(A, {b, n, n});
  const Tensor norm = amax(sum(abs(a), std::vector<int64_t>{1}), {1});  // max column sum, [b]
  Tensor s = clamp_min(ceil(log2(norm)), 0);
  s = where(lt(s, 2048), s, zeros_like(s));  // a non-finite norm: no squaring
  const auto squarings = static_cast<int64_t>(host_extremes<double>(s).second);  // a sync
  const Tensor steps = reshape(s, {b, 1, 1});
  Tensor X = taylor_18(a * exp2(-steps));
  for (int64_t k = 0; k < squarings; ++k)
    X = where(gt(steps, static_cast<double>(k)), bmm(X, X), X);
  return reshape(X, A.sizes());
}

}  // namespace lazygen
