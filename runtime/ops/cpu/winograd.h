// Winograd convolution for conv.cpp: 3x3 kernels, unit stride and dilation, one group, any
// padding and plane size, float32 and float64; forward, input gradient and weight gradient.
//
// Note [Winograd convolution]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// F(4x4, 3x3) (winograd_transform.h) turns each 6x6 input tile into 36 transform points; per
// point the channel mixing is one gemm, and a 4x4 output block costs 36 multiply-adds per
// channel pair instead of 144: 4x fewer gemm flops than im2col. F(2x2, 3x3) saves only 2.25x,
// and its 4x4 tiles overlap by half, so it gathers and transforms 1.8x more data per output;
// transforms take about half of F(4x4)'s time on the tutorial CNN's conv2, so F(2x2) would lose
// on both counts. Its one advantage is a smaller rounding error. F(4x4)'s float32 error stays
// within ~7 epsilons of the tile's magnitude (winograd_test.cpp), but the output is a small
// difference of those large transformed terms: against a float64 reference its error is 6-21x
// PyTorch's direct convolution's, and computing the transforms (even the gemms) in float64 after
// rounding the transformed operands to float32 would not bring it there. Other interpolation
// points (+-1/2, or 2 and -1/2 instead of +-2) gain at most 1.4x. So Winograd is opt-in
// (lazygen/conv.h); im2col, as accurate as PyTorch's, is the default.
//   forward:         y = A^T [U .* V] A, U = G w G^T per (out, in) channel pair, V = B^T x B per
//                    tile and input channel; per point k: M_k [tiles, out] = V_k @ U_k [in, out].
//   input gradient:  the same code run on dy, as the full correlation of dy with the flipped
//                    kernel (in and out channels swapped, padding 2 - p, negative = cropping). It
//                    tiles dx (26x26 on conv2: 7x7 tiles, of which the last row and column are
//                    half empty) rather than y (6x6 tiles); the transposed form, which would keep
//                    y's tiles, scatters overlapping tiles back and is not done.
//   weight gradient: dU_k [out, in] = sum over tiles of (A dy A^T)_k^T @ V_k, dw = G^T dU G.
// Partial edge blocks read zeros past the input and drop (or, for dy, zero) the outputs past the
// edge, so every plane size is exact.
// Layout: the transforms vectorize across channels. A block's transformed operands are
// [36][tiles][channels], channels padded with zeros to whole vectors of 8 (winograd_vec.h): the
// gemms take them as they are, and one tile's point for 8 channels is one vector, so the 6x6
// transforms run on full vectors whatever the plane size. Per tile-row piece and 8 channels,
// pack_rows copies the piece's input rows into channel-vector rows ([row][x][8], zeros outside the
// plane) with 8x8 register transposes, and unpack_rows writes the output transform's rows (bias
// added) back into the NCHW planes the same way. (The layout before vectorized across the 6-7 tiles
// of a 26-wide plane's tile row and gathered and scattered them with scalar loads and stores; its
// transforms took ~60% of Winograd's time on conv2.) Consecutive transform points lie a cache line
// further apart than their [tiles][channels] rows (point_stride in winograd.cpp): a tile's 36
// points were otherwise a multiple of 4 KiB apart, all in one L1 set, and the transforms missed L1
// on every point (1.4-1.6x slower without the skew). conv2, float32, batch 64, old -> new, on the 2
// shared cores with load 5-7 from other builds, so fastest of 6 alternating runs (conv_bench conv2,
// 2 threads): forward 7.2 -> 5.8 ms, input gradient 11.2 -> 8.5, weight gradient 9.9 -> 6.4; as
// im2col time / Winograd time in the same runs (medians): 2.24 -> 2.91, 1.68 -> 2.18, 2.28 -> 2.90.
// Threading: tiles of all samples are numbered together and cut into blocks whose transformed
// inputs and outputs (36 points x (in + out) channels x tiles) fit in ~1 MiB, a core's L2 here
// (64 tiles on conv2; 64 KiB and 256 KiB blocks measured slower: more, smaller gemm calls). Our
// thread pool splits the blocks; a thread gathers and transforms its block's inputs, runs the
// 36 gemms (gemms under kBlasSingleThreadMnk run whole on the calling thread) and transforms the
// outputs, so transforms and gemms are all parallel. The alternative, all tiles in one block
// whose 36 big gemms are split over the pool (WinogradTuning::pool = false, kept for
// conv_bench), measured as fast on the forward but 2-3x slower on the backward ops: the
// transforms run serially and tens of MiB of transformed data stream through memory. Channel
// counts whose per-block gemm exceeds that limit run their blocks one after another instead,
// each gemm split over the pool (See Note [One thread pool] in blas_gemm.h).
// The transform loops are compiled for AVX-512, AVX2 and the baseline (target_clones).
// conv.cpp uses Winograd where winograd_applies() and it is enabled (lazygen/conv.h); counters
// `conv.winograd` and `conv.im2col` count the calls each algorithm served. One input channel
// (the tutorial CNN's conv1) stays on im2col: there Winograd measured 3-5x slower, all transform
// and no gemm.
#pragma once

#include <cstdint>

#include "core/thread_pool.h"
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
  int64_t block_bytes = 1 << 20;
  bool pool = true;
};
WinogradTuning& winograd_tuning();

}  // namespace lazygen::cpu
