// Shape functions and geometry of the training ops (training_shapes.h).
#include "ops/shape/training_shapes.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

namespace lazygen {

namespace {

std::string str(int64_t v) {
  return std::to_string(v);
}

void require_rank(const char* op, const std::vector<int64_t>& sizes, const char* name,
                  int64_t rank) {
  if (static_cast<int64_t>(sizes.size()) != rank) {
    throw ShapeError(op, std::string("expected ") + name + " to be " + str(rank) +
                             "-D, got shape " + sizes_str(sizes));
  }
}

void require_blas_dtype(const char* op, const Shape& s, const char* name) {
  if (s.dtype != DType::Float32 && s.dtype != DType::Float64) {
    throw ShapeError(op, std::string("expected ") + name + " to be float32 or float64, got " +
                             std::string(dtype_name(s.dtype)));
  }
}

void require_same_dtype(const char* op, const Shape& a, const Shape& b, const char* names) {
  if (a.dtype != b.dtype) {
    throw ShapeError(op, std::string("expected ") + names + " to have one dtype, got " +
                             std::string(dtype_name(a.dtype)) + " and " +
                             std::string(dtype_name(b.dtype)));
  }
}

void require_sizes(const char* op, const Shape& s, const std::vector<int64_t>& sizes,
                   const char* name) {
  if (s.sizes != sizes) {
    throw ShapeError(op, std::string("expected ") + name + " of shape " + sizes_str(sizes) +
                             ", got " + sizes_str(s.sizes));
  }
}

// The two values of an `int[2]` argument given with one or two elements, each >= `min`.
std::pair<int64_t, int64_t> pair_arg(const char* op, const std::vector<int64_t>& v,
                                     const char* name, int64_t min) {
  if (v.size() != 1 && v.size() != 2) {
    throw ShapeError(op, std::string(name) + " must have one or two elements, got " + sizes_str(v));
  }
  const int64_t a = v[0], b = v.size() == 2 ? v[1] : v[0];
  if (a < min || b < min) {
    throw ShapeError(op,
                     std::string(name) + " must be at least " + str(min) + ", got " + sizes_str(v));
  }
  return {a, b};
}

// Output size of a convolution or pooling along one dim (floor or ceil division).
int64_t window_count(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  if (span < 0) return 0;
  int64_t out = (span + (ceil_mode ? s - 1 : 0)) / s + 1;
  // A last window starting inside the right padding is dropped (PyTorch).
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

void set_conv_params(const char* op, Conv2dGeometry& g, const std::vector<int64_t>& stride,
                     const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation) {
  std::tie(g.sh, g.sw) = pair_arg(op, stride, "stride", 1);
  std::tie(g.ph, g.pw) = pair_arg(op, padding, "padding", 0);
  std::tie(g.dh, g.dw) = pair_arg(op, dilation, "dilation", 1);
}

}  // namespace

void check_reduction(const char* op, int64_t reduction) {
  if (reduction < kReductionNone || reduction > kReductionSum) {
    throw ShapeError(op, "reduction must be 0 (none), 1 (mean) or 2 (sum), got " + std::to_string(reduction));
  }
}

TapRange tap_range(int64_t out, int64_t in, int64_t s, int64_t offset) {
  if (offset >= in) return {};
  const int64_t lo = offset >= 0 ? 0 : std::min(out, (-offset + s - 1) / s);
  const int64_t hi = std::min(out, (in - 1 - offset) / s + 1);
  return {lo, std::max(lo, hi)};
}

Conv2dGeometry conv2d_geometry(const char* op, const std::vector<int64_t>& input,
                               const std::vector<int64_t>& weight,
                               const std::vector<int64_t>& stride,
                               const std::vector<int64_t>& padding,
                               const std::vector<int64_t>& dilation, int64_t groups) {
  require_rank(op, input, "input", 4);
  require_rank(op, weight, "weight", 4);
  Conv2dGeometry g;
  g.n = input[0], g.c = input[1], g.h = input[2], g.w = input[3];
  g.o = weight[0], g.kh = weight[2], g.kw = weight[3], g.groups = groups;
  set_conv_params(op, g, stride, padding, dilation);
  if (groups < 1 || g.o % groups != 0 || g.o == 0) {
    throw ShapeError(op, "groups must be positive and divide the " + str(g.o) +
                             " output channels, got groups=" + str(groups));
  }
  if (weight[1] * groups != g.c) {
    throw ShapeError(op, "input of shape " + sizes_str(input) + " has " + str(g.c) +
                             " channels, but weight of shape " + sizes_str(weight) +
                             " and groups=" + str(groups) + " expect " + str(weight[1] * groups));
  }
  g.oh = window_count(g.h, g.kh, g.sh, g.ph, g.dh, false);
  g.ow = window_count(g.w, g.kw, g.sw, g.pw, g.dw, false);
  if (g.oh <= 0 || g.ow <= 0 || g.kh <= 0 || g.kw <= 0) {
    throw ShapeError(op, "kernel " + sizes_str(weight) + " does not fit input " + sizes_str(input) +
                             " (padded, dilated): the output would be empty");
  }
  return g;
}

Pool2dGeometry pool2d_geometry(const char* op, const std::vector<int64_t>& self,
                               const std::vector<int64_t>& kernel_size,
                               const std::vector<int64_t>& stride,
                               const std::vector<int64_t>& padding,
                               const std::vector<int64_t>& dilation, bool ceil_mode) {
  const auto rank = static_cast<int64_t>(self.size());
  if (rank != 3 && rank != 4) {
    throw ShapeError(op, "expected a 3-D or 4-D input, got shape " + sizes_str(self));
  }
  Pool2dGeometry g;
  g.h = self[rank - 2], g.w = self[rank - 1];
  g.planes = self[rank - 3] * (rank == 4 ? self[0] : 1);
  std::tie(g.kh, g.kw) = pair_arg(op, kernel_size, "kernel_size", 1);
  std::tie(g.sh, g.sw) = stride.empty() ? std::pair{g.kh, g.kw} : pair_arg(op, stride, "stride", 1);
  std::tie(g.ph, g.pw) = pair_arg(op, padding, "padding", 0);
  std::tie(g.dh, g.dw) = pair_arg(op, dilation, "dilation", 1);
  if (g.ph > g.kh / 2 || g.pw > g.kw / 2) {
    throw ShapeError(op, "pad should be at most half of effective kernel size, got padding " +
                             sizes_str(padding) + " and kernel_size " + sizes_str(kernel_size));
  }
  g.oh = window_count(g.h, g.kh, g.sh, g.ph, g.dh, ceil_mode);
  g.ow = window_count(g.w, g.kw, g.sw, g.pw, g.dw, ceil_mode);
  if (g.oh <= 0 || g.ow <= 0) {
    throw ShapeError(op, "input of shape " + sizes_str(self) + " is too small for kernel_size " +
                             sizes_str(kernel_size) + ": the output would be empty");
  }
  return g;
}

std::vector<Shape> compute_shape_conv2d(const Shape& input, const Shape& weight,
                                        const std::optional<Shape>& bias,
                                        const std::vector<int64_t>& stride,
                                        const std::vector<int64_t>& padding,
                                        const std::vector<int64_t>& dilation, int64_t groups) {
  constexpr const char* kOp = "conv2d";
  const Conv2dGeometry g =
      conv2d_geometry(kOp, input.sizes, weight.sizes, stride, padding, dilation, groups);
  if (input.dtype == DType::Bool) {  // integers convolve exactly, as PyTorch's CPU kernel does
    throw ShapeError(kOp, "not implemented for bool tensors (it takes int32, int64, float32, float64)");
  }
  require_same_dtype(kOp, input, weight, "input and weight");
  if (bias) {
    require_same_dtype(kOp, input, *bias, "input and bias");
    require_sizes(kOp, *bias, {g.o}, "bias");
  }
  return {Shape(input.dtype, {g.n, g.o, g.oh, g.ow})};
}

std::vector<Shape> compute_shape_conv2d_backward_input(
    const Shape& grad_output, const Shape& weight, const std::vector<int64_t>& input_size,
    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
    const std::vector<int64_t>& dilation, int64_t groups) {
  constexpr const char* kOp = "conv2d_backward_input";
  const Conv2dGeometry g =
      conv2d_geometry(kOp, input_size, weight.sizes, stride, padding, dilation, groups);
  require_blas_dtype(kOp, grad_output, "grad_output");
  require_same_dtype(kOp, grad_output, weight, "grad_output and weight");
  require_sizes(kOp, grad_output, {g.n, g.o, g.oh, g.ow}, "grad_output");
  return {Shape(grad_output.dtype, input_size)};
}

std::vector<Shape> compute_shape_conv2d_backward_weight(
    const Shape& grad_output, const Shape& input, const std::vector<int64_t>& weight_size,
    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
    const std::vector<int64_t>& dilation, int64_t groups) {
  constexpr const char* kOp = "conv2d_backward_weight";
  const Conv2dGeometry g =
      conv2d_geometry(kOp, input.sizes, weight_size, stride, padding, dilation, groups);
  require_blas_dtype(kOp, grad_output, "grad_output");
  require_same_dtype(kOp, grad_output, input, "grad_output and input");
  require_sizes(kOp, grad_output, {g.n, g.o, g.oh, g.ow}, "grad_output");
  return {Shape(grad_output.dtype, weight_size)};
}

namespace {

// The pooled shape of self (floating), checked.
Shape pooled_shape(const char* op, const Shape& self, const std::vector<int64_t>& kernel_size,
                   const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                   const std::vector<int64_t>& dilation, bool ceil_mode) {
  const Pool2dGeometry g =
      pool2d_geometry(op, self.sizes, kernel_size, stride, padding, dilation, ceil_mode);
  if (!is_floating(self.dtype)) {
    throw ShapeError(op, "expected a floating input, got " + std::string(dtype_name(self.dtype)));
  }
  Shape out = self;
  out.sizes[self.dim() - 2] = g.oh;
  out.sizes[self.dim() - 1] = g.ow;
  return out;
}

}  // namespace

std::vector<Shape> compute_shape_max_pool2d_with_indices(
    const Shape& self, const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& stride,
    const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, bool ceil_mode) {
  const Shape out = pooled_shape("max_pool2d_with_indices", self, kernel_size, stride, padding,
                                 dilation, ceil_mode);
  return {out, Shape(DType::Int64, out.sizes)};
}

std::vector<Shape> compute_shape_max_pool2d_with_indices_backward(
    const Shape& grad_output, const Shape& self, const std::vector<int64_t>& kernel_size,
    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
    const std::vector<int64_t>& dilation, bool ceil_mode, const Shape& indices) {
  constexpr const char* kOp = "max_pool2d_with_indices_backward";
  const Shape out = pooled_shape(kOp, self, kernel_size, stride, padding, dilation, ceil_mode);
  require_same_dtype(kOp, grad_output, self, "grad_output and self");
  require_sizes(kOp, grad_output, out.sizes, "grad_output");
  require_sizes(kOp, indices, out.sizes, "indices");
  if (indices.dtype != DType::Int64) {
    throw ShapeError(kOp, "expected int64 indices, got " + std::string(dtype_name(indices.dtype)));
  }
  return {self};
}

std::vector<Shape> compute_shape_max_pool2d(const Shape& self,
                                            const std::vector<int64_t>& kernel_size,
                                            const std::vector<int64_t>& stride,
                                            const std::vector<int64_t>& padding,
                                            const std::vector<int64_t>& dilation, bool ceil_mode) {
  return {pooled_shape("max_pool2d", self, kernel_size, stride, padding, dilation, ceil_mode)};
}

std::vector<Shape> compute_shape_max_pool2d_backward(const Shape& grad_output, const Shape& self,
                                                     const std::vector<int64_t>& kernel_size,
                                                     const std::vector<int64_t>& stride,
                                                     const std::vector<int64_t>& padding,
                                                     const std::vector<int64_t>& dilation,
                                                     bool ceil_mode) {
  constexpr const char* kOp = "max_pool2d_backward";
  const Shape out = pooled_shape(kOp, self, kernel_size, stride, padding, dilation, ceil_mode);
  require_same_dtype(kOp, grad_output, self, "grad_output and self");
  require_sizes(kOp, grad_output, out.sizes, "grad_output");
  return {self};
}

std::vector<Shape> compute_shape__log_softmax_backward_data(const Shape& grad_output,
                                                            const Shape& output, int64_t dim,
                                                            DType input_dtype) {
  constexpr const char* kOp = "_log_softmax_backward_data";
  if (!is_floating(grad_output.dtype) || !is_floating(input_dtype)) {
    throw ShapeError(kOp, "expected floating grad_output and input_dtype, got " +
                              std::string(dtype_name(grad_output.dtype)) + " and " +
                              std::string(dtype_name(input_dtype)));
  }
  require_same_dtype(kOp, grad_output, output, "grad_output and output");
  require_sizes(kOp, output, grad_output.sizes, "output");
  wrap_dim(kOp, dim, std::max<int64_t>(grad_output.dim(), 1));
  return {grad_output};  // PyTorch 1.13 gives grad_output's dtype, whatever input_dtype says
}

std::vector<Shape> compute_shape__softmax_backward_data(const Shape& grad_output,
                                                         const Shape& output, int64_t dim,
                                                         DType input_dtype) {
  constexpr const char* kOp = "_softmax_backward_data";
  if (!is_floating(grad_output.dtype) || !is_floating(input_dtype)) {
    throw ShapeError(kOp, "expected floating grad_output and input_dtype, got " +
                              std::string(dtype_name(grad_output.dtype)) + " and " +
                              std::string(dtype_name(input_dtype)));
  }
  require_same_dtype(kOp, grad_output, output, "grad_output and output");
  require_sizes(kOp, output, grad_output.sizes, "output");
  wrap_dim(kOp, dim, std::max<int64_t>(grad_output.dim(), 1));
  return {grad_output};  // grad_output's dtype, as PyTorch 1.13 returns
}

namespace {

// Checks nll_loss's operands; returns the batch size (-1 for an unbatched [c] input).
int64_t check_nll_operands(const char* op, const Shape& self, const Shape& target,
                           const std::optional<Shape>& weight, int64_t reduction) {
  if (self.dim() != 1 && self.dim() != 2) {
    throw ShapeError(op, "expected a 1-D or 2-D input, got shape " + sizes_str(self.sizes));
  }
  if (!is_floating(self.dtype)) {
    throw ShapeError(op, "expected a floating input, got " + std::string(dtype_name(self.dtype)));
  }
  if (target.dtype != DType::Int64) {
    throw ShapeError(op, "expected an int64 target, got " + std::string(dtype_name(target.dtype)));
  }
  const int64_t batch = self.dim() == 2 ? self.sizes[0] : -1;
  require_sizes(op, target, batch < 0 ? std::vector<int64_t>{} : std::vector<int64_t>{batch},
                "target");
  if (weight) {
    require_same_dtype(op, self, *weight, "input and weight");
    require_sizes(op, *weight, {self.sizes.back()}, "weight");
  }
  check_reduction(op, reduction);
  return batch;
}

std::vector<int64_t> loss_sizes(int64_t batch, int64_t reduction) {
  if (reduction != kReductionNone || batch < 0) return {};
  return {batch};
}

}  // namespace

std::vector<Shape> compute_shape_nll_loss(const Shape& self, const Shape& target,
                                          const std::optional<Shape>& weight, int64_t reduction,
                                          int64_t /*ignore_index*/) {
  const int64_t batch = check_nll_operands("nll_loss", self, target, weight, reduction);
  return {Shape(self.dtype, loss_sizes(batch, reduction))};
}

std::vector<Shape> compute_shape_nll_loss_backward(const Shape& grad_output, const Shape& self,
                                                   const Shape& target,
                                                   const std::optional<Shape>& weight,
                                                   int64_t reduction, int64_t /*ignore_index*/) {
  constexpr const char* kOp = "nll_loss_backward";
  const int64_t batch = check_nll_operands(kOp, self, target, weight, reduction);
  require_same_dtype(kOp, grad_output, self, "grad_output and input");
  require_sizes(kOp, grad_output, loss_sizes(batch, reduction), "grad_output");
  return {self};
}

std::vector<Shape> compute_shape__dropout_mask(const Shape& self, const Scalar& p,
                                               const Scalar& /*seed*/) {
  constexpr const char* kOp = "_dropout_mask";
  const double prob = p.to<double>();
  if (!(prob >= 0 && prob <= 1)) {
    throw ShapeError(kOp, "dropout probability has to be between 0 and 1, but got " + p.str());
  }
  if (!is_floating(self.dtype)) {
    throw ShapeError(kOp, "expected a floating input, got " + std::string(dtype_name(self.dtype)));
  }
  return {self};
}

}  // namespace lazygen
