// The eager CUDA nll_loss, its backward and the dropout mask (training_args.h).
//
// nll_loss runs as one block: the batch is the loss's own reduction, small next to the layers
// before it, and one block keeps the order of its double sums fixed. The dropout mask is
// Philox4x32-10 exactly as core/tensor/philox.h and ops/cpu/dropout.cpp compute it (integer
// math), so cpu and cuda masks are bit-identical.
#include "backend/cuda/eager/training.cuh"
#include "backend/cuda/eager/training_elements.h"

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

// One Philox block (4 mask elements) per thread.
template <class T>
__global__ void dropout_mask_kernel(int64_t numel, uint64_t seed, float threshold, T keep, T* out) {
  const int64_t blocks = (numel + 3) / 4;
  for (int64_t b = detail::grid_first(); b < blocks; b += detail::grid_stride()) {
    uint32_t words[4];
    philox_words(seed, static_cast<uint64_t>(b), words);
    for (int64_t j = 0; j < 4 && 4 * b + j < numel; ++j) {
      out[4 * b + j] = dropout_value(words[j], threshold, keep);
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
