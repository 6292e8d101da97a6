// Winograd convolution for conv.cpp: 3x3 kernels, unit stride and dilation, one group, any
// padding and plane size, float32 and float64; forward, input gradient and weight gradient.
//
// Note [Winograd convolution]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// F(4x4, 3x3) (winograd_transform.h) turns each 6x6 input tile into 36 transform points; per
// point the channel mixing is one gemm, and a 4x4 output block costs 36 multiply-adds per
// channel pair instead of 144: 4x fewer flops than im2col + gemm. F(2x2, 3x3) saves only 2.25x,
// its 4x4 tiles overlap by half so it transforms and stores 1.8x more data per output, and its
// only advantage, smaller rounding error, does not matter for float32 training (errors of
// F(4x4) stay within ~1e-5 relative to the sum of |x * w|; winograd_test.cpp states the bound).
//   forward:         y = A^T [U .* V] A, U = G w G^T per (out, in) channel pair, V = B^T x B per
//                    tile and input channel; per point k: M_k [out, tiles] = U_k [out, in] @ V_k.
//   input gradient:  the same code run on dy, as the full correlation of dy with the flipped
//                    kernel (in and out channels swapped, padding 2 - p, negative = cropping).
//   weight gradient: dU_k [out, in] = sum over tiles of (A dy A^T)_k @ V_k^T, dw = G^T dU G.
// Partial edge blocks read zeros past the input and drop (or, for dy, zero) the outputs past the
// edge, so every plane size is exact.
// Tiles of all samples are numbered together and cut into blocks of a few dozen tiles whose
// transformed inputs and outputs (36 points x channels x tiles) stay in the L2 cache. Our thread
// pool splits the blocks; a thread transforms its block's inputs, runs the 36 gemms single-
// threaded (OpenBLAS keeps gemms under kBlasSingleThreadMnk on the caller) and transforms the
// outputs. That beats batching all tiles into 36 big gemms threaded by OpenBLAS (the
// WinogradTuning::pool = false variant, kept for conv_bench): those gemms stream tens of MiB
// through memory and leave the transforms serial. Channel counts whose per-block gemm would be
// larger than OpenBLAS's single-thread limit run their blocks one after another instead, with
// OpenBLAS's threads inside each gemm.
// conv.cpp uses Winograd where winograd_applies() and it is enabled (lazygen/conv.h); counters
// `conv.winograd` and `conv.im2col` count the calls each algorithm served.
#pragma once

#include <cstdint>

#include "backend/cpu/thread_pool.h"
#include "ops/shape/training_shapes.h"

namespace lazygen::cpu {

// True for a 3x3 kernel with unit stride and dilation and one group, with enough input and
// output channels for Winograd to beat im2col (a 1-channel conv is all transforms and no gemm).
bool winograd_applies(const Conv2dGeometry& g);

// REQUIRES: winograd_applies(g) but for the channel counts; contiguous NCHW operands of g's
// sizes; y, dx and dw are fully overwritten. bias may be null.
template <class T>
void winograd_forward(const T* x, const T* w, const T* bias, T* y, const Conv2dGeometry& g);
template <class T>
void winograd_backward_input(const T* dy, const T* w, T* dx, const Conv2dGeometry& g);
template <class T>
void winograd_backward_weight(const T* dy, const T* x, T* dw, const Conv2dGeometry& g);

// Benchmark knobs, process-wide and not synchronised: change them only while no convolution
// runs. block_bytes bounds a block's transformed inputs + outputs; pool = false batches all tiles
// into one block whose 36 gemms OpenBLAS threads itself.
struct WinogradTuning {
  int64_t block_bytes = 256 << 10;
  bool pool = true;
};
WinogradTuning& winograd_tuning();

// parallel_for over `count` items (samples, tile blocks): fn(b, e) gets item ranges. Our pool
// aligns chunk edges to 64 range elements, so the items are spaced 64 apart to split evenly.
template <class F>
void parallel_over_items(int64_t count, const F& fn) {
  constexpr int64_t kSpacing = 64;
  parallel_for(0, count * kSpacing, kSpacing,
               [&](int64_t b, int64_t e) { fn(b / kSpacing, e / kSpacing); });
}

}  // namespace lazygen::cpu
