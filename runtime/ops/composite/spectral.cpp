// linalg_eigh_ex and linalg_svd_ex (lazygen/composite.h): batches of matrices flattened to
// [b, n, n] ([b, m, n]) for the LAPACK ops _lapack_syevd and _lapack_gesdd, and their results
// given back the batch dims.
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/generated/ops/_lapack_gesdd.h"
#include "lazygen/generated/ops/_lapack_syevd.h"
#include "lazygen/generated/ops/reshape.h"
#include "ops/composite/linalg_parts.h"

namespace lazygen {

namespace {

// An output `t` of a batched LAPACK op with its leading dim (the batch) replaced by `batch`;
// an empty [0] stays as it is.
Tensor with_batch(const Tensor& t, const std::vector<int64_t>& batch) {
  if (t.dim() == 1 && t.size(0) == 0) return t;
  std::vector<int64_t> sizes = batch;
  sizes.insert(sizes.end(), t.sizes().begin() + 1, t.sizes().end());
  return reshape(t, sizes);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> linalg_eigh_ex(const Tensor& A, bool upper, bool compute_v) {
  linalg_parts::check_square("linalg.eigh", A);
  const int64_t n = A.size(-1), b = linalg_parts::batch_count(A);
  const std::vector<int64_t> batch = linalg_parts::batch_dims(A);
  const auto [values, vectors, info] = _lapack_syevd(reshape(A, {b, n, n}), upper, compute_v);
  return {with_batch(values, batch), with_batch(vectors, batch), reshape(info, batch)};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_svd_ex(const Tensor& A, bool full_matrices,
                                                         bool compute_uv) {
  linalg_parts::check_floating_matrix("linalg.svd", A);
  const int64_t m = A.size(-2), n = A.size(-1), b = linalg_parts::batch_count(A);
  const std::vector<int64_t> batch = linalg_parts::batch_dims(A);
  const auto [U, S, Vh, info] = _lapack_gesdd(reshape(A, {b, m, n}), full_matrices, compute_uv);
  return {with_batch(U, batch), with_batch(S, batch), with_batch(Vh, batch), reshape(info, batch)};
}

}  // namespace lazygen
