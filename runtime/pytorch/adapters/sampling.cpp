// Adapters for PyTorch's grid sampling, 3-d and adaptive 2-d max pooling (with their backward ops)
// and view_copy
// with a dtype (ops.yaml, "PyTorch adapters"), served by lazygen's composites (lazygen/composite.h:
// Note [Grid sampling by gather], Note [Pooling by gather]). Bicubic grid sampling, which lazygen
// does not implement, runs on the CPU.
#include <array>

#include "lazygen/autograd.h"
#include "lazygen/composite.h"
#include "lazygen/generated/torch_adapters.h"
#include "pytorch/call.h"
#include "pytorch/fallback.h"

namespace lazygen::pytorch::adapters {
namespace {

constexpr int64_t kBicubic = 2;

}  // namespace

at::Tensor grid_sampler_2d(const at::Tensor& input, const at::Tensor& grid,
                           int64_t interpolation_mode, int64_t padding_mode, bool align_corners) {
  if (interpolation_mode == kBicubic) {
    static const c10::OperatorHandle op = aten_op("aten::grid_sampler_2d");
    return call_on_cpu<at::Tensor>(op, input, grid, interpolation_mode, padding_mode,
                                   align_corners);
  }
  Call c("grid_sampler_2d", {&input, &grid});
  return c.result(lazygen::grid_sampler_2d(c.arg(input), c.arg(grid), interpolation_mode,
                                           padding_mode, align_corners));
}

// The gradients of lazygen's grid_sampler_2d composite, by lazygen's autograd over fresh leaves
// (the composite's ops are differentiable in input and grid).
::std::tuple<at::Tensor, at::Tensor> grid_sampler_2d_backward(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& grid,
    int64_t interpolation_mode, int64_t padding_mode, bool align_corners,
    ::std::array<bool, 2> output_mask) {
  if (interpolation_mode == kBicubic) {
    static const c10::OperatorHandle op = aten_op("aten::grid_sampler_2d_backward");
    return call_on_cpu<::std::tuple<at::Tensor, at::Tensor>>(
        op, grad_output, input, grid, interpolation_mode, padding_mode, align_corners, output_mask);
  }
  Call c("grid_sampler_2d_backward", {&grad_output, &input, &grid});
  Tensor x = c.arg(input).detach(), g = c.arg(grid).detach();
  x.requires_grad_(output_mask[0]);
  g.requires_grad_(output_mask[1]);
  if (!output_mask[0] && !output_mask[1]) return {at::Tensor(), at::Tensor()};
  lazygen::grid_sampler_2d(x, g, interpolation_mode, padding_mode, align_corners)
      .backward(c.arg(grad_output));
  return {output_mask[0] ? c.result(x.grad()) : at::Tensor(),
          output_mask[1] ? c.result(g.grad()) : at::Tensor()};
}

::std::tuple<at::Tensor, at::Tensor> max_pool3d_with_indices(
    const at::Tensor& self, c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
    c10::IntArrayRef padding, c10::IntArrayRef dilation, bool ceil_mode) {
  Call c("max_pool3d_with_indices", {&self});
  return c.result(lazygen::max_pool3d_with_indices(c.arg(self), c.arg(kernel_size), c.arg(stride),
                                                   c.arg(padding), c.arg(dilation), ceil_mode));
}

at::Tensor max_pool3d_with_indices_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                            c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
                                            c10::IntArrayRef padding, c10::IntArrayRef dilation,
                                            bool ceil_mode, const at::Tensor& indices) {
  Call c("max_pool3d_with_indices_backward", {&grad_output, &self, &indices});
  return c.result(lazygen::max_pool3d_with_indices_backward(
      c.arg(grad_output), c.arg(self), c.arg(kernel_size), c.arg(stride), c.arg(padding),
      c.arg(dilation), ceil_mode, c.arg(indices)));
}

::std::tuple<at::Tensor, at::Tensor> adaptive_max_pool2d(const at::Tensor& self,
                                                         c10::IntArrayRef output_size) {
  Call c("adaptive_max_pool2d", {&self});
  return c.result(lazygen::adaptive_max_pool2d(c.arg(self), c.arg(output_size)));
}

at::Tensor adaptive_max_pool2d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                        const at::Tensor& indices) {
  Call c("adaptive_max_pool2d_backward", {&grad_output, &self, &indices});
  return c.result(
      lazygen::adaptive_max_pool2d_backward(c.arg(grad_output), c.arg(self), c.arg(indices)));
}

at::Tensor view_copy_dtype(const at::Tensor& self, at::ScalarType dtype) {
  Call c("view_copy.dtype", {&self});
  return c.result(lazygen::view_copy(c.arg(self), c.arg(dtype)));
}

}  // namespace lazygen::pytorch::adapters
