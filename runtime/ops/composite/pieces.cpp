// split, chunk, unbind, var and std (lazygen/composite.h) from narrow, select, mean and sum.
#include <algorithm>
#include <string>

#include "lazygen/composite.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/select.h"
#include "lazygen/generated/ops/sqrt.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

// The number of elements `dims` (nullopt or empty: all) reduce.
int64_t reduced_count(const Tensor& self, const std::optional<std::vector<int64_t>>& dims) {
  if (!dims || dims->empty()) return self.numel();
  int64_t n = 1;
  for (int64_t d : *dims) n *= self.size(wrap_dim("var", d, self.dim()));
  return n;
}

}  // namespace

std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  if (split_size <= 0) throw ShapeError("split", "split_size must be positive, got " + std::to_string(split_size));
  const int64_t d = wrap_dim("split", dim, self.dim());
  const int64_t size = self.size(d);
  std::vector<Tensor> pieces;
  for (int64_t start = 0; start < size || (size == 0 && pieces.empty()); start += split_size) {
    pieces.push_back(narrow(self, d, start, std::min(split_size, size - start)));
  }
  return pieces;
}

std::vector<Tensor> split_with_sizes(const Tensor& self, const std::vector<int64_t>& split_sizes,
                                     int64_t dim) {
  const int64_t d = wrap_dim("split_with_sizes", dim, self.dim());
  int64_t total = 0;
  for (int64_t n : split_sizes) {
    if (n < 0) {
      throw ShapeError("split_with_sizes",
                       "split_with_sizes expects split_sizes have only non-negative entries, but "
                       "got split_sizes=" +
                           sizes_str(split_sizes));
    }
    total += n;
  }
  if (total != self.size(d)) {
    throw ShapeError("split_with_sizes",
                     "split_with_sizes expects split_sizes to sum exactly to " +
                         std::to_string(self.size(d)) + " (input tensor's size at dimension " +
                         std::to_string(d) + "), but got split_sizes=" + sizes_str(split_sizes));
  }
  std::vector<Tensor> pieces;
  int64_t start = 0;
  for (int64_t n : split_sizes) {
    pieces.push_back(narrow(self, d, start, n));
    start += n;
  }
  return pieces;
}

std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  if (chunks <= 0) throw ShapeError("chunk", "chunk expects `chunks` to be greater than 0, got: " + std::to_string(chunks));
  const int64_t size = self.size(wrap_dim("chunk", dim, self.dim()));
  return split(self, std::max<int64_t>((size + chunks - 1) / chunks, 1), dim);
}

std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim("unbind", dim, self.dim());
  std::vector<Tensor> out;
  for (int64_t i = 0; i < self.size(d); ++i) out.push_back(select(self, d, i));
  return out;
}

Tensor var(const Tensor& self, const std::optional<std::vector<int64_t>>& dims, int64_t correction, bool keepdim) {
  const Tensor centered = self - mean(self, dims, true);
  const int64_t n = reduced_count(self, dims);
  const double divisor = static_cast<double>(std::max<int64_t>(n - correction, 0));  // 0: inf/nan, as PyTorch
  return sum(centered * centered, dims, keepdim) / divisor;
}

Tensor std(const Tensor& self, const std::optional<std::vector<int64_t>>& dims, int64_t correction, bool keepdim) {
  return sqrt(var(self, dims, correction, keepdim));
}

}  // namespace lazygen
