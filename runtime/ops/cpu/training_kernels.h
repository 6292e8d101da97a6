// Hand-written eager cpu kernels of the training ops (ops.yaml, "training ops"), with the
// signatures lazygen derives (declared again in generated cpu_kernels.h; the lazy device lowers
// its IR nodes to these same functions).
//
// Each kernel first calls its shape function (ops/shape/training_shapes.h), so errors match lazy
// tracing. Operands must be cpu tensors of any layout (non-contiguous ones are copied first);
// every result is new contiguous memory. Data-dependent errors (a target class out of range) are
// thrown while running, so on the lazy device they surface at the sync point.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "lazygen/dtype.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen::cpu {

// ---- convolution (ops/cpu/conv.cpp): Winograd F(4x4, 3x3) for 3x3 kernels with unit stride and
// dilation, one group and at least 4 channels in and out (ops/cpu/winograd.h; lazygen/conv.h
// switches it off); else im2col + BLAS gemm per sample and group (a 1x1 kernel with unit stride
// and no padding reads the input in place). float32/float64.
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
              const std::vector<int64_t>& dilation, int64_t groups);
// d input: weight^T @ grad_output per sample, scattered back by col2im.
Tensor conv2d_backward_input(const Tensor& grad_output, const Tensor& weight,
                             const std::vector<int64_t>& input_size,
                             const std::vector<int64_t>& stride,
                             const std::vector<int64_t>& padding,
                             const std::vector<int64_t>& dilation, int64_t groups);
// d weight: the sum over samples of grad_output @ im2col(input)^T.
Tensor conv2d_backward_weight(const Tensor& grad_output, const Tensor& input,
                              const std::vector<int64_t>& weight_size,
                              const std::vector<int64_t>& stride,
                              const std::vector<int64_t>& padding,
                              const std::vector<int64_t>& dilation, int64_t groups);

// ---- max pooling (ops/cpu/pool.cpp). A window's maximum is its first largest element in
// row-major order, or its last NaN (PyTorch's rule); indices count within an input plane
// (iy * w + ix). Padding never wins: windows look at real elements only.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(
    const Tensor& self, const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& stride,
    const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, bool ceil_mode);
// Scatters each grad_output element to its window's maximum (adding where windows overlap).
Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& self,
                                        const std::vector<int64_t>& kernel_size,
                                        const std::vector<int64_t>& stride,
                                        const std::vector<int64_t>& padding,
                                        const std::vector<int64_t>& dilation, bool ceil_mode,
                                        const Tensor& indices);
Tensor max_pool2d(const Tensor& self, const std::vector<int64_t>& kernel_size,
                  const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                  const std::vector<int64_t>& dilation, bool ceil_mode);
// As max_pool2d_with_indices_backward, finding each window's maximum again in self.
Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& self,
                           const std::vector<int64_t>& kernel_size,
                           const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                           const std::vector<int64_t>& dilation, bool ceil_mode);

// ---- softmax backward (ops/cpu/softmax_backward.cpp)
// output * (grad_output - sum(grad_output * output, dim)), with output = softmax(input, dim).
Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                              DType input_dtype);
// grad_output - exp(output) * sum(grad_output, dim), with output = log_softmax(input, dim).
Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  DType input_dtype);

// ---- losses (ops/cpu/loss.cpp)
// -weight[t] * self[i, t] per sample i with target t != ignore_index; mean divides by the sum of
// those weights (NaN when it is 0). A target outside [0, classes) throws std::out_of_range.
// An engaged but undefined weight counts as absent (backward functions save None that way).
Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                int64_t reduction, int64_t ignore_index);
Tensor nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         const std::optional<Tensor>& weight, int64_t reduction,
                         int64_t ignore_index);

// ---- dropout (ops/cpu/dropout.cpp): element i is 1/(1-p) when the uniform float32 draw from
// Philox block (seed, i / 4), lane i % 4 (as rand() draws), is >= p, else 0; all zeros for
// p == 1. REQUIRES: 0 <= p <= 1. Same mask for a given (seed, numel) on every device.
Tensor _dropout_mask(const Tensor& self, const Scalar& p, const Scalar& seed);

}  // namespace lazygen::cpu
