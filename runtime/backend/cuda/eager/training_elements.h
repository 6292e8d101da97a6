// The per-element math of the eager CUDA training kernels (conv.cu, pool.cu, loss.cu): what one
// thread computes for one output element, as __host__ __device__ functions. The kernels are
// grid-stride loops over these; host tests run the very same functions over every element and
// compare with the cpu kernels, which checks the index math without a GPU.
#pragma once

#include <cstdint>
#include <limits>

#include "backend/cuda/eager/training_args.h"

#if defined(__CUDACC__)
#define LAZYGEN_TRAINING_HD __host__ __device__
#else
#define LAZYGEN_TRAINING_HD
#endif

namespace lazygen::cuda {

// ---- convolution (See Note [im2col convolution] in ops/cpu/conv.cpp)

// col[i], i = ((s * c + ch) * kh * kw + tap) * oh * ow + p: the input under tap `tap` of window
// p, or 0 in the padding.
template <class T>
LAZYGEN_TRAINING_HD T im2col_value(const ConvArgs& a, const T* x, int64_t i) {
  const int64_t cols = a.oh * a.ow, taps = a.kh * a.kw;
  const int64_t p = i % cols, row = i / cols;
  const int64_t tap = row % taps, plane = row / taps;
  const int64_t iy = (p / a.ow) * a.sh - a.ph + (tap / a.kw) * a.dh;
  const int64_t ix = (p % a.ow) * a.sw - a.pw + (tap % a.kw) * a.dw;
  const bool inside = iy >= 0 && iy < a.h && ix >= 0 && ix < a.w;
  return inside ? x[(plane * a.h + iy) * a.w + ix] : T(0);
}

// The window along one dim whose tap t covers input position `in`, or -1.
LAZYGEN_TRAINING_HD inline int64_t covering_window(int64_t in, int64_t t, int64_t s, int64_t p,
                                                   int64_t d, int64_t out) {
  const int64_t at = in + p - t * d;
  if (at < 0 || at % s != 0 || at / s >= out) return -1;
  return at / s;
}

// dx[i], i = (s * c + ch) * h * w + iy * w + ix: the column entries that read it, summed over
// taps (ki, kj) in that order (the order the cpu's col2im adds them in).
template <class T>
LAZYGEN_TRAINING_HD T col2im_value(const ConvArgs& a, const T* col, int64_t i) {
  const int64_t cols = a.oh * a.ow, taps = a.kh * a.kw;
  const int64_t ix = i % a.w, iy = (i / a.w) % a.h, plane = i / (a.h * a.w);
  const T* rows = col + plane * taps * cols;
  T acc = 0;
  for (int64_t ki = 0; ki < a.kh; ++ki) {
    const int64_t oy = covering_window(iy, ki, a.sh, a.ph, a.dh, a.oh);
    if (oy < 0) continue;
    for (int64_t kj = 0; kj < a.kw; ++kj) {
      const int64_t ox = covering_window(ix, kj, a.sw, a.pw, a.dw, a.ow);
      if (ox >= 0) acc += rows[(ki * a.kw + kj) * cols + oy * a.ow + ox];
    }
  }
  return acc;
}

// ---- max pooling (the cpu's scan_row rules)

// The first input position of a window along one dim: on the dilation grid, inside the input.
LAZYGEN_TRAINING_HD inline int64_t window_first(int64_t o, int64_t s, int64_t p, int64_t d) {
  int64_t x = o * s - p;
  while (x < 0) x += d;
  return x;
}

// Output i's maximum and its plane index: taps in row-major order, a tap taking the window
// when it is larger or NaN; starts from -inf at the window's first inside position, so an all
// -inf window reports that position.
template <class T>
LAZYGEN_TRAINING_HD void max_pool_element(const PoolArgs& a, const T* x, int64_t i, T* value,
                                          int64_t* index) {
  const int64_t out_plane = a.oh * a.ow;
  const int64_t ox = i % a.ow, oy = (i / a.ow) % a.oh;
  const T* plane = x + (i / out_plane) * a.h * a.w;
  T best = -std::numeric_limits<T>::infinity();
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
  *value = best;
  *index = at;
}

// grad_input[i]: the grad_output of every window holding input i whose maximum is i, added in
// increasing output order (the cpu's scatter order): taps from the last, since a later tap
// belongs to an earlier window.
template <class T>
LAZYGEN_TRAINING_HD T max_pool_backward_value(const PoolArgs& a, const T* grad_output,
                                              const int64_t* indices, int64_t i) {
  const int64_t in_plane = a.h * a.w, out_plane = a.oh * a.ow;
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
  return acc;
}

// ---- dropout

// The 4 words of Philox4x32-10 block `counter` of `seed` (core/tensor/philox.h), in order.
LAZYGEN_TRAINING_HD inline void philox_words(uint64_t seed, uint64_t counter, uint32_t* words) {
  constexpr uint32_t kMul0 = 0xD2511F53, kMul1 = 0xCD9E8D57;
  constexpr uint32_t kWeyl0 = 0x9E3779B9, kWeyl1 = 0xBB67AE85;
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32);
  uint32_t c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{kMul0} * c0, p1 = uint64_t{kMul1} * c2;
    c0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    c1 = static_cast<uint32_t>(p1);
    c2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c3 = static_cast<uint32_t>(p0);
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  words[0] = c0, words[1] = c1, words[2] = c2, words[3] = c3;
}

// A mask element from its Philox word: `keep` when the word's float32 uniform (24 bits, as
// rand() draws) is >= threshold, else 0.
template <class T>
LAZYGEN_TRAINING_HD T dropout_value(uint32_t word, float threshold, T keep) {
  const float u = static_cast<float>(word >> 8) * 0x1p-24f;
  return u >= threshold ? keep : T(0);
}

}  // namespace lazygen::cuda
