// The eager CUDA nll_loss, its backward and the dropout mask (training_args.h).
//
// nll_loss runs as one block: the batch is the loss's own reduction, small next to the layers
// before it, and one block keeps the order of its double sums fixed. The dropout mask is
// Philox4x32-10 exactly as core/tensor/philox.h and ops/cpu/dropout.cpp compute it (integer
// math), so cpu and cuda masks are bit-identical.
#include "backend/cuda/training.cuh"

namespace lazygen::cuda {
namespace {

// Whether sample i counts; reports a target outside [0, classes) (which does not count).
__device__ bool counts(const NllArgs& a, int64_t cls, int64_t i, unsigned long long* first_bad) {
  if (cls == a.ignore_index) return false;
  if (cls < 0 || cls >= a.classes) {
    detail::report_bad(first_bad, i);
    return false;
  }
  return true;
}

template <class T>
__device__ T weight_of(const T* weight, int64_t cls) {
  return weight != nullptr ? weight[cls] : T(1);
}

// out: the losses (reduction none) or their sum or weighted mean (NaN when no weight counts).
template <class T>
__global__ void nll_loss_kernel(NllArgs a, const T* self, const int64_t* target, const T* weight,
                                T* out, unsigned long long* first_bad) {
  __shared__ double scratch[kTrainingThreads];
  double sum = 0, total = 0;
  for (int64_t i = threadIdx.x; i < a.batch; i += blockDim.x) {
    const int64_t cls = target[i];
    const bool use = counts(a, cls, i, first_bad);
    const T w = use ? weight_of(weight, cls) : T(0);
    const T loss = use ? -w * self[i * a.classes + cls] : T(0);
    if (a.reduction == 0) out[i] = loss;
    sum += loss;
    total += w;
  }
  const auto add = [](double l, double r) { return l + r; };
  sum = detail::block_reduce(sum, scratch, add);
  total = detail::block_reduce(total, scratch, add);
  if (threadIdx.x == 0 && a.reduction == 2) out[0] = static_cast<T>(sum);
  if (threadIdx.x == 0 && a.reduction == 1) out[0] = static_cast<T>(sum / total);
}

template <class T>
__global__ void nll_loss_backward_kernel(NllArgs a, const T* grad_output, const int64_t* target,
                                         const T* weight, T* grad_input,
                                         unsigned long long* first_bad) {
  __shared__ double scratch[kTrainingThreads];
  double total = 0;
  if (a.reduction == 1) {
    for (int64_t i = threadIdx.x; i < a.batch; i += blockDim.x) {
      const int64_t cls = target[i];
      if (counts(a, cls, i, nullptr)) total += weight_of(weight, cls);
    }
  }
  total = a.reduction == 1
              ? detail::block_reduce(total, scratch, [](double l, double r) { return l + r; })
              : 1.0;
  for (int64_t i = threadIdx.x; i < a.batch; i += blockDim.x) {
    const int64_t cls = target[i];
    if (!counts(a, cls, i, first_bad)) continue;
    const T g = a.reduction == 0 ? grad_output[i] : grad_output[0];
    grad_input[i * a.classes + cls] = static_cast<T>(-weight_of(weight, cls) * g / total);
  }
}

// The 4 words of Philox4x32-10 block `counter` of `seed` (core/tensor/philox.h).
__device__ uint4 philox_block(uint64_t seed, uint64_t counter) {
  constexpr uint32_t kMul0 = 0xD2511F53, kMul1 = 0xCD9E8D57;
  constexpr uint32_t kWeyl0 = 0x9E3779B9, kWeyl1 = 0xBB67AE85;
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32);
  uint32_t c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint32_t hi0 = __umulhi(kMul0, c0), lo0 = kMul0 * c0;
    const uint32_t hi1 = __umulhi(kMul1, c2), lo1 = kMul1 * c2;
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return make_uint4(c0, c1, c2, c3);
}

// One Philox block (4 mask elements) per thread.
template <class T>
__global__ void dropout_mask_kernel(int64_t numel, uint64_t seed, float threshold, T keep, T* out) {
  const int64_t blocks = (numel + 3) / 4;
  for (int64_t b = detail::grid_first(); b < blocks; b += detail::grid_stride()) {
    const uint4 r = philox_block(seed, static_cast<uint64_t>(b));
    const uint32_t words[4] = {r.x, r.y, r.z, r.w};
    for (int64_t j = 0; j < 4 && 4 * b + j < numel; ++j) {
      const float u = static_cast<float>(words[j] >> 8) * 0x1p-24f;  // as rand() draws
      out[4 * b + j] = u >= threshold ? keep : T(0);
    }
  }
}

}  // namespace

void launch_nll_loss(const NllArgs& a, DType dtype, const void* self, const int64_t* target,
                     const void* weight, void* out, unsigned long long* first_bad,
                     cudaStream_t stream) {
  detail::dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    nll_loss_kernel<T><<<1, kTrainingThreads, 0, stream>>>(a, static_cast<const T*>(self), target,
                                                           static_cast<const T*>(weight),
                                                           static_cast<T*>(out), first_bad);
  });
  detail::check_launch("nll_loss");
}

void launch_nll_loss_backward(const NllArgs& a, DType dtype, const void* grad_output,
                              const int64_t* target, const void* weight, void* grad_input,
                              unsigned long long* first_bad, cudaStream_t stream) {
  detail::dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    nll_loss_backward_kernel<T><<<1, kTrainingThreads, 0, stream>>>(
        a, static_cast<const T*>(grad_output), target, static_cast<const T*>(weight),
        static_cast<T*>(grad_input), first_bad);
  });
  detail::check_launch("nll_loss backward");
}

void launch_dropout_mask(int64_t numel, uint64_t seed, double p, DType dtype, void* out,
                         cudaStream_t stream) {
  if (numel == 0) return;
  detail::dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T keep = p < 1 ? static_cast<T>(1.0 / (1.0 - p)) : T(0);
    dropout_mask_kernel<T><<<blocks_for((numel + 3) / 4), kTrainingThreads, 0, stream>>>(
        numel, seed, static_cast<float>(p), keep, static_cast<T*>(out));
  });
  detail::check_launch("_dropout_mask");
}

}  // namespace lazygen::cuda
