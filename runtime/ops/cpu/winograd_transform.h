// The transforms of Winograd F(4x4, 3x3) (Lavin & Gray, "Fast Algorithms for Convolutional Neural
// Networks", 2016), for winograd.cpp. See Note [Winograd convolution] in winograd.h.
//
// A tile is the 6x6 input window d that yields a 4x4 output block y:
//   y = A^T [(G g G^T) .* (B^T d B)] A     (g: a 3x3 kernel, .* elementwise)
// and the transposes give the weight gradient: dg = G^T [dZ] G with dZ = (A dy A^T) .* (B^T d B).
// Every transform here runs over a block of tiles at once with the tile index innermost and
// contiguous (`ld` apart per transform point), so each line of arithmetic is one vector loop.
#pragma once

#include <algorithm>
#include <cstdint>

namespace lazygen::cpu::winograd {

// Everything here is inlined into winograd.cpp's transform loops, which are compiled once per
// vector ISA (LAZYGEN_VECTOR_CLONES there): an out-of-line copy would be baseline SSE2 code.
#define LAZYGEN_TRANSFORM_INLINE inline __attribute__((always_inline))

inline constexpr int64_t kOut = 4;                 // output block side (m)
inline constexpr int64_t kTile = kOut + 2;         // input tile side (alpha = m + r - 1)
inline constexpr int64_t kPoints = kTile * kTile;  // transform points per tile

// Tiles cover the output planes [oh, ow] of n images in 4x4 blocks (the last row and column of
// blocks may hang over the edge). Output (oy, ox) reads input (oy - ph + ky, ox - pw + kx); a
// negative ph/pw crops the input instead of padding it (the input gradient's correlation).
struct TileGrid {
  int64_t n = 0, h = 0, w = 0, oh = 0, ow = 0, ph = 0, pw = 0;
  int64_t tiles_y() const { return (oh + kOut - 1) / kOut; }
  int64_t tiles_x() const { return (ow + kOut - 1) / kOut; }
  int64_t per_image() const { return tiles_y() * tiles_x(); }
  int64_t total() const { return n * per_image(); }
};

// Runs fn(image, ty, tx0, tx1, lane) over the tile-row pieces of tiles [t0, t1) (tiles numbered
// image-major, then row, then column); `lane` is the piece's first tile's index minus t0.
template <class F>
LAZYGEN_TRANSFORM_INLINE void for_each_row_piece(const TileGrid& g, int64_t t0, int64_t t1,
                                                 const F& fn) {
  const int64_t tx_n = g.tiles_x();
  for (int64_t t = t0; t < t1;) {
    const int64_t image = t / g.per_image(), row = t % g.per_image() / tx_n, tx = t % tx_n;
    const int64_t end = std::min(tx_n, tx + (t1 - t));
    fn(image, row, tx, end, t - t0);
    t += end - tx;
  }
}

// ---- one-dimensional transforms over `n` tiles. Operand k of input `in` is in + k * is, of
// output `out` is out + k * os; in and out do not overlap.

// B^T (6 -> 6), the input transform.
template <class T>
LAZYGEN_TRANSFORM_INLINE void input_1d(const T* __restrict in, int64_t is, T* __restrict out,
                                       int64_t os, int64_t n) {
#pragma GCC ivdep
  for (int64_t t = 0; t < n; ++t) {
    const T d0 = in[t], d1 = in[is + t], d2 = in[2 * is + t], d3 = in[3 * is + t];
    const T d4 = in[4 * is + t], d5 = in[5 * is + t];
    const T a = d4 - T(4) * d2, b = d3 - T(4) * d1, c = d4 - d2, e = T(2) * (d3 - d1);
    out[t] = T(4) * d0 - T(5) * d2 + d4;
    out[os + t] = a + b;
    out[2 * os + t] = a - b;
    out[3 * os + t] = c + e;
    out[4 * os + t] = c - e;
    out[5 * os + t] = T(4) * d1 - T(5) * d3 + d5;
  }
}

// A^T (6 -> 4), the output transform.
template <class T>
LAZYGEN_TRANSFORM_INLINE void output_1d(const T* __restrict in, int64_t is, T* __restrict out,
                                        int64_t os, int64_t n) {
#pragma GCC ivdep
  for (int64_t t = 0; t < n; ++t) {
    const T m0 = in[t], m1 = in[is + t], m2 = in[2 * is + t], m3 = in[3 * is + t];
    const T m4 = in[4 * is + t], m5 = in[5 * is + t];
    const T sp = m1 + m2, sm = m1 - m2, tp = m3 + m4, tm = m3 - m4;
    out[t] = m0 + sp + tp;
    out[os + t] = sm + T(2) * tm;
    out[2 * os + t] = sp + T(4) * tp;
    out[3 * os + t] = sm + T(8) * tm + m5;
  }
}

// A (4 -> 6), the transform of an output-gradient block.
template <class T>
LAZYGEN_TRANSFORM_INLINE void grad_1d(const T* __restrict in, int64_t is, T* __restrict out,
                                      int64_t os, int64_t n) {
#pragma GCC ivdep
  for (int64_t t = 0; t < n; ++t) {
    const T e0 = in[t], e1 = in[is + t], e2 = in[2 * is + t], e3 = in[3 * is + t];
    const T even = e0 + e2, odd = e1 + e3, even4 = e0 + T(4) * e2, odd2 = T(2) * e1 + T(8) * e3;
    out[t] = e0;
    out[os + t] = even + odd;
    out[2 * os + t] = even - odd;
    out[3 * os + t] = even4 + odd2;
    out[4 * os + t] = even4 - odd2;
    out[5 * os + t] = e3;
  }
}

// G (3 -> 6) on one kernel row or column, and G^T (6 -> 3); scalar (kernels are few).
template <class T>
LAZYGEN_TRANSFORM_INLINE void kernel_1d(const T* in, int64_t is, T* out, int64_t os) {
  const T g0 = in[0], g1 = in[is], g2 = in[2 * is];
  out[0] = g0 / T(4);
  out[os] = -(g0 + g1 + g2) / T(6);
  out[2 * os] = -(g0 - g1 + g2) / T(6);
  out[3 * os] = g0 / T(24) + g1 / T(12) + g2 / T(6);
  out[4 * os] = g0 / T(24) - g1 / T(12) + g2 / T(6);
  out[5 * os] = g2;
}
template <class T>
LAZYGEN_TRANSFORM_INLINE void kernel_grad_1d(const T* in, int64_t is, T* out, int64_t os) {
  const T u0 = in[0], u1 = in[is], u2 = in[2 * is], u3 = in[3 * is], u4 = in[4 * is];
  const T u5 = in[5 * is];
  out[0] = u0 / T(4) - (u1 + u2) / T(6) + (u3 + u4) / T(24);
  out[os] = (u2 - u1) / T(6) + (u3 - u4) / T(12);
  out[2 * os] = (u3 + u4 - u1 - u2) / T(6) + u5;
}

// ---- two-dimensional transforms of a block of n tiles (a 6x6 or 4x4 stack of rows `ld` apart)

// d [36][ld] (row-major within the tile) -> B^T d B, point k at out + k * os. tmp: [36][ld].
template <class T>
LAZYGEN_TRANSFORM_INLINE void input_2d(const T* d, T* tmp, T* out, int64_t os, int64_t ld,
                                       int64_t n) {
  for (int64_t s = 0; s < kTile; ++s) input_1d(d + s * ld, kTile * ld, tmp + s * ld, kTile * ld, n);
  for (int64_t i = 0; i < kTile; ++i) {
    input_1d(tmp + i * kTile * ld, ld, out + i * kTile * os, os, n);
  }
}

// m: point k at m + k * ms -> A^T m A into y [16][ld]. tmp: [24][ld].
template <class T>
LAZYGEN_TRANSFORM_INLINE void output_2d(const T* m, int64_t ms, T* tmp, T* y, int64_t ld,
                                        int64_t n) {
  for (int64_t j = 0; j < kTile; ++j)
    output_1d(m + j * ms, kTile * ms, tmp + j * ld, kTile * ld, n);
  for (int64_t i = 0; i < kOut; ++i) output_1d(tmp + i * kTile * ld, ld, y + i * kOut * ld, ld, n);
}

// dy [16][ld] -> A dy A^T, point k at out + k * os. tmp: [24][ld].
template <class T>
LAZYGEN_TRANSFORM_INLINE void grad_2d(const T* dy, T* tmp, T* out, int64_t os, int64_t ld,
                                      int64_t n) {
  for (int64_t l = 0; l < kOut; ++l) grad_1d(dy + l * ld, kOut * ld, tmp + l * ld, kOut * ld, n);
  for (int64_t k = 0; k < kTile; ++k) grad_1d(tmp + k * kOut * ld, ld, out + k * kTile * os, os, n);
}

// 3x3 kernel g (row stride gs, column stride 1, or both negated for a flipped kernel through
// the strides) -> G g G^T, point k at out + k * os.
template <class T>
LAZYGEN_TRANSFORM_INLINE void kernel_2d(const T* g, int64_t row_stride, int64_t col_stride, T* out,
                                        int64_t os) {
  T tmp[kTile * 3];
  for (int64_t b = 0; b < 3; ++b) kernel_1d(g + b * col_stride, row_stride, tmp + b, 3);
  for (int64_t i = 0; i < kTile; ++i) kernel_1d(tmp + i * 3, 1, out + i * kTile * os, os);
}

// u: point k at u + k * us -> G^T u G, the 3x3 kernel gradient into dg [3][3].
template <class T>
LAZYGEN_TRANSFORM_INLINE void kernel_grad_2d(const T* u, int64_t us, T* dg) {
  T tmp[kTile * 3];
  for (int64_t j = 0; j < kTile; ++j) kernel_grad_1d(u + j * us, kTile * us, tmp + j, kTile);
  for (int64_t a = 0; a < 3; ++a) kernel_grad_1d(tmp + a * kTile, 1, dg + a * 3, 1);
}

}  // namespace lazygen::cpu::winograd
