// The eager CUDA _log_softmax, _log_softmax_backward_data, nll_loss, nll_loss_backward and
// _dropout_mask (eager_kernels.h): the cpu kernels' shape functions, dtype rules and errors
// (ops/cpu/softmax.cpp, loss.cpp, dropout.cpp), the math in softmax.cu and loss.cu.
#include <stdexcept>
#include <string>

#include "backend/cuda/eager/eager_kernels.h"
#include "backend/cuda/eager/first_bad.h"
#include "backend/cuda/eager/training_args.h"
#include "backend/cuda/memory/cuda_memory.h"
#include "core/dispatch.h"
#include "lazygen/generated/shapes/_dropout_mask.h"
#include "lazygen/generated/shapes/_log_softmax_backward_data.h"
#include "lazygen/generated/shapes/nll_loss.h"
#include "lazygen/generated/shapes/nll_loss_backward.h"
#include "ops/shape/training_shapes.h"

namespace lazygen::cuda {
namespace {

// sizes seen as [outer, n, inner] around dim d (d < 0: all ones, for a 0-dim tensor).
SoftmaxArgs softmax_args(const std::vector<int64_t>& sizes, int64_t d) {
  SoftmaxArgs a;
  for (int64_t i = 0; i < static_cast<int64_t>(sizes.size()); ++i) {
    (i < d ? a.outer : i == d ? a.n : a.inner) *= sizes[static_cast<size_t>(i)];
  }
  return a;
}

Tensor _log_softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  constexpr const char* kOp = "_log_softmax";
  if (half_to_float) {
    throw ShapeError(kOp, "half_to_float=True needs a float16 input, which lazygen does not have");
  }
  const int64_t d = wrap_dim(kOp, dim, self.dim());
  const Tensor x = self.to(to_floating(self.dtype())).contiguous();
  Tensor out = empty_device(self.sizes(), x.dtype(), self.device());
  DeviceGuard guard(self.device().index);
  launch_log_softmax(softmax_args(x.sizes(), d), x.dtype(), x.raw_data(), out.raw_data(),
                     current_stream());
  return out;
}

Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  DType input_dtype) {
  constexpr const char* kOp = "_log_softmax_backward_data";
  const Shape shape = compute_shape__log_softmax_backward_data(grad_output.shape(), output.shape(),
                                                               dim, input_dtype)[0];
  const int64_t d = wrap_dim(kOp, dim, std::max<int64_t>(grad_output.dim(), 1));
  const Tensor dy = grad_output.contiguous(), y = output.contiguous();
  Tensor out = empty_device(shape.sizes, dy.dtype(), grad_output.device());
  DeviceGuard guard(grad_output.device().index);
  launch_log_softmax_backward(softmax_args(shape.sizes, grad_output.dim() == 0 ? -1 : d),
                              dy.dtype(), dy.raw_data(), y.raw_data(), out.raw_data(),
                              current_stream());
  return out;  // grad_output's dtype (the shape function's), as PyTorch 1.13 returns
}

// nll_loss's launch arguments and contiguous operands (weight undefined when absent).
struct NllOperands {
  Tensor self, target, weight;
  NllArgs args;

  NllOperands(const Tensor& s, const Tensor& t, const std::optional<Tensor>& w, int64_t reduction,
              int64_t ignore_index)
      : self(s.contiguous()), target(t.contiguous()) {
    if (w && w->defined()) weight = w->contiguous();
    args = {s.dim() == 2 ? s.size(0) : 1, s.size(-1), reduction, ignore_index};
  }
  const void* weight_data() const { return weight.defined() ? weight.raw_data() : nullptr; }
};

// Throws std::out_of_range (the cpu's message) when the kernels reported a bad target.
void check_targets(const char* op, const FirstBad& bad, const NllOperands& v) {
  if (const std::optional<int64_t> pos = bad.read()) {
    throw std::out_of_range(std::string(op) + ": target " +
                            std::to_string(read_int64(v.target, *pos)) + " is out of bounds for " +
                            std::to_string(v.args.classes) + " classes");
  }
}

std::optional<Shape> weight_shape(const std::optional<Tensor>& weight) {
  return weight && weight->defined() ? std::optional(weight->shape()) : std::nullopt;
}

Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                int64_t reduction, int64_t ignore_index) {
  const Shape shape = compute_shape_nll_loss(self.shape(), target.shape(), weight_shape(weight),
                                             reduction, ignore_index)[0];
  Tensor out = empty_device(shape.sizes, shape.dtype, self.device());
  const NllOperands v(self, target, weight, reduction, ignore_index);
  DeviceGuard guard(self.device().index);
  const FirstBad bad(self.device());
  launch_nll_loss(v.args, shape.dtype, v.self.raw_data(), v.target.data_ptr<int64_t>(),
                  v.weight_data(), out.raw_data(), bad.slot(), current_stream());
  check_targets("nll_loss", bad, v);
  return out;
}

Tensor nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         const std::optional<Tensor>& weight, int64_t reduction,
                         int64_t ignore_index) {
  compute_shape_nll_loss_backward(grad_output.shape(), self.shape(), target.shape(),
                                  weight_shape(weight), reduction, ignore_index);
  Tensor out = empty_device(self.sizes(), self.dtype(), self.device());
  const NllOperands v(self, target, weight, reduction, ignore_index);
  const Tensor dy = grad_output.contiguous();
  DeviceGuard guard(self.device().index);
  const FirstBad bad(self.device());
  check(cudaMemsetAsync(out.raw_data(), 0, out.numel() * itemsize(out.dtype()), current_stream()),
        "cudaMemsetAsync");
  launch_nll_loss_backward(v.args, self.dtype(), dy.raw_data(), v.target.data_ptr<int64_t>(),
                           v.weight_data(), out.raw_data(), bad.slot(), current_stream());
  check_targets("nll_loss_backward", bad, v);
  return out;
}

Tensor _dropout_mask(const Tensor& self, const Scalar& p, const Scalar& seed) {
  const Shape shape = compute_shape__dropout_mask(self.shape(), p, seed)[0];
  Tensor out = empty_device(shape.sizes, shape.dtype, self.device());
  DeviceGuard guard(self.device().index);
  launch_dropout_mask(out.numel(), static_cast<uint64_t>(seed.to<int64_t>()), p.to<double>(),
                      shape.dtype, out.raw_data(), current_stream());
  return out;
}

}  // namespace

void register_loss_kernels() {
  detail::register_device_kernel(DeviceType::CUDA, "_log_softmax", &_log_softmax);
  detail::register_device_kernel(DeviceType::CUDA, "_log_softmax_backward_data",
                                 &_log_softmax_backward_data);
  detail::register_device_kernel(DeviceType::CUDA, "nll_loss", &nll_loss);
  detail::register_device_kernel(DeviceType::CUDA, "nll_loss_backward", &nll_loss_backward);
  detail::register_device_kernel(DeviceType::CUDA, "_dropout_mask", &_dropout_mask);
}

}  // namespace lazygen::cuda
