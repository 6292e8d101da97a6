// _dropout_mask (training_kernels.h).
//
// Element i draws the float32 uniform that rand() would put at position i of a tensor made from
// a generator seeded with `seed` (Philox block i / 4, lane i % 4, 24 bits; See Note [Random
// numbers] in core/tensor/random.cpp): a function of (seed, i) only, so the mask is the same on
// every device, for any thread count, and the lazy device can take a new seed every step as a
// runtime Scalar. The words are philox_block's (core/tensor/philox.h), computed 16 blocks at
// a time.
#include <algorithm>

#include "core/tensor/tensor_impl.h"
#include "core/thread_pool.h"
#include "core/vector_clones.h"
#include "ops/cpu/training_kernels.h"
#include "ops/shape/training_shapes.h"

namespace lazygen::cpu {
namespace {

constexpr int kBatch = 16;                      // Philox blocks computed side by side
constexpr int64_t kBatchElements = 4 * kBatch;  // mask elements per batch
constexpr int64_t kBatchGrain = 256;            // batches per parallel chunk

// The baseline ISA has 2-lane 32x32->64-bit multiplies; AVX2 and AVX-512 have 4 and 8, and the
// rounds are all multiplies (LAZYGEN_VECTOR_CLONES).
// Philox4x32-10 on the kBatch consecutive counters from `first` (exactly philox_block of
// core/tensor/philox.h, laid out as arrays so the loops vectorize across blocks); writes the
// 4 * kBatch words in stream order.
LAZYGEN_VECTOR_CLONES void philox_batch(uint64_t seed, uint64_t first, uint32_t* words) {
  constexpr uint32_t kMul0 = 0xD2511F53, kMul1 = 0xCD9E8D57;
  constexpr uint32_t kWeyl0 = 0x9E3779B9, kWeyl1 = 0xBB67AE85;
  uint32_t c0[kBatch], c1[kBatch], c2[kBatch] = {}, c3[kBatch] = {};
  for (int i = 0; i < kBatch; ++i) {
    c0[i] = static_cast<uint32_t>(first + i);
    c1[i] = static_cast<uint32_t>((first + i) >> 32);
  }
  auto k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    for (int i = 0; i < kBatch; ++i) {
      const uint64_t p0 = uint64_t{kMul0} * c0[i], p1 = uint64_t{kMul1} * c2[i];
      c0[i] = static_cast<uint32_t>(p1 >> 32) ^ c1[i] ^ k0;
      c1[i] = static_cast<uint32_t>(p1);
      c2[i] = static_cast<uint32_t>(p0 >> 32) ^ c3[i] ^ k1;
      c3[i] = static_cast<uint32_t>(p0);
    }
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  for (int i = 0; i < kBatch; ++i) {
    words[4 * i] = c0[i], words[4 * i + 1] = c1[i], words[4 * i + 2] = c2[i];
    words[4 * i + 3] = c3[i];
  }
}

template <class T>
void fill_mask(T* out, int64_t numel, uint64_t seed, double p) {
  const T keep = p < 1 ? static_cast<T>(1.0 / (1.0 - p)) : T(0);
  const auto threshold = static_cast<float>(p);
  const int64_t batches = (numel + kBatchElements - 1) / kBatchElements;
  parallel_for(0, batches, kBatchGrain, [&](int64_t b, int64_t e) {
    uint32_t words[kBatchElements];
    for (int64_t batch = b; batch < e; ++batch) {
      philox_batch(seed, static_cast<uint64_t>(batch * kBatch), words);
      const int64_t first = batch * kBatchElements;
      const int64_t count = std::min(kBatchElements, numel - first);
      for (int64_t j = 0; j < count; ++j) {
        const float u = static_cast<float>(words[j] >> 8) * 0x1p-24f;  // as rand() draws
        out[first + j] = static_cast<T>(u >= threshold) * keep;        // no branch to mispredict
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
