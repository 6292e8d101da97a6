// float32 convolutions through oneDNN, the library PyTorch's CPU convolutions run on.
//
// Note [oneDNN convolution]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// im2col + OpenBLAS reaches about 140-160 GFLOP/s on ResNet's 3x3 convolutions over 4x4 to 16x16
// planes on two AVX-512 cores, oneDNN's direct convolutions 190-260: they need no column matrix
// and keep activations in channel blocks of 16. So where oneDNN is the faster of the two (the
// choice below, from bench/pytorch conv timings), a float32 conv2d, conv2d_backward_input or
// conv2d_backward_weight runs there:
//   - forward and input gradient: output planes of at least kMinPlane elements;
//   - weight gradient: output planes of at least kMinWeightPlane elements (on smaller planes its
//     reduction over few pixels and many samples is slower than one gemm over the batch).
// Operands stay NCHW in our tensors: each call reorders them into the layouts oneDNN chose and
// the result back (as PyTorch does for its dense tensors), in scratch from our allocator.
// Primitives (convolution and reorders) are created once per geometry and pass and cached.
//
// oneDNN is opened at run time (dlopen of libdnnl.so.2, Debian's libdnnl2, which python3-torch
// installs too), like OpenBLAS (Note [Choosing OpenBLAS's kernels]): nothing links it, so a
// program or a vendored runtime builds without it, and where the library (or, at build time,
// its header from libdnnl-dev) is missing every convolution runs im2col.
// Threads: Debian's oneDNN parallelizes with OpenMP. Called from the lazy device's executor
// thread, it would start a second OpenMP team beside the program's (PyTorch's, for the PyTorch
// device), and with more OpenMP threads than cores libgomp stops spinning at its barriers for
// good: PyTorch's own CPU ops then ran 1.6-1.8x slower for the rest of the process. So oneDNN
// runs with one OpenMP thread (the calling thread's setting, restored after) and lazygen's pool
// splits the batch instead: each of its threads convolves a chunk of the samples, and the weight
// gradient adds the chunks' partial sums.
//
// On by default (LAZYGEN_ONEDNN=0 or set_onednn_enabled(false) in lazygen/conv.h turn it off).
// It was opt-in for a while: the tutorial CNN's lazy step crashed or hung now and then inside
// oneDNN when its test process ended during the step. The cause was exit's order, not oneDNN:
// the library's statics were destroyed before the executor's exit handler waited for the step
// (Note [Finishing asynchronous work at exit] in core/exit_wait.h). That test run stressed (two
// processes at once): 3 crashes in 16 runs before the fix; 1 crash and 2 hangs in 30 with only
// the re-registered exit handler; none in 30 with the launching thread's wait as well.
// The counter `conv.onednn` counts the calls it ran (conv.cpp chooses). Winograd, when switched
// on, goes first.
// Thread safety: every function may be called from any thread.
#pragma once

#include <cstdint>

#include "ops/shape/training_shapes.h"

namespace lazygen::cpu {

enum class ConvPass { Forward, BackwardInput, BackwardWeight };

inline constexpr int64_t kMinPlane = 16;
inline constexpr int64_t kMinWeightPlane = 64;

// Whether `pass` over g may run through oneDNN: switched on, the library opened, the plane large
// enough (Note [oneDNN convolution]).
bool onednn_conv_runs(const Conv2dGeometry& g, ConvPass pass);

// The pass over g, all operands dense NCHW (weights OIHW) float32, `out` written whole:
//   Forward:        a = input [n, c, h, w], b = weight, bias (may be null), out = [n, o, oh, ow]
//   BackwardInput:  a = grad_output, b = weight, out = grad_input [n, c, h, w]
//   BackwardWeight: a = grad_output, b = input, out = grad_weight [o, c/groups, kh, kw]
// REQUIRES: onednn_conv_runs(g, pass). Throws std::runtime_error naming oneDNN's status if a
// call fails.
void onednn_conv(ConvPass pass, const Conv2dGeometry& g, const float* a, const float* b,
                 const float* bias, float* out);

}  // namespace lazygen::cpu
