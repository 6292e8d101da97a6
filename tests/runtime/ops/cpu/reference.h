// Naive reference loops for the kernel tests: index arithmetic only, in double.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

namespace lazygen::testing {

using Sizes = std::vector<int64_t>;

// Calls fn(index) for every multi-index of `sizes` in row-major order.
inline void for_each_index(const Sizes& sizes, const std::function<void(const Sizes&)>& fn) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  Sizes index(sizes.size(), 0);
  for (int64_t linear = 0; linear < n; ++linear) {
    fn(index);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
}

inline int64_t linear_index(const Sizes& sizes, const Sizes& index) {
  int64_t out = 0;
  for (size_t d = 0; d < sizes.size(); ++d) out = out * sizes[d] + index[d];
  return out;
}

// Reduces row-major `data` of `sizes` over dims with mask true (keepdim layout order), with
// `step(acc, value)` from `init`.
inline std::vector<double> reduce(const std::vector<double>& data, const Sizes& sizes,
                                  const std::vector<bool>& mask, double init,
                                  const std::function<double(double, double)>& step) {
  Sizes out_sizes;
  for (size_t d = 0; d < sizes.size(); ++d) out_sizes.push_back(mask[d] ? 1 : sizes[d]);
  int64_t n = 1;
  for (int64_t s : out_sizes) n *= s;
  std::vector<double> out(static_cast<size_t>(n), init);
  for_each_index(sizes, [&](const Sizes& index) {
    Sizes out_index = index;
    for (size_t d = 0; d < sizes.size(); ++d) out_index[d] = mask[d] ? 0 : index[d];
    double& acc = out[static_cast<size_t>(linear_index(out_sizes, out_index))];
    acc = step(acc, data[static_cast<size_t>(linear_index(sizes, index))]);
  });
  return out;
}

// a [m, k] @ b [k, n], row-major.
inline std::vector<double> matmul(const std::vector<double>& a, const std::vector<double>& b,
                                  int64_t m, int64_t k, int64_t n) {
  std::vector<double> c(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t p = 0; p < k; ++p) c[i * n + j] += a[i * k + p] * b[p * n + j];
    }
  }
  return c;
}

}  // namespace lazygen::testing
