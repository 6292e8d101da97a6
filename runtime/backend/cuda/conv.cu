// The element kernels of the eager CUDA convolutions (training_args.h): im2col, a gather col2im
// and the bias fill. The gemms between them are cuBLAS calls on the host side (conv_ops.cpp).
// See Note [im2col convolution] in ops/cpu/conv.cpp for the column matrix.
#include "backend/cuda/training.cuh"

namespace lazygen::cuda {
namespace {

using detail::grid_first;
using detail::grid_stride;

// col[s, (ch * kh + ki) * kw + kj, oy * ow + ox] = x[s, ch, iy, ix] or 0 in the padding.
template <class T>
__global__ void im2col_kernel(ConvArgs a, const T* x, T* col) {
  const int64_t cols = a.oh * a.ow, taps = a.kh * a.kw;
  const int64_t total = a.samples * a.c * taps * cols;
  for (int64_t i = grid_first(); i < total; i += grid_stride()) {
    const int64_t p = i % cols, row = i / cols;  // row = (s * c + ch) * taps + tap
    const int64_t tap = row % taps, plane = row / taps;
    const int64_t iy = (p / a.ow) * a.sh - a.ph + (tap / a.kw) * a.dh;
    const int64_t ix = (p % a.ow) * a.sw - a.pw + (tap % a.kw) * a.dw;
    const bool inside = iy >= 0 && iy < a.h && ix >= 0 && ix < a.w;
    col[i] = inside ? x[(plane * a.h + iy) * a.w + ix] : T(0);
  }
}

// The output position along one dim whose tap t covers input position `in`, or -1.
__device__ int64_t covering_output(int64_t in, int64_t t, int64_t s, int64_t p, int64_t d,
                                   int64_t out) {
  const int64_t at = in + p - t * d;
  if (at < 0 || at % s != 0) return -1;
  return at / s < out ? at / s : -1;
}

// dx[s, ch, iy, ix] = the sum over taps (ki, kj), in that order, of the column entries that
// read it.
template <class T>
__global__ void col2im_kernel(ConvArgs a, const T* col, T* dx) {
  const int64_t cols = a.oh * a.ow, taps = a.kh * a.kw;
  const int64_t total = a.samples * a.c * a.h * a.w;
  for (int64_t i = grid_first(); i < total; i += grid_stride()) {
    const int64_t ix = i % a.w, iy = (i / a.w) % a.h, plane = i / (a.h * a.w);
    const T* rows = col + plane * taps * cols;
    T acc = 0;
    for (int64_t ki = 0; ki < a.kh; ++ki) {
      const int64_t oy = covering_output(iy, ki, a.sh, a.ph, a.dh, a.oh);
      if (oy < 0) continue;
      for (int64_t kj = 0; kj < a.kw; ++kj) {
        const int64_t ox = covering_output(ix, kj, a.sw, a.pw, a.dw, a.ow);
        if (ox >= 0) acc += rows[(ki * a.kw + kj) * cols + oy * a.ow + ox];
      }
    }
    dx[i] = acc;
  }
}

template <class T>
__global__ void fill_bias_kernel(int64_t total, int64_t channels, int64_t plane, const T* bias,
                                 T* y) {
  for (int64_t i = grid_first(); i < total; i += grid_stride()) y[i] = bias[(i / plane) % channels];
}

}  // namespace

void launch_im2col(const ConvArgs& a, DType dtype, const void* x, void* col, cudaStream_t stream) {
  const int64_t total = a.samples * a.c * a.kh * a.kw * a.oh * a.ow;
  if (total == 0) return;
  detail::dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    im2col_kernel<T><<<blocks_for(total), kTrainingThreads, 0, stream>>>(
        a, static_cast<const T*>(x), static_cast<T*>(col));
  });
  detail::check_launch("im2col");
}

void launch_col2im(const ConvArgs& a, DType dtype, const void* col, void* dx, cudaStream_t stream) {
  const int64_t total = a.samples * a.c * a.h * a.w;
  if (total == 0) return;
  detail::dispatch_floating(dtype, [&](auto tag) {
    using T = decltype(tag);
    col2im_kernel<T><<<blocks_for(total), kTrainingThreads, 0, stream>>>(
        a, static_cast<const T*>(col), static_cast<T*>(dx));
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
