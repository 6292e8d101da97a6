// Channel vectors for winograd.cpp: the transforms (winograd_transform.h) run on Vec, kLanes
// consecutive channels of one point, and pack_rows / unpack_rows move rows of NCHW planes into
// and out of that channel-innermost layout with 8x8 register transposes. See Note [Winograd
// convolution] in winograd.h.
//
// Vec is a GCC/Clang vector extension type. Pass it by reference only: by value its ABI depends
// on the ISA, which target_clones varies (GCC warns with -Wpsabi, Clang refuses in the baseline
// clone). Everything here is always_inline, compiled inside winograd.cpp's per-ISA clones.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#define LAZYGEN_TRANSFORM_INLINE inline __attribute__((always_inline))
// The same for a lambda (after its parameter list), e.g. the body of for_each_row_piece.
#define LAZYGEN_TRANSFORM_INLINE_LAMBDA __attribute__((always_inline))

namespace lazygen::cpu::winograd {

inline constexpr int64_t kLanes = 8;  // channels per vector: one 8x8 transpose moves a chunk

template <class T>
struct VecOf {
  typedef T type __attribute__((vector_size(kLanes * sizeof(T))));
};
template <class T>
using Vec = typename VecOf<T>::type;
template <class T>
using LaneInt = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;  // a lane's bits
template <class T>
using LaneMask = typename VecOf<LaneInt<T>>::type;

// n rounded up to whole vectors.
inline int64_t round_up_lanes(int64_t n) {
  return (n + kLanes - 1) / kLanes * kLanes;
}

// Unaligned loads and stores (memcpy: no alignment or aliasing assumptions; one vector move).
template <class T>
LAZYGEN_TRANSFORM_INLINE void load(Vec<T>& v, const T* p) {
  __builtin_memcpy(&v, p, sizeof v);
}
template <class T>
LAZYGEN_TRANSFORM_INLINE void store(T* p, const Vec<T>& v) {
  __builtin_memcpy(p, &v, sizeof v);
}

// One step of the 8x8 transpose: swaps the B x B blocks off the diagonal of each 2B x 2B block.
template <int B, class T>
LAZYGEN_TRANSFORM_INLINE void swap_blocks(Vec<T>* r) {
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {
    const int k = q % B + q / B * 2 * B;
    const Vec<T> a = r[k], b = r[k + B];
    if constexpr (B == 1) {
      r[k] = __builtin_shufflevector(a, b, 0, 8, 2, 10, 4, 12, 6, 14);
      r[k + B] = __builtin_shufflevector(a, b, 1, 9, 3, 11, 5, 13, 7, 15);
    } else if constexpr (B == 2) {
      r[k] = __builtin_shufflevector(a, b, 0, 1, 8, 9, 4, 5, 12, 13);
      r[k + B] = __builtin_shufflevector(a, b, 2, 3, 10, 11, 6, 7, 14, 15);
    } else {
      r[k] = __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11);
      r[k + B] = __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15);
    }
  }
}

// r[i][j] <-> r[j][i].
template <class T>
LAZYGEN_TRANSFORM_INLINE void transpose(Vec<T>* r) {
  static_assert(kLanes == 8);
  swap_blocks<1, T>(r);
  swap_blocks<2, T>(r);
  swap_blocks<4, T>(r);
}

// t[c] = elements [x, x + kLanes) of row y of plane c of [h, w] planes (plane_size apart), zero
// outside the planes and for c >= channels.
template <class T>
LAZYGEN_TRANSFORM_INLINE void load_chunk(Vec<T>* t, const T* planes, int64_t plane_size,
                                         int64_t channels, int64_t h, int64_t w, int64_t y,
                                         int64_t x) {
  const int64_t lo = std::max<int64_t>(0, -x), hi = std::min<int64_t>(kLanes, w - x);
  const int64_t at = y * w + x;
  if (lo < hi && at >= 0 && at + kLanes <= h * w) {  // whole vectors, masked to the row
    const LaneMask<T> lane = {0, 1, 2, 3, 4, 5, 6, 7};
    const LaneMask<T> keep = (lane >= LaneInt<T>(lo)) & (lane < LaneInt<T>(hi));
#pragma GCC unroll 8
    for (int64_t c = 0; c < kLanes; ++c) {
      if (c < channels) {
        load(t[c], planes + c * plane_size + at);
        t[c] = (Vec<T>)((LaneMask<T>)t[c] & keep);
      } else {
        t[c] = Vec<T>{};
      }
    }
    return;
  }
  for (int64_t c = 0; c < kLanes; ++c) {  // the plane's first or last elements, or none
    T buf[kLanes] = {};
    for (int64_t k = lo; k < hi && c < channels; ++k) buf[k] = planes[c * plane_size + at + k];
    load(t[c], buf);
  }
}

// Rows [y0, y0 + rows) x columns [x0, x0 + width) of `channels` (<= kLanes) [h, w] planes,
// plane c at planes + c * plane_size, into buf [rows][round_up_lanes(width)][kLanes]: zeros
// outside the planes and for the missing channels.
template <class T>
LAZYGEN_TRANSFORM_INLINE void pack_rows(const T* planes, int64_t plane_size, int64_t channels,
                                        int64_t h, int64_t w, int64_t y0, int64_t rows, int64_t x0,
                                        int64_t width, T* buf) {
  const int64_t row_len = round_up_lanes(width) * kLanes;
  for (int64_t r = 0; r < rows; ++r) {
    T* out = buf + r * row_len;
    if (y0 + r < 0 || y0 + r >= h) {
      std::fill_n(out, row_len, T(0));
      continue;
    }
    for (int64_t x = 0; x < width; x += kLanes) {
      Vec<T> t[kLanes];
      load_chunk(t, planes, plane_size, channels, h, w, y0 + r, x0 + x);
      transpose<T>(t);
#pragma GCC unroll 8
      for (int64_t i = 0; i < kLanes; ++i) store(out + (x + i) * kLanes, t[i]);
    }
  }
}

// The inverse: buf [rows][round_up_lanes(width)][kLanes] into rows [y0, y0 + rows) x columns
// [x0, x0 + width) of the planes, dropping what lies past row h or column w. x0, y0 >= 0.
template <class T>
LAZYGEN_TRANSFORM_INLINE void unpack_rows(const T* buf, int64_t rows, int64_t width, T* planes,
                                          int64_t plane_size, int64_t channels, int64_t h,
                                          int64_t w, int64_t y0, int64_t x0) {
  const int64_t row_len = round_up_lanes(width) * kLanes, end = std::min(width, w - x0);
  for (int64_t r = 0; r < rows && y0 + r < h; ++r) {
    for (int64_t x = 0; x < end; x += kLanes) {
      Vec<T> t[kLanes];
#pragma GCC unroll 8
      for (int64_t i = 0; i < kLanes; ++i) load(t[i], buf + r * row_len + (x + i) * kLanes);
      transpose<T>(t);
      const int64_t valid = std::min(kLanes, end - x);
      T* out = planes + (y0 + r) * w + x0 + x;
#pragma GCC unroll 8
      for (int64_t c = 0; c < kLanes; ++c) {
        if (c >= channels) break;
        if (valid == kLanes) {
          store(out + c * plane_size, t[c]);
        } else {
          T part[kLanes];
          store(part, t[c]);
          std::copy_n(part, valid, out + c * plane_size);
        }
      }
    }
  }
}

}  // namespace lazygen::cpu::winograd
