// 3-d convolution and its gradients (lazygen/composite.h), from lazygen's 2-d convolution ops.
//
// Note [3-d convolution as 2-d ones]
// Output depth o of a 3-d convolution reads input depths o * sd + k * dd (k < kd) of the
// depth-padded input. For each kernel depth k, the strided slice of those depths [N, C, Do, H, W]
// folds its depths into the batch ([N * Do, C, H, W]) and convolves with the kernel's plane
// w[:, :, k] in 2-d (height and width keep their stride, padding and dilation; groups as given);
// the kd results add up and unfold back to [N, O, Do, Ho, Wo]. The gradients follow plane by
// plane: the input's is each plane's 2-d input gradient put back at its depths (slice_backward)
// and summed, the padding cut off; the weight's plane k is the 2-d weight gradient over slice k.
// A transposed 3-d convolution is the input gradient (Note [Transposed convolution] in
// pytorch/adapters/training.cpp).
// So 3-d convolutions reuse the 2-d kernels (im2col + gemm, or oneDNN) and fuse like them: kd
// 2-d convolutions over Do-fold batches.
#include <string>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/generated/ops/conv2d.h"
#include "lazygen/generated/ops/conv2d_backward_input.h"
#include "lazygen/generated/ops/conv2d_backward_weight.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/permute.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/select.h"
#include "lazygen/generated/ops/slice.h"
#include "lazygen/generated/ops/slice_backward.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/operators.h"
#include "ops/composite/spatial_args.h"

namespace lazygen {
namespace {

struct Geometry3d {
  int64_t kd, sd, pd, dd;                          // depth
  std::vector<int64_t> stride, padding, dilation;  // height and width, for conv2d
  int64_t depth_out;
};

Geometry3d geometry(const char* op, const std::vector<int64_t>& input,
                    const std::vector<int64_t>& weight, const std::vector<int64_t>& stride,
                    const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation) {
  if (input.size() != 5 || weight.size() != 5) {
    throw ShapeError(
        op, "expected a [N, C, D, H, W] input and a [O, C / groups, kd, kh, kw] weight, got " +
                sizes_str(input) + " and " + sizes_str(weight));
  }
  const auto all = [op](const std::vector<int64_t>& v, const char* name) {
    return std::vector<int64_t>{spatial_arg(op, name, v, 0, 3), spatial_arg(op, name, v, 1, 3),
                                spatial_arg(op, name, v, 2, 3)};
  };
  const std::vector<int64_t> s = all(stride, "stride"), p = all(padding, "padding"),
                             d = all(dilation, "dilation");
  Geometry3d g{weight[2], s[0], p[0], d[0], {s[1], s[2]}, {p[1], p[2]}, {d[1], d[2]}, 0};
  g.depth_out = (input[2] + 2 * g.pd - g.dd * (g.kd - 1) - 1) / g.sd + 1;
  if (g.sd <= 0 || g.dd <= 0 || g.pd < 0 || g.depth_out < 1) {
    throw ShapeError(op, "a kernel depth of " + std::to_string(g.kd) + " does not fit input " +
                             sizes_str(input) + " with stride " + sizes_str(s) + ", padding " +
                             sizes_str(p) + " and dilation " + sizes_str(d));
  }
  return g;
}

// [N, C, D, H, W] -> [N * D, C, H, W].
Tensor fold_depth(const Tensor& x) {
  return reshape(permute(x, {0, 2, 1, 3, 4}), {-1, x.size(1), x.size(3), x.size(4)});
}

// The depths kernel depth k reads, [N, C, Do, H, W] -> [N * Do, C, H, W].
Tensor depth_slice(const Tensor& padded, const Geometry3d& g, int64_t k) {
  return fold_depth(slice(padded, 2, k * g.dd, k * g.dd + (g.depth_out - 1) * g.sd + 1, g.sd));
}

// [N * Do, C, H, W] -> [N, C, Do, H, W].
Tensor unfold_depth(const Tensor& x, int64_t n, int64_t depth) {
  return permute(reshape(x, {n, depth, x.size(1), x.size(2), x.size(3)}), {0, 2, 1, 3, 4});
}

Tensor pad_depth(const Tensor& x, int64_t pd) {
  return pd == 0 ? x : constant_pad_nd(x, {0, 0, 0, 0, pd, pd});
}

}  // namespace

Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
              const std::vector<int64_t>& dilation, int64_t groups) {
  const Geometry3d g = geometry("conv3d", input.sizes(), weight.sizes(), stride, padding, dilation);
  const Tensor padded = pad_depth(input, g.pd);
  Tensor out;
  for (int64_t k = 0; k < g.kd; ++k) {
    const Tensor part = conv2d(depth_slice(padded, g, k), select(weight, 2, k), std::nullopt,
                               g.stride, g.padding, g.dilation, groups);
    out = out.defined() ? out + part : part;
  }
  out = unfold_depth(out, input.size(0), g.depth_out);
  return bias ? out + reshape(*bias, {1, -1, 1, 1, 1}) : out;
}

Tensor conv3d_backward_input(const Tensor& grad_output, const std::vector<int64_t>& input_sizes,
                             const Tensor& weight, const std::vector<int64_t>& stride,
                             const std::vector<int64_t>& padding,
                             const std::vector<int64_t>& dilation, int64_t groups) {
  const Geometry3d g =
      geometry("conv3d_backward_input", input_sizes, weight.sizes(), stride, padding, dilation);
  const int64_t n = input_sizes[0];
  const Tensor grad = fold_depth(grad_output);
  const std::vector<int64_t> plane_input = {n * g.depth_out, input_sizes[1], input_sizes[3],
                                            input_sizes[4]};
  std::vector<int64_t> padded = input_sizes;
  padded[2] += 2 * g.pd;
  Tensor grad_input;
  for (int64_t k = 0; k < g.kd; ++k) {
    const Tensor part = unfold_depth(conv2d_backward_input(grad, select(weight, 2, k), plane_input,
                                                           g.stride, g.padding, g.dilation, groups),
                                     n, g.depth_out);
    const Tensor placed =
        slice_backward(part, padded, 2, k * g.dd, k * g.dd + (g.depth_out - 1) * g.sd + 1, g.sd);
    grad_input = grad_input.defined() ? grad_input + placed : placed;
  }
  return narrow(grad_input, 2, g.pd, input_sizes[2]);
}

Tensor conv3d_backward_weight(const Tensor& grad_output, const Tensor& input,
                              const std::vector<int64_t>& weight_sizes,
                              const std::vector<int64_t>& stride,
                              const std::vector<int64_t>& padding,
                              const std::vector<int64_t>& dilation, int64_t groups) {
  const Geometry3d g =
      geometry("conv3d_backward_weight", input.sizes(), weight_sizes, stride, padding, dilation);
  const Tensor grad = fold_depth(grad_output);
  const Tensor padded = pad_depth(input, g.pd);
  const std::vector<int64_t> plane = {weight_sizes[0], weight_sizes[1], weight_sizes[3],
                                      weight_sizes[4]};
  std::vector<Tensor> planes;
  for (int64_t k = 0; k < g.kd; ++k) {
    planes.push_back(conv2d_backward_weight(grad, depth_slice(padded, g, k), plane, g.stride,
                                            g.padding, g.dilation, groups));
  }
  return stack(planes, 2);
}

std::tuple<Tensor, Tensor, Tensor> conv3d_backward(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight,
    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
    const std::vector<int64_t>& dilation, int64_t groups, std::array<bool, 3> output_mask) {
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    grad_input = conv3d_backward_input(grad_output, input.sizes(), weight, stride, padding,
                                       dilation, groups);
  }
  if (output_mask[1]) {
    grad_weight = conv3d_backward_weight(grad_output, input, weight.sizes(), stride, padding,
                                         dilation, groups);
  }
  if (output_mask[2]) grad_bias = sum(grad_output, std::vector<int64_t>{0, 2, 3, 4});
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace lazygen
