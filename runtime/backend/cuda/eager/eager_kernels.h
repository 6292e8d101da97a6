// The host side of the eager CUDA kernels: what the generated pointwise kernels of
// generated/src/cuda_ops.cpp call (empty_device, run_pointwise), and the registration of every
// eager CUDA kernel with the op dispatch (See Note [Device kernels] in core/dispatch.h).
//
// Which ops run on cuda tensors: every `pointwise:` op (generated kernels), every view op (its
// cpu kernel: views only compute sizes and strides), mm / addmm / bmm (cuBLAS, blas.cpp),
// sum / sum.dim_IntList / mean.dim / amax (reduce.cu) and the training ops: conv2d and its two
// backward ops (conv_ops.cpp), max_pool2d[_with_indices] and their backward ops (pool_ops.cpp),
// _log_softmax, _log_softmax_backward_data, nll_loss, nll_loss_backward and _dropout_mask
// (loss_ops.cpp). Any other op on cuda tensors throws "<op>: no CUDA kernel; ..." (no silent
// cpu fallback).
// Thread safety: all functions may be called concurrently; kernels queue on current_stream().
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "backend/cuda/eager/pointwise_args.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen::cuda {

using PointwiseLaunch = void (*)(const PointwiseArgs& args, cudaStream_t stream);

// A new contiguous tensor on `device` with uninitialized data.
Tensor empty_device(const std::vector<int64_t>& sizes, DType dtype, Device device);

// The launch arguments of out = fn(inputs..., scalars...) with the inputs broadcast to out's
// sizes (stride 0 where an input has size 1 or lacks the dim). Pure host code: tensors of any
// device give their data pointers. Throws ShapeError naming `op` for more than
// kMaxPointwiseInputs inputs, kMaxPointwiseScalars scalars or kMaxPointwiseDims dims, or an
// input that does not broadcast to out.
PointwiseArgs pointwise_args(const char* op, const Tensor& out, std::span<const Tensor> inputs,
                             std::span<const Scalar> scalars, DType compute);

// Throws ShapeError naming `op` unless every defined tensor is on `device` ("expected all
// tensors on cuda:0, got cpu").
void require_device(const char* op, Device device, std::initializer_list<Tensor> tensors);

// Launches `launch` over pointwise_args(...) on out's device. REQUIRES: out is a cuda tensor;
// throws ShapeError naming `op` when an input is on another device.
void run_pointwise(const char* op, PointwiseLaunch launch, const Tensor& out,
                   std::initializer_list<Tensor> inputs, std::initializer_list<Scalar> scalars,
                   DType compute);

// Generated (generated/src/cuda_ops.cpp): the pointwise and view kernels.
void register_pointwise_kernels();
// Everything above plus the cuBLAS and reduction kernels. Called once, when lazygen_cuda is
// linked (cuda_device.cpp).
void register_eager_kernels();

// The hand-written kernels (blas.cpp, reduce_ops.cpp, conv_ops.cpp, pool_ops.cpp,
// loss_ops.cpp); each registers itself here.
void register_blas_kernels();
void register_reduce_kernels();
void register_conv_kernels();
void register_pool_kernels();
void register_loss_kernels();

}  // namespace lazygen::cuda
