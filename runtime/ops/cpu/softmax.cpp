// _softmax and _log_softmax (custom_kernels.h).
//
// The input is made contiguous in the output's floating dtype and seen as [outer, n, inner]
// with the softmax dim in the middle. inner == 1 (the last dim) is handled row by row; otherwise
// each outer slice keeps per-column maxima and sums in vectors, so both loops stay contiguous.
// Exponentials are computed in the tensor's dtype, sums in double, and each row subtracts its
// maximum first so large inputs do not overflow.
//
// Note [Vectorized float32 softmax rows]
// A float32 row over the last dim (attention scores, logits) is the common case and was bound by
// std::exp, called twice per element. It now takes three vectorizable passes: the maximum (NaN
// noted aside), e = exp(x - max) written into the output while summing, and a scaling pass
// (log_softmax: (x - max) - log(sum)); maximum and sum run in 16 lanes (the sum's added in
// double at the end), which GCC vectorizes where it would not reorder one float reduction. exp
// is Cephes' expf: x = n ln2 + r with |r| <= ln2 / 2 by magic-number rounding, a degree-6
// polynomial for exp(r), and 2^n put into the exponent bits: within 2 ulp of std::exp for
// x - max in [-87.3, 0], and exactly 0 below, where std::exp gives subnormals (below 1.2e-38);
// masked scores of -inf give 0, as PyTorch's. A row whose maximum is NaN or infinite takes the
// scalar path (PyTorch's NaNs). Compiled for AVX-512, AVX2 and the baseline (vector_clones.h).
// While a row's exponentials are computed, the next row is prefetched a line per strip, so its
// maximum pass reads from cache instead of waiting for DRAM.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/tensor/tensor_impl.h"
#include "core/thread_pool.h"
#include "core/vector_clones.h"
#include "ops/cpu/custom_kernels.h"
#include "ops/cpu/dim_split.h"

namespace lazygen::cpu {
namespace {

constexpr int64_t kWork = 32 * 1024;

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

// exp(x) for float32 x <= 0 (Note [Vectorized float32 softmax rows]); 0 below -87.3.
inline float exp_nonpositive(float x) {
  constexpr float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float clamped = x < -87.3f ? -87.3f : x;
  const float n = (clamped * kLog2e + kRound) - kRound;
  const float r = clamped - n * kLn2Hi - n * kLn2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e = p * r * r + r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;  // 2^n, n in [-126, 0]
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return x < -87.3f ? 0.0f : e * scale;
}

// A float32 row with a finite maximum `max` (Note [Vectorized float32 softmax rows]). y holds
// the exponentials between the passes (log_softmax overwrites them).
LAZYGEN_VECTOR_CLONES void softmax_row_float(const float* __restrict x, float* __restrict y,
                                             int64_t n, float max, bool log, const float* next) {
  constexpr int kLanes = 16;
  float lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    // One cache line of the next row per strip: its maximum pass then reads from cache while
    // this row's exponentials keep the core busy.
    if (next != nullptr) __builtin_prefetch(next + i);
    for (int l = 0; l < kLanes; ++l) {
      y[i + l] = exp_nonpositive(x[i + l] - max);
      lanes[l] += y[i + l];
    }
  }
  double sum = 0;
  for (; i < n; ++i) {
    y[i] = exp_nonpositive(x[i] - max);
    sum += static_cast<double>(y[i]);
  }
  for (float lane : lanes) sum += static_cast<double>(lane);
  if (log) {
    const auto log_sum = static_cast<float>(std::log(sum));
    for (int64_t j = 0; j < n; ++j) y[j] = (x[j] - max) - log_sum;
  } else {
    const auto scale = static_cast<float>(1.0 / sum);
    for (int64_t j = 0; j < n; ++j) y[j] *= scale;
  }
}

// Whether float bits are a NaN or +inf: all-ones exponent, and not -inf.
inline uint32_t nan_or_plus_inf(uint32_t bits) {
  return static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u) &
         static_cast<uint32_t>(bits != 0xff800000u);
}

// The maximum of a float32 row when no element is NaN or +inf, else NaN (the caller then takes
// the scalar path, which follows PyTorch for NaNs and infinities). -inf, a masked score, is fine:
// its exponential is 0 on the vector path too, and a causal mask puts one in most rows. In 16
// lanes, each keeping its maximum and whether a NaN or +inf passed (integer tests on the bits, so
// that no float comparison of a NaN keeps GCC from vectorizing): GCC vectorizes per-lane maxima,
// not a max reduction with NaN rules.
LAZYGEN_VECTOR_CLONES float row_max_float(const float* __restrict x, int64_t n) {
  constexpr int kLanes = 16;
  float lanes[kLanes];
  uint32_t bad[kLanes] = {};
  for (float& lane : lanes) lane = x[0];
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      lanes[l] = x[i + l] > lanes[l] ? x[i + l] : lanes[l];
      bad[l] |= nan_or_plus_inf(std::bit_cast<uint32_t>(x[i + l]));
    }
  }
  float max = x[0];
  uint32_t any_bad = 0;
  for (; i < n; ++i) {
    max = x[i] > max ? x[i] : max;
    any_bad |= nan_or_plus_inf(std::bit_cast<uint32_t>(x[i]));
  }
  for (int l = 0; l < kLanes; ++l) {
    max = lanes[l] > max ? lanes[l] : max;
    any_bad |= bad[l];
  }
  return any_bad == 0 ? max : std::nanf("");
}

// `next`: the row after x, if the same thread takes it next (prefetched meanwhile), or null.
template <class T>
void softmax_row_dispatch(const T* x, T* y, int64_t n, bool log, const T* next) {
  if constexpr (std::is_same_v<T, float>) {
    const float max = row_max_float(x, n);
    if (std::isfinite(max)) return softmax_row_float(x, y, n, max, log, next);
  }
  softmax_row(x, y, n, log);
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
  const DimSplit g = split_at_dim(x.sizes(), d);
  if (x.numel() == 0) return out;
  dispatch_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T* in = x.data_ptr<T>();
      T* y = out.data_ptr<T>();
      const int64_t slice = g.size * g.inner;
      parallel_for(0, g.outer, std::max<int64_t>(1, kWork / slice), [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) {
          if (g.inner == 1) {
            softmax_row_dispatch(in + o * slice, y + o * slice, g.size, log,
                                 o + 1 < e ? in + (o + 1) * slice : nullptr);
          } else {
            softmax_columns(in + o * slice, y + o * slice, g.size, g.inner, log);
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
