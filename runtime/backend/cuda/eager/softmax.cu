// The eager CUDA log_softmax and its backward (training_args.h): one block per [outer, inner]
// slice, its n elements strided by `inner`; each thread reduces a strided share, then a fixed
// tree (training.cuh). Sums in double, the maximum with the cpu's NaN rule.
#include <cmath>

#include "backend/cuda/eager/training.cuh"

namespace lazygen::cuda {
namespace {

// The first element of slice `b` (b = outer index * inner + inner index).
__device__ int64_t slice_base(const SoftmaxArgs& a, int64_t b) {
  return (b / a.inner) * a.n * a.inner + b % a.inner;
}

template <class T>
__device__ T nan_max(T a, T b) {
  return b != b || b > a ? b : a;
}

template <class T>
__global__ void log_softmax_kernel(SoftmaxArgs a, const T* x, T* y) {
  __shared__ T max_scratch[kTrainingThreads];
  __shared__ double sum_scratch[kTrainingThreads];
  for (int64_t b = blockIdx.x; b < a.outer * a.inner; b += gridDim.x) {
    const T* in = x + slice_base(a, b);
    T* out = y + slice_base(a, b);
    T m = in[0];
    for (int64_t k = threadIdx.x; k < a.n; k += blockDim.x) m = nan_max(m, in[k * a.inner]);
    m = detail::block_reduce(m, max_scratch, [](T l, T r) { return nan_max(l, r); });
    double sum = 0;
    for (int64_t k = threadIdx.x; k < a.n; k += blockDim.x) {
      sum += static_cast<double>(exp(in[k * a.inner] - m));
    }
    sum = detail::block_reduce(sum, sum_scratch, [](double l, double r) { return l + r; });
    // (x - max) - log(sum), as the cpu: x - max is exact.
    const T log_sum = static_cast<T>(log(sum));
    for (int64_t k = threadIdx.x; k < a.n; k += blockDim.x) {
      out[k * a.inner] = (in[k * a.inner] - m) - log_sum;
    }
  }
}

template <class T>
__global__ void log_softmax_backward_kernel(SoftmaxArgs a, const T* dy, const T* y, T* dx) {
  __shared__ double sum_scratch[kTrainingThreads];
  for (int64_t b = blockIdx.x; b < a.outer * a.inner; b += gridDim.x) {
    const int64_t base = slice_base(a, b);
    double sum = 0;
    for (int64_t k = threadIdx.x; k < a.n; k += blockDim.x) sum += dy[base + k * a.inner];
    sum = detail::block_reduce(sum, sum_scratch, [](double l, double r) { return l + r; });
    for (int64_t k = threadIdx.x; k < a.n; k += blockDim.x) {
      const int64_t i = base + k * a.inner;
      dx[i] = dy[i] - exp(y[i]) * static_cast<T>(sum);
    }
  }
}

unsigned slice_blocks(const SoftmaxArgs& a) {
  const int64_t slices = a.outer * a.inner;
  return static_cast<unsigned>(slices < kMaxTrainingBlocks ? slices : kMaxTrainingBlocks);
}

}  // namespace

void launch_log_softmax(const SoftmaxArgs& a, DType dtype, const void* x, void* y,
                        cudaStream_t stream) {
  if (a.outer * a.n * a.inner == 0) return;
  detail::dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    log_softmax_kernel<T><<<slice_blocks(a), kTrainingThreads, 0, stream>>>(
        a, static_cast<const T*>(x), static_cast<T*>(y));
  });
  detail::check_launch("log_softmax");
}

void launch_log_softmax_backward(const SoftmaxArgs& a, DType dtype, const void* dy, const void* y,
                                 void* dx, cudaStream_t stream) {
  if (a.outer * a.n * a.inner == 0) return;
  detail::dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    log_softmax_backward_kernel<T><<<slice_blocks(a), kTrainingThreads, 0, stream>>>(
        a, static_cast<const T*>(dy), static_cast<const T*>(y), static_cast<T*>(dx));
  });
  detail::check_launch("log_softmax backward");
}

}  // namespace lazygen::cuda
