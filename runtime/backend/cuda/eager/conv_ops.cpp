// The eager CUDA convolutions conv2d, conv2d_backward_input and conv2d_backward_weight
// (eager_kernels.h): shapes and validation from the cpu kernels' shape functions and geometry,
// then conv_plan.h's composition of the element kernels of conv.cu and cuBLAS gemms (blas.h).
// float32 (FP32 math) and float64, as on the cpu; any layout (operands are made contiguous).
#include <string>

#include "backend/cuda/eager/conv_plan.h"
#include "backend/cuda/eager/eager_kernels.h"
#include "backend/cuda/eager/reduce_args.h"
#include "backend/cuda/memory/cuda_memory.h"
#include "core/dispatch.h"
#include "lazygen/factory.h"
#include "ops/shape/training_shapes.h"

namespace lazygen::cuda {
namespace {

// conv_plan.h's steps on the current device, one dtype.
struct DeviceSteps {
  const char* op;
  DType dtype;
  int device;

  void im2col(const ConvArgs& a, const void* x, void* col) const {
    launch_im2col(a, dtype, x, col, current_stream());
  }
  void col2im(const ConvArgs& a, const void* col, void* dx) const {
    launch_col2im(a, dtype, col, dx, current_stream());
  }
  void fill_bias(int64_t samples, int64_t channels, int64_t plane, const void* bias,
                 void* y) const {
    launch_fill_bias(samples, channels, plane, dtype, bias, y, current_stream());
  }
  void gemm(const BatchedGemm& g, const void* a, const void* b, void* c, double alpha,
            double beta) const {
    gemm_batched(op, g, dtype, a, b, c, alpha, beta, device);
  }
  // out[j] = the sum over s of partial[s, j], with reduce.cu (a fixed order per output).
  void sum_samples(const void* partial, int64_t samples, int64_t size, void* out) const {
    if (size == 0) return;
    ReduceArgs a;
    a.in = partial, a.in_dtype = dtype, a.out = out, a.out_dtype = dtype, a.out_numel = size;
    a.kept_ndim = 1, a.kept_sizes[0] = size, a.kept_strides[0] = 1;
    a.reduced_ndim = 1, a.reduced_sizes[0] = samples, a.reduced_strides[0] = size;
    a.reduced_numel = samples;
    launch_reduce_sum(a, current_stream());
  }
};

// A scratch column matrix for `chunk` samples (empty for a 1x1 kernel).
Tensor column_buffer(const Conv2dGeometry& g, int64_t chunk, DType dtype, Device device) {
  const int64_t elements = conv_is_pointwise(g) ? 0 : chunk * g.c * g.kh * g.kw * g.col_cols();
  return empty_device({elements}, dtype, device);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
              const std::vector<int64_t>& dilation, int64_t groups) {
  constexpr const char* kOp = "conv2d";
  const bool has_bias = bias && bias->defined();
  const Shape shape = compute_shape_conv2d(input.shape(), weight.shape(),
                                           has_bias ? bias->shape() : std::optional<Shape>(),
                                           stride, padding, dilation, groups)[0];
  const Conv2dGeometry g =
      conv2d_geometry(kOp, input.sizes(), weight.sizes(), stride, padding, dilation, groups);
  require_device(kOp, input.device(), {weight, has_bias ? *bias : Tensor()});
  if (!is_floating(shape.dtype)) {  // cuBLAS has no integer gemm; nor has PyTorch's CUDA conv
    throw ShapeError(kOp, "not implemented for " + std::string(dtype_name(shape.dtype)) +
                              " tensors on cuda (it takes float32, float64)");
  }
  Tensor out = empty_device(shape.sizes, shape.dtype, input.device());
  if (out.numel() == 0) return out;
  const Tensor x = input.contiguous(), w = weight.contiguous();
  const Tensor b = has_bias ? bias->contiguous() : Tensor();
  const int64_t chunk = conv_chunk_samples(g);
  const Tensor col = column_buffer(g, chunk, shape.dtype, input.device());
  DeviceGuard guard(input.device().index);
  DeviceSteps steps{kOp, shape.dtype, input.device().index};
  conv_forward(steps, g, chunk, itemsize(shape.dtype), x.raw_data(), w.raw_data(),
               has_bias ? b.raw_data() : nullptr, out.raw_data(), col.raw_data());
  return out;
}

Tensor conv2d_backward_input(const Tensor& grad_output, const Tensor& weight,
                             const std::vector<int64_t>& input_size,
                             const std::vector<int64_t>& stride,
                             const std::vector<int64_t>& padding,
                             const std::vector<int64_t>& dilation, int64_t groups) {
  constexpr const char* kOp = "conv2d_backward_input";
  const Shape shape = compute_shape_conv2d_backward_input(
      grad_output.shape(), weight.shape(), input_size, stride, padding, dilation, groups)[0];
  const Conv2dGeometry g =
      conv2d_geometry(kOp, input_size, weight.sizes(), stride, padding, dilation, groups);
  require_device(kOp, grad_output.device(), {weight});
  Tensor out = empty_device(shape.sizes, shape.dtype, grad_output.device());
  if (out.numel() == 0) return out;
  const Tensor dy = grad_output.contiguous(), w = weight.contiguous();
  const int64_t chunk = conv_chunk_samples(g);
  const Tensor col = column_buffer(g, chunk, shape.dtype, grad_output.device());
  DeviceGuard guard(grad_output.device().index);
  DeviceSteps steps{kOp, shape.dtype, grad_output.device().index};
  conv_backward_input(steps, g, chunk, itemsize(shape.dtype), dy.raw_data(), w.raw_data(),
                      out.raw_data(), col.raw_data());
  return out;
}

Tensor conv2d_backward_weight(const Tensor& grad_output, const Tensor& input,
                              const std::vector<int64_t>& weight_size,
                              const std::vector<int64_t>& stride,
                              const std::vector<int64_t>& padding,
                              const std::vector<int64_t>& dilation, int64_t groups) {
  constexpr const char* kOp = "conv2d_backward_weight";
  const Shape shape = compute_shape_conv2d_backward_weight(
      grad_output.shape(), input.shape(), weight_size, stride, padding, dilation, groups)[0];
  const Conv2dGeometry g =
      conv2d_geometry(kOp, input.sizes(), weight_size, stride, padding, dilation, groups);
  require_device(kOp, grad_output.device(), {input});
  const Device device = grad_output.device();
  Tensor out = empty_device(shape.sizes, shape.dtype, device);
  if (out.numel() == 0) return out;
  if (g.n == 0) return zeros(shape.sizes, shape.dtype, device);
  const Tensor dy = grad_output.contiguous(), x = input.contiguous();
  const int64_t chunk = conv_chunk_samples(g);
  const Tensor col = column_buffer(g, chunk, shape.dtype, device);
  const Tensor partial = empty_device({g.n, out.numel()}, shape.dtype, device);
  DeviceGuard guard(device.index);
  DeviceSteps steps{kOp, shape.dtype, device.index};
  conv_backward_weight(steps, g, chunk, itemsize(shape.dtype), dy.raw_data(), x.raw_data(),
                       out.raw_data(), partial.raw_data(), col.raw_data());
  return out;
}

}  // namespace

void register_conv_kernels() {
  lazygen::detail::register_device_kernel(DeviceType::CUDA, "conv2d", &conv2d);
  lazygen::detail::register_device_kernel(DeviceType::CUDA, "conv2d_backward_input",
                                          &conv2d_backward_input);
  lazygen::detail::register_device_kernel(DeviceType::CUDA, "conv2d_backward_weight",
                                          &conv2d_backward_weight);
}

}  // namespace lazygen::cuda
