// The eager CUDA max pooling ops max_pool2d_with_indices, max_pool2d and their backward ops
// (eager_kernels.h): shapes, validation and geometry from the cpu kernels' shape functions,
// the windows in pool.cu. max_pool2d_backward finds each window's maximum again (the forward
// kernel's indices into scratch), so it agrees with the forward on every tie and NaN.
#include <stdexcept>
#include <string>

#include "backend/cuda/eager/eager_kernels.h"
#include "backend/cuda/eager/first_bad.h"
#include "backend/cuda/eager/training_args.h"
#include "backend/cuda/memory/cuda_memory.h"
#include "core/dispatch.h"
#include "ops/shape/training_shapes.h"

namespace lazygen::cuda {
namespace {

PoolArgs pool_args(const Pool2dGeometry& g) {
  return {g.planes, g.h, g.w, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw};
}

// values (and, when defined, indices) of self's windows.
void pool_forward(const Tensor& self, const Pool2dGeometry& g, const Tensor& values,
                  const Tensor& indices) {
  if (values.numel() == 0) return;
  const Tensor x = self.contiguous();
  DeviceGuard guard(self.device().index);
  launch_max_pool(pool_args(g), x.dtype(), x.raw_data(), values.raw_data(),
                  indices.defined() ? indices.data_ptr<int64_t>() : nullptr, current_stream());
}

// Throws std::out_of_range (the cpu's message) when an index lies outside its input plane.
void check_indices(const char* op, const Pool2dGeometry& g, const Tensor& indices) {
  FirstBad bad(indices.device());
  launch_check_pool_indices(pool_args(g), indices.data_ptr<int64_t>(), bad.slot(),
                            current_stream());
  if (const std::optional<int64_t> pos = bad.read()) {
    throw std::out_of_range(
        std::string(op) + ": index " + std::to_string(read_int64(indices, *pos)) +
        " is outside an input plane of " + std::to_string(g.h * g.w) + " elements");
  }
}

// grad_input with each grad_output element added at its window's maximum: from `indices` when
// defined (checked first), else found again in self.
Tensor pool_backward(const char* op, const Tensor& grad_output, const Tensor& self,
                     const Pool2dGeometry& g, const Tensor& indices) {
  Tensor grad_input = empty_device(self.sizes(), self.dtype(), self.device());
  if (grad_input.numel() == 0) return grad_input;
  DeviceGuard guard(self.device().index);
  Tensor idx;
  if (indices.defined()) {
    idx = indices.contiguous();
    check_indices(op, g, idx);
  } else {
    idx = empty_device({g.planes, g.oh, g.ow}, DType::Int64, self.device());
    const Tensor scratch = empty_device({g.planes, g.oh, g.ow}, self.dtype(), self.device());
    pool_forward(self, g, scratch, idx);
  }
  const Tensor dy = grad_output.contiguous();
  launch_max_pool_backward(pool_args(g), self.dtype(), dy.raw_data(), idx.data_ptr<int64_t>(),
                           grad_input.raw_data(), current_stream());
  return grad_input;
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(
    const Tensor& self, const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& stride,
    const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, bool ceil_mode) {
  constexpr const char* kOp = "max_pool2d_with_indices";
  const std::vector<Shape> shapes = compute_shape_max_pool2d_with_indices(
      self.shape(), kernel_size, stride, padding, dilation, ceil_mode);
  const Pool2dGeometry g =
      pool2d_geometry(kOp, self.sizes(), kernel_size, stride, padding, dilation, ceil_mode);
  Tensor values = empty_device(shapes[0].sizes, shapes[0].dtype, self.device());
  Tensor indices = empty_device(shapes[1].sizes, shapes[1].dtype, self.device());
  pool_forward(self, g, values, indices);
  return {values, indices};
}

Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& self,
                                        const std::vector<int64_t>& kernel_size,
                                        const std::vector<int64_t>& stride,
                                        const std::vector<int64_t>& padding,
                                        const std::vector<int64_t>& dilation, bool ceil_mode,
                                        const Tensor& indices) {
  constexpr const char* kOp = "max_pool2d_with_indices_backward";
  compute_shape_max_pool2d_with_indices_backward(grad_output.shape(), self.shape(), kernel_size,
                                                 stride, padding, dilation, ceil_mode,
                                                 indices.shape());
  const Pool2dGeometry g =
      pool2d_geometry(kOp, self.sizes(), kernel_size, stride, padding, dilation, ceil_mode);
  require_device(kOp, self.device(), {grad_output, indices});
  return pool_backward(kOp, grad_output, self, g, indices);
}

Tensor max_pool2d(const Tensor& self, const std::vector<int64_t>& kernel_size,
                  const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                  const std::vector<int64_t>& dilation, bool ceil_mode) {
  const Shape shape =
      compute_shape_max_pool2d(self.shape(), kernel_size, stride, padding, dilation, ceil_mode)[0];
  const Pool2dGeometry g = pool2d_geometry("max_pool2d", self.sizes(), kernel_size, stride, padding,
                                           dilation, ceil_mode);
  Tensor values = empty_device(shape.sizes, shape.dtype, self.device());
  pool_forward(self, g, values, Tensor());
  return values;
}

Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& self,
                           const std::vector<int64_t>& kernel_size,
                           const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                           const std::vector<int64_t>& dilation, bool ceil_mode) {
  constexpr const char* kOp = "max_pool2d_backward";
  compute_shape_max_pool2d_backward(grad_output.shape(), self.shape(), kernel_size, stride, padding,
                                    dilation, ceil_mode);
  const Pool2dGeometry g =
      pool2d_geometry(kOp, self.sizes(), kernel_size, stride, padding, dilation, ceil_mode);
  require_device(kOp, self.device(), {grad_output});
  return pool_backward(kOp, grad_output, self, g, Tensor());
}

}  // namespace

void register_pool_kernels() {
  detail::register_device_kernel(DeviceType::CUDA, "max_pool2d_with_indices",
                                 &max_pool2d_with_indices);
  detail::register_device_kernel(DeviceType::CUDA, "max_pool2d_with_indices_backward",
                                 &max_pool2d_with_indices_backward);
  detail::register_device_kernel(DeviceType::CUDA, "max_pool2d", &max_pool2d);
  detail::register_device_kernel(DeviceType::CUDA, "max_pool2d_backward", &max_pool2d_backward);
}

}  // namespace lazygen::cuda
