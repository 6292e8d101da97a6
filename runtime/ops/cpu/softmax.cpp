// _softmax and _log_softmax (custom_kernels.h).
//
// The input is made contiguous in the output's floating dtype and seen as [outer, n, inner]
// with the softmax dim in the middle. inner == 1 (the last dim) is handled row by row; otherwise
// each outer slice keeps per-column maxima and sums in vectors, so both loops stay contiguous.
// Exponentials are computed in the tensor's dtype, sums in double, and each row subtracts its
// maximum first so large inputs do not overflow.
#include <cmath>
#include <string>
#include <vector>

#include "backend/cpu/thread_pool.h"
#include "core/tensor/tensor_impl.h"
#include "ops/cpu/custom_kernels.h"

namespace lazygen::cpu {
namespace {

constexpr int64_t kWork = 32 * 1024;

struct Geometry {
  int64_t outer = 1, n = 1, inner = 1;
};

Geometry geometry(const Tensor& t, int64_t d) {
  Geometry g;
  for (int64_t i = 0; i < t.dim(); ++i) {
    (i < d ? g.outer : i == d ? g.n : g.inner) *= t.size(i);
  }
  return g;
}

// One row of n contiguous elements.
template <class T>
void softmax_row(const T* x, T* y, int64_t n, bool log) {
  T max = x[0];
  for (int64_t i = 1; i < n; ++i) max = std::isnan(x[i]) || x[i] > max ? x[i] : max;
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(std::exp(x[i] - max));
  if (log) {
    // (x - max) - log(sum), not x - (max + log(sum)): x - max is exact, so small results keep
    // their precision when max is large.
    const T log_sum = static_cast<T>(std::log(sum));
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - max) - log_sum;
  } else {
    const T scale = static_cast<T>(1.0 / sum);
    for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i] - max) * scale;
  }
}

// One [n, inner] slice with the softmax taken down each column.
template <class T>
void softmax_columns(const T* x, T* y, int64_t n, int64_t inner, bool log) {
  std::vector<T> max(x, x + inner);
  for (int64_t i = 1; i < n; ++i) {
    for (int64_t j = 0; j < inner; ++j) {
      const T v = x[i * inner + j];
      max[j] = std::isnan(v) || v > max[j] ? v : max[j];
    }
  }
  std::vector<double> sum(static_cast<size_t>(inner), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < inner; ++j) sum[j] += std::exp(x[i * inner + j] - max[j]);
  }
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < inner; ++j) {
      const T v = x[i * inner + j] - max[j];
      y[i * inner + j] =
          log ? v - static_cast<T>(std::log(sum[j])) : static_cast<T>(std::exp(v) / sum[j]);
    }
  }
}

Tensor softmax_impl(const char* op, const Tensor& self, int64_t dim, bool half_to_float, bool log) {
  if (half_to_float) {
    throw ShapeError(op, "half_to_float=True needs a float16 input, which lazygen does not have");
  }
  const int64_t d = wrap_dim(op, dim, self.dim());
  const Tensor x = self.to(to_floating(self.dtype())).contiguous();
  Tensor out = make_cpu_tensor(self.sizes(), x.dtype());
  const Geometry g = geometry(x, d);
  if (x.numel() == 0) return out;
  dispatch_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T* in = x.data_ptr<T>();
      T* y = out.data_ptr<T>();
      const int64_t slice = g.n * g.inner;
      parallel_for(0, g.outer, std::max<int64_t>(1, kWork / slice), [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) {
          if (g.inner == 1) {
            softmax_row(in + o * slice, y + o * slice, g.n, log);
          } else {
            softmax_columns(in + o * slice, y + o * slice, g.n, g.inner, log);
          }
        }
      });
    }
  });
  return out;
}

}  // namespace

Tensor _softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_impl("_softmax", self, dim, half_to_float, false);
}

Tensor _log_softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_impl("_log_softmax", self, dim, half_to_float, true);
}

}  // namespace lazygen::cpu
