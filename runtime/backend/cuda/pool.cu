// The eager CUDA max pooling kernels (training_args.h): one thread per output for the forward,
// one thread per input element for the backward (a gather, so no atomics and a fixed order).
#include <cmath>

#include "backend/cuda/training.cuh"

namespace lazygen::cuda {
namespace {

using detail::grid_first;
using detail::grid_stride;

// The first input position of a window along one dim: on the dilation grid, inside the input.
__device__ int64_t window_first(int64_t o, int64_t s, int64_t p, int64_t d) {
  int64_t x = o * s - p;
  while (x < 0) x += d;
  return x;
}

// Output i's maximum: taps in row-major order, a tap taking the window when it is larger or
// NaN (the cpu's scan_row; its 2x2 path agrees). Starts from -inf at the window's first inside
// position, so an all -inf window reports that position.
template <class T>
__global__ void max_pool_kernel(PoolArgs a, const T* x, T* values, int64_t* indices) {
  const int64_t out_plane = a.oh * a.ow;
  for (int64_t i = grid_first(); i < a.planes * out_plane; i += grid_stride()) {
    const int64_t ox = i % a.ow, oy = (i / a.ow) % a.oh;
    const T* plane = x + (i / out_plane) * a.h * a.w;
    T best = -INFINITY;
    int64_t at = window_first(oy, a.sh, a.ph, a.dh) * a.w + window_first(ox, a.sw, a.pw, a.dw);
    for (int64_t ky = 0; ky < a.kh; ++ky) {
      const int64_t y = oy * a.sh - a.ph + ky * a.dh;
      if (y < 0 || y >= a.h) continue;
      for (int64_t kx = 0; kx < a.kw; ++kx) {
        const int64_t xx = ox * a.sw - a.pw + kx * a.dw;
        if (xx < 0 || xx >= a.w) continue;
        const T v = plane[y * a.w + xx];
        if (v > best || v != v) {
          best = v;
          at = y * a.w + xx;
        }
      }
    }
    values[i] = best;
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

// The output along one dim whose tap t covers input position `in`, or -1.
__device__ int64_t covering_window(int64_t in, int64_t t, int64_t s, int64_t p, int64_t d,
                                   int64_t out) {
  const int64_t at = in + p - t * d;
  if (at < 0 || at % s != 0 || at / s >= out) return -1;
  return at / s;
}

// grad_input[i]: the grad_output of every window holding i whose maximum is i, added in
// increasing output order (taps from the last: a later tap belongs to an earlier window).
template <class T>
__global__ void max_pool_backward_kernel(PoolArgs a, const T* grad_output, const int64_t* indices,
                                         T* grad_input) {
  const int64_t in_plane = a.h * a.w, out_plane = a.oh * a.ow;
  for (int64_t i = grid_first(); i < a.planes * in_plane; i += grid_stride()) {
    const int64_t pos = i % in_plane, ix = pos % a.w, iy = pos / a.w;
    const int64_t base = (i / in_plane) * out_plane;
    T acc = 0;
    for (int64_t ky = a.kh - 1; ky >= 0; --ky) {
      const int64_t oy = covering_window(iy, ky, a.sh, a.ph, a.dh, a.oh);
      if (oy < 0) continue;
      for (int64_t kx = a.kw - 1; kx >= 0; --kx) {
        const int64_t ox = covering_window(ix, kx, a.sw, a.pw, a.dw, a.ow);
        const int64_t o = base + oy * a.ow + ox;
        if (ox >= 0 && indices[o] == pos) acc += grad_output[o];
      }
    }
    grad_input[i] = acc;
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
