// Adapters for PyTorch's average pooling and upsampling ops (nearest, bilinear, bicubic; linear,
// trilinear and nearest in 1-d and 3-d; adaptive averages in 2-d and 3-d) and their backward ops
// (ops.yaml, "PyTorch adapters"), served by lazygen's separable composites
// (lazygen/composite.h, Note [Separable resampling]) and, for 3-d average pooling, by gather (Note
// [Pooling by gather]); integer tensors, which those composites do not take, run on the CPU. And
// reflection and replication padding (1-d to 3-d) with their backward ops, as gathers; im2col and
// col2im (F.unfold, F.fold), each the other's gradient, as strided slices.
#include <optional>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/generated/torch_adapters.h"
#include "pytorch/call.h"
#include "pytorch/fallback.h"

namespace lazygen::pytorch::adapters {

at::Tensor avg_pool2d(const at::Tensor& self, c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
                      c10::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                      c10::optional<int64_t> divisor_override) {
  if (!c10::isFloatingType(self.scalar_type())) {
    static const c10::OperatorHandle op = aten_op("aten::avg_pool2d");
    return call_on_cpu<at::Tensor>(op, self, kernel_size, stride, padding, ceil_mode,
                                   count_include_pad, divisor_override);
  }
  Call c("avg_pool2d", {&self});
  return c.result(lazygen::avg_pool2d(c.arg(self), c.arg(kernel_size), c.arg(stride),
                                      c.arg(padding), ceil_mode, count_include_pad,
                                      c.arg(divisor_override)));
}

at::Tensor avg_pool2d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                               c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
                               c10::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                               c10::optional<int64_t> divisor_override) {
  Call c("avg_pool2d_backward", {&grad_output, &self});
  return c.result(lazygen::avg_pool2d_backward(c.arg(grad_output), c.arg(self), c.arg(kernel_size),
                                               c.arg(stride), c.arg(padding), ceil_mode,
                                               count_include_pad, c.arg(divisor_override)));
}

at::Tensor avg_pool3d(const at::Tensor& self, c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
                      c10::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                      c10::optional<int64_t> divisor_override) {
  if (!c10::isFloatingType(self.scalar_type())) {
    static const c10::OperatorHandle op = aten_op("aten::avg_pool3d");
    return call_on_cpu<at::Tensor>(op, self, kernel_size, stride, padding, ceil_mode,
                                   count_include_pad, divisor_override);
  }
  Call c("avg_pool3d", {&self});
  return c.result(lazygen::avg_pool3d(c.arg(self), c.arg(kernel_size), c.arg(stride),
                                      c.arg(padding), ceil_mode, count_include_pad,
                                      c.arg(divisor_override)));
}

at::Tensor avg_pool3d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                               c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
                               c10::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                               c10::optional<int64_t> divisor_override) {
  Call c("avg_pool3d_backward", {&grad_output, &self});
  return c.result(lazygen::avg_pool3d_backward(c.arg(grad_output), c.arg(self), c.arg(kernel_size),
                                               c.arg(stride), c.arg(padding), ceil_mode,
                                               count_include_pad, c.arg(divisor_override)));
}

at::Tensor _adaptive_avg_pool2d(const at::Tensor& self, c10::IntArrayRef output_size) {
  if (!c10::isFloatingType(self.scalar_type())) {
    static const c10::OperatorHandle op = aten_op("aten::_adaptive_avg_pool2d");
    return call_on_cpu<at::Tensor>(op, self, output_size);
  }
  Call c("_adaptive_avg_pool2d", {&self});
  return c.result(lazygen::_adaptive_avg_pool2d(c.arg(self), c.arg(output_size)));
}

at::Tensor _adaptive_avg_pool2d_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  Call c("_adaptive_avg_pool2d_backward", {&grad_output, &self});
  return c.result(lazygen::_adaptive_avg_pool2d_backward(c.arg(grad_output), c.arg(self)));
}

at::Tensor upsample_nearest2d(const at::Tensor& self, c10::IntArrayRef output_size,
                              c10::optional<double> scales_h, c10::optional<double> scales_w) {
  if (!c10::isFloatingType(self.scalar_type())) {
    static const c10::OperatorHandle op = aten_op("aten::upsample_nearest2d");
    return call_on_cpu<at::Tensor>(op, self, output_size, scales_h, scales_w);
  }
  Call c("upsample_nearest2d", {&self});
  return c.result(lazygen::upsample_nearest2d(c.arg(self), c.arg(output_size), c.arg(scales_h),
                                              c.arg(scales_w)));
}

at::Tensor upsample_nearest2d_backward(const at::Tensor& grad_output, c10::IntArrayRef output_size,
                                       c10::IntArrayRef input_size, c10::optional<double> scales_h,
                                       c10::optional<double> scales_w) {
  Call c("upsample_nearest2d_backward", {&grad_output});
  return c.result(lazygen::upsample_nearest2d_backward(
      c.arg(grad_output), c.arg(output_size), c.arg(input_size), c.arg(scales_h), c.arg(scales_w)));
}

namespace {

// An interpolating upsampling (bilinear, bicubic) and its backward, by the composite `fn`.
using Interpolate = Tensor (*)(const Tensor&, const std::vector<int64_t>&, bool,
                               std::optional<double>, std::optional<double>);
using InterpolateBackward = Tensor (*)(const Tensor&, const std::vector<int64_t>&,
                                       const std::vector<int64_t>&, bool, std::optional<double>,
                                       std::optional<double>);

at::Tensor interpolate(const char* op, Interpolate fn, const at::Tensor& self,
                       c10::IntArrayRef output_size, bool align_corners,
                       c10::optional<double> scales_h, c10::optional<double> scales_w) {
  Call c(op, {&self});
  return c.result(
      fn(c.arg(self), c.arg(output_size), align_corners, c.arg(scales_h), c.arg(scales_w)));
}

at::Tensor interpolate_backward(const char* op, InterpolateBackward fn,
                                const at::Tensor& grad_output, c10::IntArrayRef output_size,
                                c10::IntArrayRef input_size, bool align_corners,
                                c10::optional<double> scales_h, c10::optional<double> scales_w) {
  Call c(op, {&grad_output});
  return c.result(fn(c.arg(grad_output), c.arg(output_size), c.arg(input_size), align_corners,
                     c.arg(scales_h), c.arg(scales_w)));
}

}  // namespace

at::Tensor upsample_bilinear2d(const at::Tensor& self, c10::IntArrayRef output_size,
                               bool align_corners, c10::optional<double> scales_h,
                               c10::optional<double> scales_w) {
  return interpolate("upsample_bilinear2d", lazygen::upsample_bilinear2d, self, output_size,
                     align_corners, scales_h, scales_w);
}

at::Tensor upsample_bilinear2d_backward(const at::Tensor& grad_output, c10::IntArrayRef output_size,
                                        c10::IntArrayRef input_size, bool align_corners,
                                        c10::optional<double> scales_h,
                                        c10::optional<double> scales_w) {
  return interpolate_backward("upsample_bilinear2d_backward", lazygen::upsample_bilinear2d_backward,
                              grad_output, output_size, input_size, align_corners, scales_h,
                              scales_w);
}

at::Tensor upsample_bicubic2d(const at::Tensor& self, c10::IntArrayRef output_size,
                              bool align_corners, c10::optional<double> scales_h,
                              c10::optional<double> scales_w) {
  return interpolate("upsample_bicubic2d", lazygen::upsample_bicubic2d, self, output_size,
                     align_corners, scales_h, scales_w);
}

at::Tensor upsample_bicubic2d_backward(const at::Tensor& grad_output, c10::IntArrayRef output_size,
                                       c10::IntArrayRef input_size, bool align_corners,
                                       c10::optional<double> scales_h,
                                       c10::optional<double> scales_w) {
  return interpolate_backward("upsample_bicubic2d_backward", lazygen::upsample_bicubic2d_backward,
                              grad_output, output_size, input_size, align_corners, scales_h,
                              scales_w);
}

namespace {

using Pad = Tensor (*)(const Tensor&, const std::vector<int64_t>&);
using PadBackward = Tensor (*)(const Tensor&, const Tensor&, const std::vector<int64_t>&);

at::Tensor padded(const char* op, Pad pad, const at::Tensor& self, c10::IntArrayRef padding) {
  Call c(op, {&self});
  return c.result(pad(c.arg(self), c.arg(padding)));
}

at::Tensor padded_backward(const char* op, PadBackward pad_backward, const at::Tensor& grad_output,
                           const at::Tensor& self, c10::IntArrayRef padding) {
  Call c(op, {&grad_output, &self});
  return c.result(pad_backward(c.arg(grad_output), c.arg(self), c.arg(padding)));
}

}  // namespace

at::Tensor reflection_pad1d(const at::Tensor& self, c10::IntArrayRef padding) {
  return padded("reflection_pad1d", lazygen::reflection_pad, self, padding);
}
at::Tensor reflection_pad1d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                     c10::IntArrayRef padding) {
  return padded_backward("reflection_pad1d_backward", lazygen::reflection_pad_backward, grad_output,
                         self, padding);
}

at::Tensor reflection_pad2d(const at::Tensor& self, c10::IntArrayRef padding) {
  return padded("reflection_pad2d", lazygen::reflection_pad, self, padding);
}
at::Tensor reflection_pad2d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                     c10::IntArrayRef padding) {
  return padded_backward("reflection_pad2d_backward", lazygen::reflection_pad_backward, grad_output,
                         self, padding);
}

at::Tensor reflection_pad3d(const at::Tensor& self, c10::IntArrayRef padding) {
  return padded("reflection_pad3d", lazygen::reflection_pad, self, padding);
}
at::Tensor reflection_pad3d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                     c10::IntArrayRef padding) {
  return padded_backward("reflection_pad3d_backward", lazygen::reflection_pad_backward, grad_output,
                         self, padding);
}

at::Tensor replication_pad1d(const at::Tensor& self, c10::IntArrayRef padding) {
  return padded("replication_pad1d", lazygen::replication_pad, self, padding);
}
at::Tensor replication_pad1d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                      c10::IntArrayRef padding) {
  return padded_backward("replication_pad1d_backward", lazygen::replication_pad_backward,
                         grad_output, self, padding);
}

at::Tensor replication_pad2d(const at::Tensor& self, c10::IntArrayRef padding) {
  return padded("replication_pad2d", lazygen::replication_pad, self, padding);
}
at::Tensor replication_pad2d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                      c10::IntArrayRef padding) {
  return padded_backward("replication_pad2d_backward", lazygen::replication_pad_backward,
                         grad_output, self, padding);
}

at::Tensor replication_pad3d(const at::Tensor& self, c10::IntArrayRef padding) {
  return padded("replication_pad3d", lazygen::replication_pad, self, padding);
}
at::Tensor replication_pad3d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                      c10::IntArrayRef padding) {
  return padded_backward("replication_pad3d_backward", lazygen::replication_pad_backward,
                         grad_output, self, padding);
}

at::Tensor im2col(const at::Tensor& self, c10::IntArrayRef kernel_size, c10::IntArrayRef dilation,
                  c10::IntArrayRef padding, c10::IntArrayRef stride) {
  Call c("im2col", {&self});
  return c.result(lazygen::im2col(c.arg(self), c.arg(kernel_size), c.arg(dilation), c.arg(padding),
                                  c.arg(stride)));
}

at::Tensor col2im(const at::Tensor& self, c10::IntArrayRef output_size,
                  c10::IntArrayRef kernel_size, c10::IntArrayRef dilation, c10::IntArrayRef padding,
                  c10::IntArrayRef stride) {
  Call c("col2im", {&self});
  return c.result(lazygen::col2im(c.arg(self), c.arg(output_size), c.arg(kernel_size),
                                  c.arg(dilation), c.arg(padding), c.arg(stride)));
}

// ---- 1-d and 3-d resampling: integer nearest upsampling runs on the CPU, as for 2-d.

at::Tensor upsample_linear1d(const at::Tensor& self, c10::IntArrayRef output_size,
                             bool align_corners, c10::optional<double> scales) {
  Call c("upsample_linear1d", {&self});
  return c.result(lazygen::upsample_linear1d(c.arg(self), c.arg(output_size), align_corners,
                                             c.arg(scales)));
}

at::Tensor upsample_linear1d_backward(const at::Tensor& grad_output, c10::IntArrayRef output_size,
                                      c10::IntArrayRef input_size, bool align_corners,
                                      c10::optional<double> scales) {
  Call c("upsample_linear1d_backward", {&grad_output});
  return c.result(lazygen::upsample_linear1d_backward(
      c.arg(grad_output), c.arg(output_size), c.arg(input_size), align_corners, c.arg(scales)));
}

at::Tensor upsample_nearest1d(const at::Tensor& self, c10::IntArrayRef output_size,
                              c10::optional<double> scales) {
  if (!c10::isFloatingType(self.scalar_type())) {
    static const c10::OperatorHandle op = aten_op("aten::upsample_nearest1d");
    return call_on_cpu<at::Tensor>(op, self, output_size, scales);
  }
  Call c("upsample_nearest1d", {&self});
  return c.result(lazygen::upsample_nearest1d(c.arg(self), c.arg(output_size), c.arg(scales)));
}

at::Tensor upsample_nearest1d_backward(const at::Tensor& grad_output, c10::IntArrayRef output_size,
                                       c10::IntArrayRef input_size, c10::optional<double> scales) {
  Call c("upsample_nearest1d_backward", {&grad_output});
  return c.result(lazygen::upsample_nearest1d_backward(c.arg(grad_output), c.arg(output_size),
                                                       c.arg(input_size), c.arg(scales)));
}

at::Tensor upsample_trilinear3d(const at::Tensor& self, c10::IntArrayRef output_size,
                                bool align_corners, c10::optional<double> scales_d,
                                c10::optional<double> scales_h, c10::optional<double> scales_w) {
  Call c("upsample_trilinear3d", {&self});
  return c.result(lazygen::upsample_trilinear3d(c.arg(self), c.arg(output_size), align_corners,
                                                c.arg(scales_d), c.arg(scales_h),
                                                c.arg(scales_w)));
}

at::Tensor upsample_trilinear3d_backward(const at::Tensor& grad_output,
                                         c10::IntArrayRef output_size, c10::IntArrayRef input_size,
                                         bool align_corners, c10::optional<double> scales_d,
                                         c10::optional<double> scales_h,
                                         c10::optional<double> scales_w) {
  Call c("upsample_trilinear3d_backward", {&grad_output});
  return c.result(lazygen::upsample_trilinear3d_backward(
      c.arg(grad_output), c.arg(output_size), c.arg(input_size), align_corners, c.arg(scales_d),
      c.arg(scales_h), c.arg(scales_w)));
}

at::Tensor upsample_nearest3d(const at::Tensor& self, c10::IntArrayRef output_size,
                              c10::optional<double> scales_d, c10::optional<double> scales_h,
                              c10::optional<double> scales_w) {
  if (!c10::isFloatingType(self.scalar_type())) {
    static const c10::OperatorHandle op = aten_op("aten::upsample_nearest3d");
    return call_on_cpu<at::Tensor>(op, self, output_size, scales_d, scales_h, scales_w);
  }
  Call c("upsample_nearest3d", {&self});
  return c.result(lazygen::upsample_nearest3d(c.arg(self), c.arg(output_size), c.arg(scales_d),
                                              c.arg(scales_h), c.arg(scales_w)));
}

at::Tensor upsample_nearest3d_backward(const at::Tensor& grad_output, c10::IntArrayRef output_size,
                                       c10::IntArrayRef input_size, c10::optional<double> scales_d,
                                       c10::optional<double> scales_h,
                                       c10::optional<double> scales_w) {
  Call c("upsample_nearest3d_backward", {&grad_output});
  return c.result(lazygen::upsample_nearest3d_backward(c.arg(grad_output), c.arg(output_size),
                                                       c.arg(input_size), c.arg(scales_d),
                                                       c.arg(scales_h), c.arg(scales_w)));
}

at::Tensor _adaptive_avg_pool3d(const at::Tensor& self, c10::IntArrayRef output_size) {
  Call c("_adaptive_avg_pool3d", {&self});
  return c.result(lazygen::_adaptive_avg_pool3d(c.arg(self), c.arg(output_size)));
}

at::Tensor _adaptive_avg_pool3d_backward(const at::Tensor& grad_output, const at::Tensor& self) {
  Call c("_adaptive_avg_pool3d_backward", {&grad_output, &self});
  return c.result(lazygen::_adaptive_avg_pool3d_backward(c.arg(grad_output), c.arg(self)));
}

namespace {

// The output size and per-axis scales of a `.vec` upsampling call (PyTorch's compute_output_size:
// output_size when given, else each input size times its scale factor, rounded down).
struct VecSizes {
  std::vector<int64_t> output;
  std::vector<c10::optional<double>> scales;
};

VecSizes vec_sizes(const char* op, c10::IntArrayRef input_size, at::OptionalIntArrayRef output_size,
                   c10::optional<c10::ArrayRef<double>> scale_factors, size_t spatial) {
  TORCH_CHECK(output_size.has_value() != scale_factors.has_value(), op,
              ": must specify exactly one of output_size and scale_factors");
  VecSizes v{{}, std::vector<c10::optional<double>>(spatial)};
  if (output_size) {
    v.output.assign(output_size->begin(), output_size->end());
    return v;
  }
  TORCH_CHECK(scale_factors->size() == spatial, op, ": expected ", spatial,
              " scale factors, got ", scale_factors->size());
  for (size_t i = 0; i < spatial; ++i) {
    v.output.push_back(static_cast<int64_t>(static_cast<double>(input_size[i + 2]) *
                                            (*scale_factors)[i]));
    v.scales[i] = (*scale_factors)[i];
  }
  return v;
}

}  // namespace

at::Tensor upsample_nearest3d_vec(const at::Tensor& input, at::OptionalIntArrayRef output_size,
                                  c10::optional<c10::ArrayRef<double>> scale_factors) {
  const VecSizes v = vec_sizes("upsample_nearest3d", input.sizes(), output_size, scale_factors, 3);
  return upsample_nearest3d(input, v.output, v.scales[0], v.scales[1], v.scales[2]);
}

at::Tensor upsample_nearest3d_backward_vec(const at::Tensor& grad_output,
                                           at::OptionalIntArrayRef output_size,
                                           c10::IntArrayRef input_size,
                                           c10::optional<c10::ArrayRef<double>> scale_factors) {
  const VecSizes v =
      vec_sizes("upsample_nearest3d_backward", input_size, output_size, scale_factors, 3);
  return upsample_nearest3d_backward(grad_output, v.output, input_size, v.scales[0], v.scales[1],
                                     v.scales[2]);
}

// F.max_unpool1d reaches the device as max_unpool2d. stride and padding only shape the output
// size, which the caller already derived.
at::Tensor max_unpool2d(const at::Tensor& self, const at::Tensor& indices,
                        at::IntArrayRef output_size) {
  Call c("max_unpool2d", {&self, &indices});
  return c.result(lazygen::max_unpool2d(c.arg(self), c.arg(indices), c.arg(output_size)));
}

at::Tensor max_unpool3d(const at::Tensor& self, const at::Tensor& indices,
                        at::IntArrayRef output_size, at::IntArrayRef stride,
                        at::IntArrayRef padding) {
  TORCH_CHECK(
      stride.size() == 3 && padding.size() == 3,
      "There should be exactly three elements (depth, height, width) in stride and padding");
  TORCH_CHECK(stride[0] > 0 && stride[1] > 0 && stride[2] > 0,
              "strides should be greater than zero, but got stride: ", stride);
  Call c("max_unpool3d", {&self, &indices});
  return c.result(lazygen::max_unpool3d(c.arg(self), c.arg(indices), c.arg(output_size)));
}

}  // namespace lazygen::pytorch::adapters
