// The transforms of Winograd F(4x4, 3x3) (Lavin & Gray, "Fast Algorithms for Convolutional Neural
// Networks", 2016), for winograd.cpp. See Note [Winograd convolution] in winograd.h.
//
// A tile is the 6x6 input window d that yields a 4x4 output block y:
//   y = A^T [(G g G^T) .* (B^T d B)] A     (g: a 3x3 kernel, .* elementwise)
// and the transposes give the weight gradient: dg = G^T [dZ] G with dZ = (A dy A^T) .* (B^T d B).
// The tile transforms run on one tile at a time and kLanes channels at once (winograd_vec.h), so
// each line of arithmetic is one vector operation whatever the plane size.
#pragma once

#include <algorithm>
#include <cstdint>

#include "ops/cpu/winograd_vec.h"

// Everything here is inlined (LAZYGEN_TRANSFORM_INLINE) into winograd.cpp's transform loops,
// which are compiled once per vector ISA (LAZYGEN_VECTOR_CLONES there): an out-of-line copy would
// be baseline SSE2 code.
namespace lazygen::cpu::winograd {

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

// The tiles [tx0, tx1) of tile row ty of one image; `lane` is the first one's index in its block.
struct RowPiece {
  int64_t image, ty, tx0, tx1, lane;
  int64_t count() const { return tx1 - tx0; }
};

// Runs fn(piece) over the tile-row pieces of tiles [t0, t1) (tiles numbered image-major, then
// row, then column); lanes count from t0.
template <class F>
LAZYGEN_TRANSFORM_INLINE void for_each_row_piece(const TileGrid& g, int64_t t0, int64_t t1,
                                                 const F& fn) {
  const int64_t tx_n = g.tiles_x();
  for (int64_t t = t0; t < t1;) {
    const int64_t image = t / g.per_image(), row = t % g.per_image() / tx_n, tx = t % tx_n;
    const int64_t end = std::min(tx_n, tx + (t1 - t));
    fn(RowPiece{image, row, tx, end, t - t0});
    t += end - tx;
  }
}

// ---- one-dimensional transforms. Operand k of input `in` is in[k * is], of output `out` is
// out[k * os]; V is a Vec or a scalar.

// B^T (6 -> 6), the input transform.
template <class V>
LAZYGEN_TRANSFORM_INLINE void input_1d(const V* in, int64_t is, V* out, int64_t os) {
  const V d0 = in[0], d1 = in[is], d2 = in[2 * is], d3 = in[3 * is], d4 = in[4 * is];
  const V d5 = in[5 * is];
  const V a = d4 - 4 * d2, b = d3 - 4 * d1, c = d4 - d2, e = 2 * (d3 - d1);
  out[0] = 4 * d0 - 5 * d2 + d4;
  out[os] = a + b;
  out[2 * os] = a - b;
  out[3 * os] = c + e;
  out[4 * os] = c - e;
  out[5 * os] = 4 * d1 - 5 * d3 + d5;
}

// A^T (6 -> 4), the output transform.
template <class V>
LAZYGEN_TRANSFORM_INLINE void output_1d(const V* in, int64_t is, V* out, int64_t os) {
  const V m0 = in[0], m1 = in[is], m2 = in[2 * is], m3 = in[3 * is], m4 = in[4 * is];
  const V m5 = in[5 * is];
  const V sp = m1 + m2, sm = m1 - m2, tp = m3 + m4, tm = m3 - m4;
  out[0] = m0 + sp + tp;
  out[os] = sm + 2 * tm;
  out[2 * os] = sp + 4 * tp;
  out[3 * os] = sm + 8 * tm + m5;
}

// A (4 -> 6), the transform of an output-gradient block.
template <class V>
LAZYGEN_TRANSFORM_INLINE void grad_1d(const V* in, int64_t is, V* out, int64_t os) {
  const V e0 = in[0], e1 = in[is], e2 = in[2 * is], e3 = in[3 * is];
  const V even = e0 + e2, odd = e1 + e3, even4 = e0 + 4 * e2, odd2 = 2 * e1 + 8 * e3;
  out[0] = e0;
  out[os] = even + odd;
  out[2 * os] = even - odd;
  out[3 * os] = even4 + odd2;
  out[4 * os] = even4 - odd2;
  out[5 * os] = e3;
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

// ---- two-dimensional transforms of one tile on kLanes channels at once. A tile's point (r, s)
// lies at d + r * ds + s * kLanes (a row of channel vectors, as pack_rows lays them out), point k
// of its transform at out + k * os (kLanes channels each: one row of a gemm operand).

// The 6x6 input tile -> B^T d B.
template <class T>
LAZYGEN_TRANSFORM_INLINE void input_tile(const T* d, int64_t ds, T* out, int64_t os) {
  Vec<T> a[kPoints], b[kPoints];
  for (int64_t r = 0; r < kTile; ++r)
    for (int64_t s = 0; s < kTile; ++s) load(a[r * kTile + s], d + r * ds + s * kLanes);
  for (int64_t s = 0; s < kTile; ++s) input_1d(a + s, kTile, b + s, kTile);
  for (int64_t i = 0; i < kTile; ++i) input_1d(b + i * kTile, 1, a + i * kTile, 1);
  for (int64_t k = 0; k < kPoints; ++k) store(out + k * os, a[k]);
}

// The transformed block (point k at m + k * ms) -> A^T m A + bias into the 4x4 block y.
template <class T>
LAZYGEN_TRANSFORM_INLINE void output_tile(const T* m, int64_t ms, const Vec<T>& bias, T* y,
                                          int64_t ys) {
  Vec<T> a[kPoints], b[kTile * kOut], c[kOut * kOut];
  for (int64_t k = 0; k < kPoints; ++k) load(a[k], m + k * ms);
  for (int64_t j = 0; j < kTile; ++j) output_1d(a + j, kTile, b + j, kTile);
  for (int64_t i = 0; i < kOut; ++i) output_1d(b + i * kTile, 1, c + i * kOut, 1);
  for (int64_t i = 0; i < kOut; ++i)
    for (int64_t j = 0; j < kOut; ++j) store(y + i * ys + j * kLanes, c[i * kOut + j] + bias);
}

// The 4x4 output-gradient block dy -> A dy A^T.
template <class T>
LAZYGEN_TRANSFORM_INLINE void grad_tile(const T* dy, int64_t ds, T* out, int64_t os) {
  Vec<T> a[kOut * kOut], b[kTile * kOut], c[kPoints];
  for (int64_t i = 0; i < kOut; ++i)
    for (int64_t j = 0; j < kOut; ++j) load(a[i * kOut + j], dy + i * ds + j * kLanes);
  for (int64_t l = 0; l < kOut; ++l) grad_1d(a + l, kOut, b + l, kOut);
  for (int64_t k = 0; k < kTile; ++k) grad_1d(b + k * kOut, 1, c + k * kTile, 1);
  for (int64_t k = 0; k < kPoints; ++k) store(out + k * os, c[k]);
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
