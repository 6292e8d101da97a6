// _softmax_backward_data and _log_softmax_backward_data (training_kernels.h).
//
// Both see their operands as [outer, n, inner] with the softmax dim in the middle and make one
// walk per slice: a sum down the dim, then the gradient from it.
//   softmax:     dx = y * (dy - sum(dy * y))
//   log_softmax: dx = dy - exp(y) * sum(dy)
// Sums accumulate in double.
//
// Note [Vectorized softmax backward rows]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The softmax dim is usually the last (attention scores, logits), so a slice is one contiguous
// row. A float32 row keeps its sum in 16 float lanes added in double at the end (GCC vectorizes
// lanes, not one float reduction it may not reorder), and log_softmax's exp is the vectorizable
// vexp of pointwise_math.h (Note [Vectorizable exp and erf]; within 1.16 ulp of exp). Rows run
// in parallel. Other slices and float64 take the plain loops.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "core/tensor/tensor_impl.h"
#include "core/thread_pool.h"
#include "core/vector_clones.h"
#include "lazygen/factory.h"
#include "lazygen/kernels/pointwise_math.h"
#include "ops/cpu/dim_split.h"
#include "ops/cpu/training_kernels.h"
#include "ops/shape/training_shapes.h"

namespace lazygen::cpu {
namespace {

constexpr int64_t kWork = 32 * 1024;
constexpr int kLanes = 16;

// The sum of a float row's products a[i] * b[i] (b null: of a[i]), in 16 lanes.
template <bool kProducts>
inline double lane_sum(const float* __restrict a, const float* __restrict b, int64_t n) {
  float lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) lanes[l] += kProducts ? a[i + l] * b[i + l] : a[i + l];
  }
  double sum = 0;
  for (; i < n; ++i) sum += static_cast<double>(kProducts ? a[i] * b[i] : a[i]);
  for (float lane : lanes) sum += static_cast<double>(lane);
  return sum;
}

LAZYGEN_VECTOR_CLONES void softmax_backward_row_float(const float* __restrict dy,
                                                      const float* __restrict y,
                                                      float* __restrict dx, int64_t n) {
  const auto dot = static_cast<float>(lane_sum<true>(dy, y, n));
  for (int64_t i = 0; i < n; ++i) dx[i] = y[i] * (dy[i] - dot);
}

LAZYGEN_VECTOR_CLONES void log_softmax_backward_row_float(const float* __restrict dy,
                                                          const float* __restrict y,
                                                          float* __restrict dx, int64_t n) {
  const auto sum = static_cast<float>(lane_sum<false>(dy, nullptr, n));
  for (int64_t i = 0; i < n; ++i) dx[i] = dy[i] - kernels::detail::vexp(y[i]) * sum;
}

// One [n, inner] slice, the sums down each column in double.
template <class T>
void backward_slice(const T* dy, const T* y, T* dx, int64_t n, int64_t inner, bool log,
                    std::vector<double>& sum) {
  sum.assign(static_cast<size_t>(inner), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < inner; ++j) {
      const int64_t k = i * inner + j;
      sum[j] += log ? static_cast<double>(dy[k]) : static_cast<double>(dy[k]) * y[k];
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < inner; ++j) {
      const int64_t k = i * inner + j;
      const auto s = static_cast<T>(sum[j]);
      dx[k] = log ? dy[k] - std::exp(y[k]) * s : y[k] * (dy[k] - s);
    }
  }
}

template <class T>
void backward_slices(const T* dy, const T* y, T* dx, const DimSplit& g, bool log) {
  const int64_t slice = g.size * g.inner;
  parallel_for(0, g.outer, std::max<int64_t>(1, kWork / std::max<int64_t>(1, slice)),
               [&](int64_t b, int64_t e) {
                 std::vector<double> sum;
                 for (int64_t o = b; o < e; ++o) {
                   const int64_t at = o * slice;
                   if constexpr (std::is_same_v<T, float>) {
                     if (g.inner == 1 && log) {
                       log_softmax_backward_row_float(dy + at, y + at, dx + at, g.size);
                       continue;
                     }
                     if (g.inner == 1) {
                       softmax_backward_row_float(dy + at, y + at, dx + at, g.size);
                       continue;
                     }
                   }
                   backward_slice(dy + at, y + at, dx + at, g.size, g.inner, log, sum);
                 }
               });
}

// Both ops after their shape function: operands of one floating dtype and one shape.
Tensor softmax_backward_impl(const Shape& shape, const Tensor& grad_output, const Tensor& output,
                             int64_t dim, bool log) {
  const int64_t d =
      grad_output.dim() == 0 ? -1 : wrap_dim("softmax backward", dim, grad_output.dim());
  const Tensor dy = grad_output.contiguous(), y = output.contiguous();
  Tensor out = make_cpu_tensor(shape.sizes, dy.dtype());
  if (out.numel() == 0) return out;
  const DimSplit g = split_at_dim(shape.sizes, d);
  dispatch_dtype(dy.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      backward_slices(dy.data_ptr<T>(), y.data_ptr<T>(), out.data_ptr<T>(), g, log);
    }
  });
  return out;
}

}  // namespace

Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                              DType input_dtype) {
  const Shape shape = compute_shape__softmax_backward_data(grad_output.shape(), output.shape(), dim,
                                                           input_dtype)[0];
  return softmax_backward_impl(shape, grad_output, output, dim, false);
}

Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  DType input_dtype) {
  const Shape shape = compute_shape__log_softmax_backward_data(grad_output.shape(), output.shape(),
                                                               dim, input_dtype)[0];
  return softmax_backward_impl(shape, grad_output, output, dim, true);
}

}  // namespace lazygen::cpu
