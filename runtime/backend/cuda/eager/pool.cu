// The eager CUDA max pooling kernels (training_args.h): one thread per output for the forward,
// one thread per input element for the backward (a gather, so no atomics and a fixed order);
// the per-element math is training_elements.h's.
#include "backend/cuda/eager/training.cuh"
#include "backend/cuda/eager/training_elements.h"

namespace lazygen::cuda {
namespace {

using detail::grid_first;
using detail::grid_stride;

template <class T>
__global__ void max_pool_kernel(PoolArgs a, const T* x, T* values, int64_t* indices) {
  for (int64_t i = grid_first(); i < a.planes * a.oh * a.ow; i += grid_stride()) {
    int64_t at = 0;
    max_pool_element(a, x, i, &values[i], &at);
    if (indices != nullptr) indices[i] = at;
  }
}

__global__ void check_indices_kernel(PoolArgs a, const int64_t* indices,
                                     unsigned long long* first_bad) {
  const int64_t in_plane = a.h * a.w;
  for (int64_t i = grid_first(); i < a.planes * a.oh * a.ow; i += grid_stride()) {
    if (indices[i] < 0 || indices[i] >= in_plane) detail::report_bad(first_bad, i);
  }
}

template <class T>
__global__ void max_pool_backward_kernel(PoolArgs a, const T* grad_output, const int64_t* indices,
                                         T* grad_input) {
  for (int64_t i = grid_first(); i < a.planes * a.h * a.w; i += grid_stride()) {
    grad_input[i] = max_pool_backward_value(a, grad_output, indices, i);
  }
}

}  // namespace

void launch_max_pool(const PoolArgs& a, DType dtype, const void* x, void* values, int64_t* indices,
                     cudaStream_t stream) {
  const int64_t total = a.planes * a.oh * a.ow;
  if (total == 0) return;
  detail::dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    max_pool_kernel<T><<<blocks_for(total), kTrainingThreads, 0, stream>>>(
        a, static_cast<const T*>(x), static_cast<T*>(values), indices);
  });
  detail::check_launch("max_pool2d");
}

void launch_check_pool_indices(const PoolArgs& a, const int64_t* indices,
                               unsigned long long* first_bad, cudaStream_t stream) {
  const int64_t total = a.planes * a.oh * a.ow;
  if (total == 0) return;
  check_indices_kernel<<<blocks_for(total), kTrainingThreads, 0, stream>>>(a, indices, first_bad);
  detail::check_launch("max_pool2d index check");
}

void launch_max_pool_backward(const PoolArgs& a, DType dtype, const void* grad_output,
                              const int64_t* indices, void* grad_input, cudaStream_t stream) {
  const int64_t total = a.planes * a.h * a.w;
  if (total == 0) return;
  detail::dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    max_pool_backward_kernel<T><<<blocks_for(total), kTrainingThreads, 0, stream>>>(
        a, static_cast<const T*>(grad_output), indices, static_cast<T*>(grad_input));
  });
  detail::check_launch("max_pool2d backward");
}

}  // namespace lazygen::cuda
