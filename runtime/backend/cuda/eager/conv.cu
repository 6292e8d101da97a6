// The element kernels of the eager CUDA convolutions (training_args.h): im2col, a gather col2im
// and the bias fill, grid-stride loops over training_elements.h. The gemms between them are
// cuBLAS calls on the host side (conv_ops.cpp, conv_plan.h).
#include "backend/cuda/eager/training.cuh"
#include "backend/cuda/eager/training_elements.h"

namespace lazygen::cuda {
namespace {

using detail::grid_first;
using detail::grid_stride;

template <class T>
__global__ void im2col_kernel(ConvArgs a, int64_t total, const T* x, T* col) {
  for (int64_t i = grid_first(); i < total; i += grid_stride()) col[i] = im2col_value(a, x, i);
}

template <class T>
__global__ void col2im_kernel(ConvArgs a, int64_t total, const T* col, T* dx) {
  for (int64_t i = grid_first(); i < total; i += grid_stride()) dx[i] = col2im_value(a, col, i);
}

template <class T>
__global__ void fill_bias_kernel(int64_t total, int64_t channels, int64_t plane, const T* bias,
                                 T* y) {
  for (int64_t i = grid_first(); i < total; i += grid_stride()) {
    y[i] = bias[(i / plane) % channels];
  }
}

}  // namespace

void launch_im2col(const ConvArgs& a, DType dtype, const void* x, void* col, cudaStream_t stream) {
  const int64_t total = a.samples * a.c * a.kh * a.kw * a.oh * a.ow;
  if (total == 0) return;
  detail::dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    im2col_kernel<T><<<blocks_for(total), kTrainingThreads, 0, stream>>>(
        a, total, static_cast<const T*>(x), static_cast<T*>(col));
  });
  detail::check_launch("im2col");
}

void launch_col2im(const ConvArgs& a, DType dtype, const void* col, void* dx, cudaStream_t stream) {
  const int64_t total = a.samples * a.c * a.h * a.w;
  if (total == 0) return;
  detail::dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    col2im_kernel<T><<<blocks_for(total), kTrainingThreads, 0, stream>>>(
        a, total, static_cast<const T*>(col), static_cast<T*>(dx));
  });
  detail::check_launch("col2im");
}

void launch_fill_bias(int64_t samples, int64_t channels, int64_t plane, DType dtype,
                      const void* bias, void* y, cudaStream_t stream) {
  const int64_t total = samples * channels * plane;
  if (total == 0) return;
  detail::dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    fill_bias_kernel<T><<<blocks_for(total), kTrainingThreads, 0, stream>>>(
        total, channels, plane, static_cast<const T*>(bias), static_cast<T*>(y));
  });
  detail::check_launch("conv2d bias");
}

}  // namespace lazygen::cuda
