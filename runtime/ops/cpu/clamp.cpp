// clamp (custom_kernels.h): min(max(self, min), max) in the result dtype, NaN kept, as PyTorch.
// The bounds are optional Scalars, which `pointwise:` expressions cannot take.
#include <optional>

#include "core/tensor/tensor_impl.h"
#include "ops/cpu/custom_kernels.h"
#include "ops/shape/custom_shapes.h"

namespace lazygen::cpu {
namespace {

template <class T>
void clamp_loop(const T* in, T* out, int64_t n, std::optional<T> lo, std::optional<T> hi) {
  for (int64_t i = 0; i < n; ++i) {
    const T x = in[i];
    T y = lo && x < *lo ? *lo : x;
    y = hi && y > *hi ? *hi : y;
    out[i] = x != x ? x : y;  // NaN stays NaN
  }
}

}  // namespace

Tensor clamp(const Tensor& self, const std::optional<Scalar>& min,
             const std::optional<Scalar>& max) {
  const Shape shape = compute_shape_clamp(self.shape(), min, max)[0];
  Tensor out = make_cpu_tensor(shape.sizes, shape.dtype);
  if (out.numel() == 0) return out;
  const Tensor in = (self.dtype() == shape.dtype ? self : self.to(shape.dtype)).contiguous();
  dispatch_dtype(shape.dtype, [&](auto tag) {
    using T = decltype(tag);
    std::optional<T> lo, hi;
    if (min) lo = min->to<T>();
    if (max) hi = max->to<T>();
    clamp_loop<T>(in.data_ptr<T>(), out.data_ptr<T>(), out.numel(), lo, hi);
  });
  return out;
}

}  // namespace lazygen::cpu
