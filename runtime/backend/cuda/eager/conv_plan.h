// How the eager CUDA convolutions compose im2col, cuBLAS gemms and col2im, written once against
// an abstract set of steps so the same orchestration runs on the GPU (conv_ops.cpp) and, in
// tests, on host memory with reference steps (no GPU needed). See Note [im2col convolution] in
// ops/cpu/conv.cpp; the matrices are those of the cpu kernel, batched over the samples of a
// chunk (strided-batched gemms, one call per group and chunk).
//
// Layouts (row-major): x [n, c, h, w] = [n, groups, rows, h*w]; col [chunk, groups, rows, cols]
// with rows = c/g * kh * kw and cols = oh * ow; y [n, o, cols] = [n, groups, o/g, cols];
// w [o, rows]. A 1x1 kernel with unit stride and no padding uses x (or dx) as its column matrix.
//
// `Steps` provides, over untyped memory of one element size:
//   im2col(ConvArgs, x, col); col2im(ConvArgs, col, dx);
//   fill_bias(samples, channels, plane, bias, y);
//   gemm(BatchedGemm, a, b, c, alpha, beta);
//   sum_samples(partial, samples, size, out): out[j] = sum over s of partial[s * size + j].
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "backend/cuda/eager/blas.h"
#include "backend/cuda/eager/training_args.h"
#include "ops/shape/training_shapes.h"

namespace lazygen::cuda {

// Column-matrix elements a chunk may hold (64 MiB of float32).
inline constexpr int64_t kConvColumnBudget = int64_t{1} << 24;

inline bool conv_is_pointwise(const Conv2dGeometry& g) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
}

// Samples per chunk: as many as fit `budget` column elements, at least 1, at most g.n.
inline int64_t conv_chunk_samples(const Conv2dGeometry& g, int64_t budget = kConvColumnBudget) {
  const int64_t per_sample = std::max<int64_t>(1, g.c * g.kh * g.kw * g.col_cols());
  return std::clamp<int64_t>(budget / per_sample, 1, std::max<int64_t>(g.n, 1));
}

inline ConvArgs conv_args(const Conv2dGeometry& g, int64_t samples) {
  return {samples, g.c, g.h, g.w, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw};
}

// y[s, group] = w[group] @ col[s, group] for the `samples` of a chunk.
inline BatchedGemm conv_forward_gemm(const Conv2dGeometry& g, int64_t samples) {
  const int64_t rows = g.col_rows(), cols = g.col_cols();
  return {false, false, g.out_per_group(),      cols,       rows,   rows, cols,
          cols,  0,     g.groups * rows * cols, g.o * cols, samples};
}

// dcol[s, group] = w[group]^T @ dy[s, group].
inline BatchedGemm conv_input_gemm(const Conv2dGeometry& g, int64_t samples) {
  const int64_t rows = g.col_rows(), cols = g.col_cols();
  return {true, false, rows, cols,       g.out_per_group(),      rows,
          cols, cols,  0,    g.o * cols, g.groups * rows * cols, samples};
}

// partial[s, group] = dy[s, group] @ col[s, group]^T, partial [n, o, rows].
inline BatchedGemm conv_weight_gemm(const Conv2dGeometry& g, int64_t samples) {
  const int64_t rows = g.col_rows(), cols = g.col_cols();
  return {false, true,       g.out_per_group(),      rows,       cols,   cols, cols,
          rows,  g.o * cols, g.groups * rows * cols, g.o * rows, samples};
}

// Element `elements` of an array of `es`-byte elements.
inline const char* element_at(const void* p, int64_t elements, size_t es) {
  return static_cast<const char*>(p) + elements * static_cast<int64_t>(es);
}
inline char* element_at(void* p, int64_t elements, size_t es) {
  return static_cast<char*>(p) + elements * static_cast<int64_t>(es);
}

// y = conv2d(x, w) + bias (bias may be null), `chunk` samples at a time (REQUIRES: chunk >= 1).
// `col` holds `chunk` column matrices (unused for a 1x1 kernel).
template <class Steps>
void conv_forward(Steps& s, const Conv2dGeometry& g, int64_t chunk, size_t es, const void* x,
                  const void* w, const void* bias, void* y, void* col) {
  const int64_t rows = g.col_rows(), cols = g.col_cols();
  const int64_t in_size = g.c * g.h * g.w, out_size = g.o * cols, opg = g.out_per_group();
  for (int64_t s0 = 0; s0 < g.n; s0 += chunk) {
    const int64_t n = std::min(chunk, g.n - s0);
    const void* xs = element_at(x, s0 * in_size, es);
    void* ys = element_at(y, s0 * out_size, es);
    if (bias != nullptr) s.fill_bias(n, g.o, cols, bias, ys);
    const void* c = xs;
    if (!conv_is_pointwise(g)) {
      s.im2col(conv_args(g, n), xs, col);
      c = col;
    }
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      s.gemm(conv_forward_gemm(g, n), element_at(w, gi * opg * rows, es),
             element_at(c, gi * rows * cols, es), element_at(ys, gi * opg * cols, es), 1.0,
             bias != nullptr ? 1.0 : 0.0);
    }
  }
}

// dx = the input gradient of conv2d for dy and w. `chunk` and `col` as for conv_forward.
template <class Steps>
void conv_backward_input(Steps& s, const Conv2dGeometry& g, int64_t chunk, size_t es,
                         const void* dy, const void* w, void* dx, void* col) {
  const int64_t rows = g.col_rows(), cols = g.col_cols();
  const int64_t in_size = g.c * g.h * g.w, opg = g.out_per_group();
  for (int64_t s0 = 0; s0 < g.n; s0 += chunk) {
    const int64_t n = std::min(chunk, g.n - s0);
    void* dxs = element_at(dx, s0 * in_size, es);
    void* dcol = conv_is_pointwise(g) ? dxs : col;  // a 1x1 kernel's gemm writes dx itself
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      s.gemm(conv_input_gemm(g, n), element_at(w, gi * opg * rows, es),
             element_at(dy, (s0 * g.o + gi * opg) * cols, es),
             element_at(dcol, gi * rows * cols, es), 1.0, 0.0);
    }
    if (!conv_is_pointwise(g)) s.col2im(conv_args(g, n), dcol, dxs);
  }
}

// dw = the weight gradient of conv2d for dy and x: per-sample products into `partial`
// ([n, o * rows]), then summed over samples in a fixed order. `chunk` and `col` as for
// conv_forward.
template <class Steps>
void conv_backward_weight(Steps& s, const Conv2dGeometry& g, int64_t chunk, size_t es,
                          const void* dy, const void* x, void* dw, void* partial, void* col) {
  const int64_t rows = g.col_rows(), cols = g.col_cols();
  const int64_t in_size = g.c * g.h * g.w, opg = g.out_per_group();
  for (int64_t s0 = 0; s0 < g.n; s0 += chunk) {
    const int64_t n = std::min(chunk, g.n - s0);
    const void* xs = element_at(x, s0 * in_size, es);
    const void* c = xs;
    if (!conv_is_pointwise(g)) {
      s.im2col(conv_args(g, n), xs, col);
      c = col;
    }
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      s.gemm(conv_weight_gemm(g, n), element_at(dy, (s0 * g.o + gi * opg) * cols, es),
             element_at(c, gi * rows * cols, es),
             element_at(partial, (s0 * g.o + gi * opg) * rows, es), 1.0, 0.0);
    }
  }
  s.sum_samples(partial, g.n, g.o * rows, dw);
}

}  // namespace lazygen::cuda
