// Launch arguments and entry points of the eager CUDA training kernels (conv.cu, pool.cu,
// softmax.cu, loss.cu): plain data passed by value, plus the host-side launch geometry the
// kernels and their tests share. The host side of each op is in conv_ops.cpp / training_ops.cpp;
// each kernel computes what its cpu kernel (ops/cpu/training_kernels.h) computes.
//
// Every `launch_*` takes device pointers of `dtype` (float32 or float64) and queues on `stream`;
// it throws std::runtime_error naming the kernel when the launch fails. `first_bad`, where
// given, is a device word (first_bad.h) the kernel lowers to the position of the first invalid
// index or target it meets; the kernel skips such elements instead of reading out of bounds.
#pragma once

#include <cstdint>

#include "backend/cuda/eager/pointwise_args.h"

namespace lazygen::cuda {

inline constexpr int kTrainingThreads = 256;
inline constexpr int64_t kMaxTrainingBlocks = int64_t{1} << 20;

// Blocks of kTrainingThreads for a grid-stride loop over `work` items: at least 1, at most
// kMaxTrainingBlocks.
inline unsigned blocks_for(int64_t work) {
  const int64_t blocks = (work + kTrainingThreads - 1) / kTrainingThreads;
  return static_cast<unsigned>(blocks < 1                    ? 1
                               : blocks > kMaxTrainingBlocks ? kMaxTrainingBlocks
                                                             : blocks);
}

// One chunk of `samples` samples of a 2-D convolution (Note [im2col convolution] in
// ops/cpu/conv.cpp): input [samples, c, h, w], column matrix [samples, c * kh * kw, oh * ow].
struct ConvArgs {
  int64_t samples = 0, c = 0, h = 0, w = 0, kh = 0, kw = 0, oh = 0, ow = 0;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};
// col = the input's windows, zeros where a window hangs over the padding.
void launch_im2col(const ConvArgs& a, DType dtype, const void* x, void* col, cudaStream_t stream);
// dx = the column matrix added back into input positions (a gather: each input element sums
// its column entries in (ki, kj) order, as the cpu's col2im adds them).
void launch_col2im(const ConvArgs& a, DType dtype, const void* col, void* dx, cudaStream_t stream);
// y [samples, channels, plane] = bias[channel].
void launch_fill_bias(int64_t samples, int64_t channels, int64_t plane, DType dtype,
                      const void* bias, void* y, cudaStream_t stream);

// 2-D max pooling over `planes` planes of [h, w] into [oh, ow] (Pool2dGeometry).
struct PoolArgs {
  int64_t planes = 0, h = 0, w = 0, oh = 0, ow = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};
// values (and indices, when not null) of every window: the first largest element in row-major
// window order, or the last NaN; padding never wins (the cpu's scan_row).
void launch_max_pool(const PoolArgs& a, DType dtype, const void* x, void* values, int64_t* indices,
                     cudaStream_t stream);
// first_bad = the first output whose index lies outside its input plane.
void launch_check_pool_indices(const PoolArgs& a, const int64_t* indices,
                               unsigned long long* first_bad, cudaStream_t stream);
// grad_input = each grad_output element added at its window's maximum: a gather over the
// windows holding each input element, in increasing output order (the cpu's scatter order), so
// the result is deterministic. REQUIRES: indices checked (launch_check_pool_indices).
void launch_max_pool_backward(const PoolArgs& a, DType dtype, const void* grad_output,
                              const int64_t* indices, void* grad_input, cudaStream_t stream);

// [outer, n, inner] with the softmax dim in the middle; one block per (outer, inner) slice.
struct SoftmaxArgs {
  int64_t outer = 1, n = 1, inner = 1;
};
// y = (x - max) - log(sum(exp(x - max))), the sum in double (the cpu's softmax_row).
void launch_log_softmax(const SoftmaxArgs& a, DType dtype, const void* x, void* y,
                        cudaStream_t stream);
// dx = dy - exp(y) * sum(dy), the sum in double.
void launch_log_softmax_backward(const SoftmaxArgs& a, DType dtype, const void* dy, const void* y,
                                 void* dx, cudaStream_t stream);

// nll_loss over self [batch, classes] (training_kernels.h); weight may be null.
struct NllArgs {
  int64_t batch = 1, classes = 0, reduction = 1, ignore_index = -100;
};
// One block; sums in double in a fixed order. first_bad: the first sample with a bad target.
void launch_nll_loss(const NllArgs& a, DType dtype, const void* self, const int64_t* target,
                     const void* weight, void* out, unsigned long long* first_bad,
                     cudaStream_t stream);
// grad_input (zeroed by the caller) at each counted sample's target.
void launch_nll_loss_backward(const NllArgs& a, DType dtype, const void* grad_output,
                              const int64_t* target, const void* weight, void* grad_input,
                              unsigned long long* first_bad, cudaStream_t stream);

// Element i = 1/(1-p) when the uniform float32 of Philox block (seed, i / 4), lane i % 4 is
// >= p, else 0 (the cpu's _dropout_mask, bit for bit).
void launch_dropout_mask(int64_t numel, uint64_t seed, double p, DType dtype, void* out,
                         cudaStream_t stream);

}  // namespace lazygen::cuda
