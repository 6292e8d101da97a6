// The cpu convolution's algorithm switch: im2col + gemm by default; opted in, Winograd F(4x4, 3x3)
// for 3x3 kernels with unit stride and dilation and one group (See Note [Winograd convolution] in
// runtime/ops/cpu/winograd.h). Winograd is 3-3.5x faster on such convolutions but rounds worse:
// in float32 its error against a float64 reference is 6-21x PyTorch's (forward; input and weight
// gradients alike), where im2col's matches PyTorch's, so it is off unless asked for.
//
// float32 convolutions over large enough planes run through oneDNN where the library is present
// (See Note [oneDNN convolution] in runtime/ops/cpu/onednn_conv.h); on by default.
//
// Counters (lazygen/metrics.h): `conv.winograd`, `conv.onednn` and `conv.im2col` count the
// conv2d, conv2d_backward_input and conv2d_backward_weight cpu calls each algorithm ran.
// Thread safety: every function here may be called from any thread.
#pragma once

namespace lazygen {

// Winograd is used where it applies when the environment sets LAZYGEN_WINOGRAD=1 or this turns it
// on; off (the default), every convolution runs im2col. Takes effect at the next convolution, also
// inside lazy graphs already compiled.
void set_winograd_enabled(bool enabled);
bool winograd_enabled();

// oneDNN runs the convolutions it is chosen for unless the environment sets LAZYGEN_ONEDNN=0 or
// this turns it off (then im2col runs them); takes effect at the next convolution.
void set_onednn_enabled(bool enabled);
bool onednn_enabled();

}  // namespace lazygen
