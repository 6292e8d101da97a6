// _dropout_mask (training_kernels.h).
//
// Element i draws the float32 uniform that rand() would put at position i of a tensor made from
// a generator seeded with `seed` (Philox block i / 4, lane i % 4, 24 bits; See Note [Random
// numbers] in core/tensor/random.cpp): a function of (seed, i) only, so the mask is the same on
// every device, for any thread count, and the lazy device can take a new seed every step as a
// runtime Scalar.
#include <algorithm>

#include "backend/cpu/thread_pool.h"
#include "core/tensor/philox.h"
#include "core/tensor/tensor_impl.h"
#include "ops/cpu/training_kernels.h"
#include "ops/shape/training_shapes.h"

namespace lazygen::cpu {
namespace {

constexpr int64_t kBlockGrain = 4096;  // Philox blocks (of 4 elements) per parallel chunk

template <class T>
void fill_mask(T* out, int64_t numel, uint64_t seed, double p) {
  const T keep = p < 1 ? static_cast<T>(1.0 / (1.0 - p)) : T(0);
  const auto threshold = static_cast<float>(p);
  const int64_t blocks = (numel + 3) / 4;
  parallel_for(0, blocks, kBlockGrain, [&](int64_t b, int64_t e) {
    for (int64_t block = b; block < e; ++block) {
      const auto words = lazygen::detail::philox_block(seed, static_cast<uint64_t>(block));
      const int64_t first = block * 4, count = std::min<int64_t>(4, numel - first);
      for (int64_t lane = 0; lane < count; ++lane) {
        const float u = static_cast<float>(words[lane] >> 8) * 0x1p-24f;
        out[first + lane] = u >= threshold ? keep : T(0);
      }
    }
  });
}

}  // namespace

Tensor _dropout_mask(const Tensor& self, const Scalar& p, const Scalar& seed) {
  const Shape shape = compute_shape__dropout_mask(self.shape(), p, seed)[0];
  Tensor out = make_cpu_tensor(shape.sizes, shape.dtype);
  dispatch_dtype(shape.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      fill_mask(out.data_ptr<T>(), out.numel(), static_cast<uint64_t>(seed.to<int64_t>()),
                p.to<double>());
    }
  });
  return out;
}

}  // namespace lazygen::cpu
