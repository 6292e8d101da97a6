// linalg_lstsq_ex (lazygen/composite.h): torch.linalg.lstsq as the LAPACK op _lapack_gels over
// the broadcast batch, with PyTorch's argument checks, its vector case, and its residuals (the
// squared norms of the rows LAPACK leaves below the solution, when m > n, the driver is not
// gelsy and, for gelsd and gelss, every matrix has full rank: a sync reads the ranks).
#include <algorithm>
#include <string>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/_lapack_gels.h"
#include "lazygen/generated/ops/amin.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/squeeze.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/operators.h"
#include "ops/composite/linalg_parts.h"

namespace lazygen {
namespace {

constexpr const char* kOp = "torch.linalg.lstsq";

// PyTorch's checks, in its order, with its messages.
void check_arguments(const Tensor& A, const Tensor& B, std::string_view driver) {
  if (A.dim() < 2) throw ShapeError(kOp, "input must have at least 2 dimensions.");
  if (B.dim() < 1) throw ShapeError(kOp, "other must have at least 1 dimension.");
  linalg_parts::check_floating_matrix(kOp, A);
  if (A.dtype() != B.dtype()) {
    throw ShapeError(kOp,
                     "Expected input and other to have the same dtype, but got input's dtype " +
                         std::string(dtype_name(A.dtype())) + " and other's dtype " +
                         std::string(dtype_name(B.dtype())));
  }
  const int64_t dim_diff = A.dim() - B.dim();
  if (dim_diff < 0 || dim_diff > 1) {
    throw ShapeError(kOp,
                     "input.dim() must be greater or equal to other.dim() and (input.dim() - "
                     "other.dim()) <= 1");
  }
  const int64_t rows = dim_diff == 1 ? B.size(-1) : B.size(-2);
  if (A.size(-2) != rows) {
    throw ShapeError(kOp, dim_diff == 1 ? "input.size(-2) should match other.size(-1)"
                                        : "input.size(-2) should match other.size(-2)");
  }
  if (driver != "gels" && driver != "gelsy" && driver != "gelsd" && driver != "gelss") {
    throw ShapeError(kOp, "parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  }
}

// `t` [batch..., rest...] (batch the broadcast batch dims) reduced to A's own batch dims
// `a_batch`, as PyTorch shapes rank and singular values: leading dims A lacks, and dims where A
// has size 1, keep their first index (every index there holds the same matrix's result).
Tensor to_a_batch(Tensor t, const std::vector<int64_t>& batch,
                  const std::vector<int64_t>& a_batch) {
  const size_t extra = batch.size() - a_batch.size();
  for (size_t d = 0; d < extra; ++d) t = squeeze(narrow(t, 0, 0, 1), 0);
  for (size_t d = 0; d < a_batch.size(); ++d) {
    if (a_batch[d] == 1 && batch[extra + d] != 1) t = narrow(t, static_cast<int64_t>(d), 0, 1);
  }
  return t;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> linalg_lstsq_ex(
    const Tensor& A, const Tensor& B, std::optional<double> rcond,
    std::optional<std::string_view> driver) {
  const std::string_view name = driver.value_or("gelsy");
  check_arguments(A, B, name);
  const bool vector_case = A.dim() - B.dim() == 1;
  const Tensor B2 = vector_case ? unsqueeze(B, -1) : B;
  const int64_t m = A.size(-2), n = A.size(-1), k = B2.size(-1);
  const std::vector<int64_t> a_batch = linalg_parts::batch_dims(A);
  const std::vector<int64_t> batch = broadcast_sizes(kOp, a_batch, linalg_parts::batch_dims(B2));
  int64_t count = 1;
  for (int64_t s : batch) count *= s;
  const Tensor a = reshape(expand(A, linalg_parts::batch_shape(batch, m, n)), {count, m, n});
  const Tensor b = reshape(expand(B2, linalg_parts::batch_shape(batch, m, k)), {count, m, k});
  const auto [X, rank, S, info] = _lapack_gels(a, b, name, rcond);

  Tensor solution = reshape(narrow(X, 1, 0, n), linalg_parts::batch_shape(batch, n, k));
  if (vector_case) solution = squeeze(solution, -1);
  const Tensor rank_out = name == "gels" ? rank : to_a_batch(reshape(rank, batch), batch, a_batch);
  Tensor s_out = S;  // [0] but for gelsd and gelss
  if (name == "gelsd" || name == "gelss") {
    std::vector<int64_t> s_shape = batch;
    s_shape.push_back(std::min(m, n));
    s_out = to_a_batch(reshape(S, s_shape), batch, a_batch);
  }
  bool with_residuals = m > n && name != "gelsy";
  if (with_residuals && name != "gels" && rank.numel() > 0) {
    with_residuals = amin(rank).item<int64_t>() == n;  // a sync
  }
  Tensor residuals = empty({0}, A.dtype(), A.device());
  if (with_residuals) {
    const Tensor rest = narrow(X, 1, n, m - n);
    std::vector<int64_t> r_shape = batch;
    r_shape.push_back(k);
    residuals = reshape(sum(rest * rest, std::vector<int64_t>{1}), r_shape);
  }
  return {solution, residuals, rank_out, s_out, reshape(info, batch)};
}

}  // namespace lazygen
