// The cpu convolution's algorithm switch: Winograd F(4x4, 3x3) for 3x3 kernels with unit stride
// and dilation and one group, im2col + gemm for everything else (See Note [Winograd convolution]
// in runtime/ops/cpu/winograd.h). Both give the same results up to rounding.
//
// Counters (lazygen/metrics.h): `conv.winograd` and `conv.im2col` count the conv2d,
// conv2d_backward_input and conv2d_backward_weight cpu calls each algorithm ran.
// Thread safety: every function here may be called from any thread.
#pragma once

namespace lazygen {

// Winograd is used where it applies unless the environment sets LAZYGEN_WINOGRAD=0 or this turns
// it off; off, every convolution runs im2col (the reference for A/B checks). Takes effect at the
// next convolution, also inside lazy graphs already compiled.
void set_winograd_enabled(bool enabled);
bool winograd_enabled();

}  // namespace lazygen
