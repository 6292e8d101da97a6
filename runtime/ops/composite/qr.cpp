// The QR decomposition by Householder reflections (linalg_qr, lazygen/composite.h): the LAPACK op
// _lapack_geqrf, or unrolled over the columns as Note [Unrolled LU] (linalg.cpp), as Note [LAPACK
// or unrolled] (linalg_parts.h) says.
//
// Note [Unrolled Householder QR]
// Step j of A [b, m, n] (j < k = min(m, n)) reflects column j of the working matrix R below row j
// onto its first element, as LAPACK's geqrf (dlarfg, then dlarf) does: with alpha = R[j, j] and
// x = R[j+1:, j], beta = -copysign(hypot(alpha, |x|), alpha), tau = (beta - alpha) / beta and
// v = [1, x / (alpha - beta)], H = I - tau v v^T maps the column to [beta, 0, ...] and is applied
// to the columns after it. A column with x = 0 is left as it is (tau = 0, H = I, R[j, j] keeps
// alpha and its sign), as dlarfg does. The same choices give LAPACK's signs, so Q and R equal
// PyTorch's up to rounding. Q is H_0 ... H_{k-1} applied to the first k (complete: m) columns of
// the identity, last reflection first, as dorgqr forms it. 2k steps of a few ops each.
#include <cmath>
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/_lapack_geqrf.h"
#include "lazygen/generated/ops/bmm.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/copysign.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/hypot.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/ne.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/select.h"
#include "lazygen/generated/ops/sqrt.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"
#include "ops/composite/linalg_parts.h"

namespace lazygen {
namespace {

struct Reflector {
  Tensor v;      // [b, m - j]: v[0] = 1
  Tensor tau_v;  // tau * v, [b, m - j, 1]
};

// c [b, m - j, p] after H = I - tau v v^T: c - tau v (v^T c).
Tensor reflect(const Reflector& h, const Tensor& c) {
  return c - h.tau_v * bmm(unsqueeze(h.v, 1), c);
}

// Step j on r [b, m, n]: the reflector of column j, and r with it applied.
Reflector householder_step(Tensor& r, int64_t j) {
  const int64_t b = r.size(0), m = r.size(1), n = r.size(2);
  const Tensor x = narrow(select(r, 2, j), 1, j, m - j);  // [b, m - j]
  const Tensor alpha = narrow(x, 1, 0, 1);                // [b, 1]
  const Tensor tail = narrow(x, 1, 1, m - j - 1);
  const Tensor norm = sqrt(sum(tail * tail, std::vector<int64_t>{1}, true));
  const Tensor reflects = ne(norm, 0);
  const Tensor beta = -copysign(hypot(alpha, norm), alpha);
  // Where nothing reflects, safe denominators keep NaN out of the unused branch (and its gradient).
  const Tensor zero = zeros({}, r.dtype(), r.device()), one = ones({}, r.dtype(), r.device());
  const Tensor tau = where(reflects, (beta - alpha) / where(reflects, beta, one), zero);
  const Tensor v =
      cat({ones({b, 1}, r.dtype(), r.device()), tail / where(reflects, alpha - beta, one)}, 1);
  const Reflector h{v, unsqueeze(tau * v, 2)};
  const Tensor bottom = narrow(r, 1, j, m - j);  // rows j.. (columns before j are zero)
  std::vector<Tensor> columns;
  if (j > 0) columns.push_back(narrow(bottom, 2, 0, j));
  columns.push_back(cat(
      {unsqueeze(where(reflects, beta, alpha), 2), zeros({b, m - j - 1, 1}, r.dtype(), r.device())},
      1));
  columns.push_back(reflect(h, narrow(bottom, 2, j + 1, n - j - 1)));
  r = cat({narrow(r, 1, 0, j), cat(columns, 2)}, 1);
  return h;
}

}  // namespace

std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode) {
  if (mode != "reduced" && mode != "complete" && mode != "r") {
    throw ShapeError("linalg.qr", "qr received unrecognized mode '" + std::string(mode) +
                                      "' but expected one of 'reduced' (default), 'r', or "
                                      "'complete'");
  }
  if (A.dim() < 2 || !is_floating(A.dtype())) {
    throw ShapeError("linalg.qr", "expected a floating batch of matrices [..., m, n], got " +
                                      std::string(dtype_name(A.dtype())) + sizes_str(A.sizes()));
  }
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const int64_t b = linalg_parts::batch_count(A);
  const std::vector<int64_t> batch = linalg_parts::batch_dims(A);
  if (linalg_parts::use_lapack({&A})) {
    const auto [Q, R] = _lapack_geqrf(reshape(A, {b, m, n}), mode == "complete", mode != "r");
    const Tensor r_batched = reshape(R, linalg_parts::batch_shape(batch, R.size(1), n));
    if (mode == "r") return {Q, r_batched};
    return {reshape(Q, linalg_parts::batch_shape(batch, m, Q.size(2))), r_batched};
  }
  Tensor r = reshape(A, {b, m, n});
  std::vector<Reflector> reflectors;
  for (int64_t j = 0; j < k; ++j) reflectors.push_back(householder_step(r, j));
  const int64_t q_cols = mode == "complete" ? m : k;
  const Tensor R = reshape(mode == "complete" ? r : narrow(r, 1, 0, k),
                           linalg_parts::batch_shape(batch, mode == "complete" ? m : k, n));
  if (mode == "r") return {zeros({0}, A.dtype(), A.device()), R};
  const Tensor index = arange(m, DType::Int64, A.device());
  Tensor q =
      expand(unsqueeze(eq(unsqueeze(index, 1), narrow(index, 0, 0, q_cols)).to(A.dtype()), 0),
             {b, m, q_cols});
  for (int64_t j = k - 1; j >= 0; --j) {
    const Tensor rest = reflect(reflectors[static_cast<size_t>(j)], narrow(q, 1, j, m - j));
    q = j == 0 ? rest : cat({narrow(q, 1, 0, j), rest}, 1);
  }
  return {reshape(q, linalg_parts::batch_shape(batch, m, q_cols)), R};
}

}  // namespace lazygen
