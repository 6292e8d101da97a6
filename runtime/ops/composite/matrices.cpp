// torch.diag_embed, torch.diag, torch.linalg.cross, torch.cdist and torch.pdist
// (lazygen/composite.h), from the diagonal views' copies and scatters, roll, matmul, norm, index
// ops and pointwise ops.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/clamp_min.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/index_add.h"
#include "lazygen/generated/ops/index_select.h"
#include "lazygen/generated/ops/logical_and.h"
#include "lazygen/generated/ops/logical_or.h"
#include "lazygen/generated/ops/pow.h"
#include "lazygen/generated/ops/sign.h"
#include "lazygen/generated/ops/sqrt.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/transpose.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

void check_cdist(const Tensor& x1, const Tensor& x2, double p) {
  if (x1.dim() < 2 || x2.dim() < 2) {
    throw ShapeError("cdist", "expected inputs of at least 2 dims, got " + sizes_str(x1.sizes()) +
                                  " and " + sizes_str(x2.sizes()));
  }
  if (x1.size(-1) != x2.size(-1)) {
    throw ShapeError("cdist", "expected inputs with the same number of columns, got " +
                                  sizes_str(x1.sizes()) + " and " + sizes_str(x2.sizes()));
  }
  if (!is_floating(x1.dtype()) || x2.dtype() != x1.dtype()) {
    throw ShapeError("cdist", "expected two floating inputs of one dtype, got " +
                                  std::string(dtype_name(x1.dtype())) + " and " +
                                  std::string(dtype_name(x2.dtype())));
  }
  if (!(p >= 0)) throw ShapeError("cdist", "expected a non-negative p, got " + std::to_string(p));
}

// Whether PyTorch computes the 2-norm distances through a matrix product (compute_mode 1, or 0
// with more than 25 rows on a side), as `euclidean` does.
bool by_matmul(const Tensor& x1, const Tensor& x2, std::optional<int64_t> compute_mode) {
  const int64_t mode = compute_mode.value_or(0);
  return mode == 1 || (mode == 0 && (x1.size(-2) > 25 || x2.size(-2) > 25));
}

// PyTorch's _euclidean_dist: |x1|^2 + |x2|^2 - 2 x1 x2^T as one matrix product of padded
// operands, clamped at 0, then the root (its gradient 0 at a zero distance, as PyTorch's).
Tensor euclidean(const Tensor& x1, const Tensor& x2) {
  const Tensor n1 = sum(x1 * x1, std::vector<int64_t>{-1}, true);
  const Tensor n2 = sum(x2 * x2, std::vector<int64_t>{-1}, true);
  const Tensor one1 = ones(n1.sizes(), n1.dtype(), n1.device());
  const Tensor one2 = ones(n2.sizes(), n2.dtype(), n2.device());
  const Tensor squared = clamp_min(
      matmul(cat({x1 * -2.0, n1, one1}, -1), transpose(cat({x2, one2, n2}, -1), -2, -1)), 0);
  const Tensor positive = gt(squared, 0);
  return where(positive, sqrt(where(positive, squared, one1)), zeros({}, x1.dtype(), x1.device()));
}

void check_pdist(const Tensor& self, double p) {
  if (self.dim() != 2) {
    throw ShapeError("pdist", "expected a matrix, got " + sizes_str(self.sizes()));
  }
  if (!is_floating(self.dtype())) {
    throw ShapeError("pdist",
                     "expected a floating input, got " + std::string(dtype_name(self.dtype())));
  }
  if (!(p >= 0)) throw ShapeError("pdist", "expected a non-negative p, got " + std::to_string(p));
}

// The rows i (first) and j (second) of the pairs i < j of n rows, in pdist's order, on `device`.
std::pair<Tensor, Tensor> row_pairs(int64_t n, Device device) {
  std::vector<int64_t> first, second;
  first.reserve(static_cast<size_t>(n * (n - 1) / 2));
  second.reserve(first.capacity());
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i + 1; j < n; ++j) {
      first.push_back(i);
      second.push_back(j);
    }
  }
  return {tensor(first).to(device), tensor(second).to(device)};
}

// x1_i - x2_j for every pair of rows: [..., r1, r2, m].
Tensor pairwise_differences(const Tensor& x1, const Tensor& x2) {
  return unsqueeze(x1, -2) - unsqueeze(x2, -3);
}

}  // namespace

// diagonal_scatter into zeros; PyTorch's composite writes through a diagonal view instead.
Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t rank = self.dim() + 1;
  const int64_t d1 = wrap_dim("diag_embed", dim1, rank), d2 = wrap_dim("diag_embed", dim2, rank);
  if (d1 == d2) {
    throw ShapeError("diag_embed", "diagonal dimensions cannot be identical " +
                                       std::to_string(dim1) + ", " + std::to_string(dim2));
  }
  const int64_t side = self.size(-1) + (offset < 0 ? -offset : offset);
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end() - 1);
  for (int64_t d : {std::min(d1, d2), std::max(d1, d2)}) sizes.insert(sizes.begin() + d, side);
  return diagonal_scatter(zeros(sizes, self.dtype(), self.device()), self, offset, d1, d2);
}

Tensor diag(const Tensor& self, int64_t diagonal) {
  if (self.dim() == 2) return diagonal_copy(self, diagonal, 0, 1);
  if (self.dim() != 1) {
    throw ShapeError("diag", "expected a matrix or a vector, got " + sizes_str(self.sizes()));
  }
  return diag_embed(self, diagonal, 0, 1);
}

// Component j of the cross product is a[j + 1] b[j + 2] - a[j + 2] b[j + 1] (indices mod 3):
// rolling by -1 brings element j + 1 to position j.
Tensor linalg_cross(const Tensor& self, const Tensor& other, int64_t dim) {
  if (self.dim() != other.dim()) {
    throw ShapeError("linalg_cross", "expected inputs of the same number of dims, got " +
                                         sizes_str(self.sizes()) + " and " +
                                         sizes_str(other.sizes()));
  }
  if (self.dtype() != other.dtype()) {
    throw ShapeError("linalg_cross", "expected inputs of one dtype, got " +
                                         std::string(dtype_name(self.dtype())) + " and " +
                                         std::string(dtype_name(other.dtype())));
  }
  const int64_t d = wrap_dim("linalg_cross", dim, self.dim());
  if (self.size(d) != 3 || other.size(d) != 3) {
    throw ShapeError("linalg_cross", "expected dim " + std::to_string(dim) + " of " +
                                         sizes_str(self.sizes()) + " and " +
                                         sizes_str(other.sizes()) + " to have size 3");
  }
  broadcast_sizes("linalg_cross", self.sizes(), other.sizes());
  const auto r = [d](const Tensor& t, int64_t shift) { return roll(t, {shift}, {d}); };
  return r(self, -1) * r(other, -2) - r(self, -2) * r(other, -1);
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  check_cdist(x1, x2, p);
  // No coordinates: every distance is 0, an empty sum (norm refuses p = inf over no elements).
  if (x1.size(-1) == 0) return sum(pairwise_differences(x1, x2), std::vector<int64_t>{-1});
  if (p == 2 && by_matmul(x1, x2, compute_mode)) return euclidean(x1, x2);
  return norm(pairwise_differences(x1, x2), p, {-1});
}

// PyTorch's _cdist_backward, pair by pair (diff = x1_i - x2_j, dist its distance), summed over j:
// 0 for p = 0; sign(diff) for p = 1; for p < 2 sign(diff) |diff|^(p-1) / dist^(p-1), 0 where
// dist is 0 or (p < 1) diff is 0; diff / dist for p = 2; diff |diff|^(p-2) / dist^(p-1) above;
// sign(diff) where |diff| is the maximum for p = inf. Zero distances give 0.
Tensor cdist_backward(const Tensor& grad, const Tensor& x1, const Tensor& x2, double p,
                      const Tensor& dist) {
  check_cdist(x1, x2, p);
  const Tensor diff = pairwise_differences(x1, x2);
  const Tensor g = unsqueeze(grad, -1), d = unsqueeze(dist, -1);
  const Tensor zero = zeros({}, diff.dtype(), diff.device());
  const Tensor one = ones({}, diff.dtype(), diff.device());
  Tensor pair;
  if (p == 0) {
    pair = diff * 0.0;
  } else if (p == 1) {
    pair = sign(diff) * g;
  } else if (std::isinf(p)) {
    pair = sign(diff) * where(eq(abs(diff), d), g, zero);
  } else {
    const Tensor at_zero = p < 1 ? logical_or(eq(d, 0), eq(diff, 0)) : eq(d, 0);
    const Tensor safe_d = where(eq(d, 0), one, d);
    const Tensor scaled = p == 2 ? diff / safe_d
                                 : (p < 2 ? sign(diff) * pow(where(at_zero, one, abs(diff)), p - 1)
                                          : diff * pow(abs(diff), p - 2)) /
                                       pow(safe_d, p - 1);
    pair = where(at_zero, zero, scaled * g);
  }
  return sum(pair, std::vector<int64_t>{-2});
}

Tensor pdist(const Tensor& self, double p) {
  check_pdist(self, p);
  const auto [first, second] = row_pairs(self.size(0), self.device());
  const Tensor diff = index_select(self, 0, first) - index_select(self, 0, second);
  // No coordinates: every distance is 0, an empty sum (norm refuses p = inf over no elements).
  if (self.size(1) == 0) return sum(diff, std::vector<int64_t>{-1});
  return norm(diff, p, {-1});
}

// Pair k's term is cdist_backward of the single rows i and j (a batch of K 1x1 distances).
Tensor pdist_backward(const Tensor& grad, const Tensor& self, double p, const Tensor& dist) {
  check_pdist(self, p);
  const auto [first, second] = row_pairs(self.size(0), self.device());
  const Tensor rows_i = unsqueeze(index_select(self, 0, first), 1);
  const Tensor rows_j = unsqueeze(index_select(self, 0, second), 1);
  const auto pairs = [](const Tensor& t) { return unsqueeze(unsqueeze(t, -1), -1); };
  const Tensor term =
      sum(cdist_backward(pairs(grad), rows_i, rows_j, p, pairs(dist)), std::vector<int64_t>{1});
  const Tensor to_first = index_add(zeros_like(self), 0, first, term);
  return index_add(to_first, 0, second, term * -1.0);
}

}  // namespace lazygen
