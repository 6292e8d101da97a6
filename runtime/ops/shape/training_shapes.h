// Hand-written shape functions of the training ops (ops.yaml, "training ops"): 2-D convolution
// and its two backward ops, 2-D max pooling and its backward ops, log_softmax's backward and the
// negative log-likelihood loss. Signatures are exactly what lazygen derives (it declares them
// again in generated shape_inference.h); the same functions size eager outputs
// (runtime/ops/cpu/) and lazy IR nodes, so bad arguments fail the same way, at call time, on
// every device: a ShapeError naming the op and what was wrong.
//
// The geometry structs below are the validated arithmetic the kernels share with the shape
// functions (output sizes, strides, paddings), so the two can never disagree.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "lazygen/dtype.h"
#include "lazygen/scalar.h"
#include "lazygen/shape.h"

namespace lazygen {

// at::Reduction: the `reduction` argument of losses.
inline constexpr int64_t kReductionNone = 0;
inline constexpr int64_t kReductionMean = 1;
inline constexpr int64_t kReductionSum = 2;
// Throws ShapeError naming `op` unless `reduction` is one of the three.
void check_reduction(const char* op, int64_t reduction);

// A validated 2-D convolution: input [n, c, h, w], weight [o, c / groups, kh, kw], output
// [n, o, oh, ow]. `int[2]` arguments may hold one value (used for both dims) or two.
struct Conv2dGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0;
  int64_t o = 0, kh = 0, kw = 0;
  int64_t oh = 0, ow = 0;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int64_t groups = 1;

  int64_t in_per_group() const { return c / groups; }
  int64_t out_per_group() const { return o / groups; }
  // Rows and columns of one group's im2col matrix.
  int64_t col_rows() const { return in_per_group() * kh * kw; }
  int64_t col_cols() const { return oh * ow; }
};

// Throws ShapeError naming `op` unless input is 4-D, weight 4-D with c == weight[1] * groups and
// o divisible by groups, strides and dilations positive, paddings non-negative, and the output
// non-empty.
Conv2dGeometry conv2d_geometry(const char* op, const std::vector<int64_t>& input,
                               const std::vector<int64_t>& weight,
                               const std::vector<int64_t>& stride,
                               const std::vector<int64_t>& padding,
                               const std::vector<int64_t>& dilation, int64_t groups);

// A validated 2-D pooling over `planes` planes of [h, w] (self is [n, c, h, w] or [c, h, w]);
// output planes are [oh, ow]. An empty stride means stride = kernel_size (PyTorch's default).
struct Pool2dGeometry {
  int64_t planes = 0, h = 0, w = 0, oh = 0, ow = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};

// PyTorch's rules: padding at most half the kernel, output sizes from pooling_output_shape
// (ceil_mode drops a last window that would start in the right padding).
Pool2dGeometry pool2d_geometry(const char* op, const std::vector<int64_t>& self,
                               const std::vector<int64_t>& kernel_size,
                               const std::vector<int64_t>& stride,
                               const std::vector<int64_t>& padding,
                               const std::vector<int64_t>& dilation, bool ceil_mode);

// The outputs [lo, hi) of a sweep of `out` windows with stride s whose tap at input position
// o * s + offset lies inside [0, in) (empty when none does): the loop bounds im2col and pooling
// use to skip padding without a test per element.
struct TapRange {
  int64_t lo = 0, hi = 0;
};
TapRange tap_range(int64_t out, int64_t in, int64_t s, int64_t offset);

// ---- convolution: float32 or float64, one dtype for all operands
std::vector<Shape> compute_shape_conv2d(const Shape& input, const Shape& weight,
                                        const std::optional<Shape>& bias,
                                        const std::vector<int64_t>& stride,
                                        const std::vector<int64_t>& padding,
                                        const std::vector<int64_t>& dilation, int64_t groups);
// grad_output must have the shape conv2d gives for input_size and weight.
std::vector<Shape> compute_shape_conv2d_backward_input(
    const Shape& grad_output, const Shape& weight, const std::vector<int64_t>& input_size,
    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
    const std::vector<int64_t>& dilation, int64_t groups);
std::vector<Shape> compute_shape_conv2d_backward_weight(
    const Shape& grad_output, const Shape& input, const std::vector<int64_t>& weight_size,
    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
    const std::vector<int64_t>& dilation, int64_t groups);

// ---- max pooling: floating self; indices are int64 positions within each input plane
std::vector<Shape> compute_shape_max_pool2d_with_indices(
    const Shape& self, const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& stride,
    const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, bool ceil_mode);
std::vector<Shape> compute_shape_max_pool2d_with_indices_backward(
    const Shape& grad_output, const Shape& self, const std::vector<int64_t>& kernel_size,
    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
    const std::vector<int64_t>& dilation, bool ceil_mode, const Shape& indices);
std::vector<Shape> compute_shape_max_pool2d(const Shape& self,
                                            const std::vector<int64_t>& kernel_size,
                                            const std::vector<int64_t>& stride,
                                            const std::vector<int64_t>& padding,
                                            const std::vector<int64_t>& dilation, bool ceil_mode);
std::vector<Shape> compute_shape_max_pool2d_backward(const Shape& grad_output, const Shape& self,
                                                     const std::vector<int64_t>& kernel_size,
                                                     const std::vector<int64_t>& stride,
                                                     const std::vector<int64_t>& padding,
                                                     const std::vector<int64_t>& dilation,
                                                     bool ceil_mode);

// ---- softmax and log_softmax backward: grad_output and output of one floating dtype and one
// shape; the result has grad_output's dtype (PyTorch 1.13's; input_dtype must be floating).
std::vector<Shape> compute_shape__softmax_backward_data(const Shape& grad_output,
                                                         const Shape& output, int64_t dim,
                                                         DType input_dtype);
std::vector<Shape> compute_shape__log_softmax_backward_data(const Shape& grad_output,
                                                            const Shape& output, int64_t dim,
                                                            DType input_dtype);

// ---- nll_loss: self [n, c] (or [c]) floating, target [n] (or []) int64, weight [c]. The result
// is [n] for reduction none, else a scalar; the backward's result has self's shape.
std::vector<Shape> compute_shape_nll_loss(const Shape& self, const Shape& target,
                                          const std::optional<Shape>& weight, int64_t reduction,
                                          int64_t ignore_index);
std::vector<Shape> compute_shape_nll_loss_backward(const Shape& grad_output, const Shape& self,
                                                   const Shape& target,
                                                   const std::optional<Shape>& weight,
                                                   int64_t reduction, int64_t ignore_index);

// ---- dropout: a floating self and 0 <= p <= 1; the mask has self's shape and dtype.
std::vector<Shape> compute_shape__dropout_mask(const Shape& self, const Scalar& p,
                                               const Scalar& seed);

}  // namespace lazygen
