// The host side of the eager CUDA pointwise kernels (eager_kernels.h).
#include "backend/cuda/eager/eager_kernels.h"

#include <string>

#include "backend/cuda/memory/cuda_memory.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/shape.h"

namespace lazygen::cuda {
namespace {

// Element strides of `in` seen through out's sizes (right-aligned, 0 where it broadcasts).
void broadcast_strides(const char* op, const Tensor& in, const std::vector<int64_t>& out_sizes,
                       int64_t* strides) {
  const int64_t ndim = static_cast<int64_t>(out_sizes.size());
  const int64_t lead = ndim - in.dim();
  if (lead < 0) {
    throw ShapeError(op, "input of sizes " + sizes_str(in.sizes()) + " does not broadcast to " +
                             sizes_str(out_sizes));
  }
  for (int64_t d = 0; d < ndim; ++d) {
    if (d < lead) {
      strides[d] = 0;
      continue;
    }
    const int64_t size = in.sizes()[d - lead];
    if (size != out_sizes[d] && size != 1) {
      throw ShapeError(op, "input of sizes " + sizes_str(in.sizes()) + " does not broadcast to " +
                               sizes_str(out_sizes));
    }
    strides[d] = size == out_sizes[d] ? in.strides()[d - lead] : 0;
  }
}

void check_counts(const char* op, size_t inputs, size_t scalars, int64_t ndim) {
  if (inputs > kMaxPointwiseInputs || scalars > kMaxPointwiseScalars || ndim > kMaxPointwiseDims) {
    throw ShapeError(op, "the CUDA pointwise kernel takes at most " +
                             std::to_string(kMaxPointwiseInputs) + " tensors, " +
                             std::to_string(kMaxPointwiseScalars) + " scalars and " +
                             std::to_string(kMaxPointwiseDims) + " dims");
  }
}

}  // namespace

Tensor empty_device(const std::vector<int64_t>& sizes, DType dtype, Device device) {
  int64_t numel = 1;
  for (int64_t s : sizes) {
    if (s < 0) throw ShapeError("empty", "negative size in " + sizes_str(sizes));
    numel *= s;
  }
  auto storage = allocate_storage(static_cast<size_t>(numel) * itemsize(dtype), device);
  return Tensor(
      std::make_shared<TensorImpl>(std::move(storage), sizes, contiguous_strides(sizes), 0, dtype));
}

PointwiseArgs pointwise_args(const char* op, const Tensor& out, std::span<const Tensor> inputs,
                             std::span<const Scalar> scalars, DType compute) {
  check_counts(op, inputs.size(), scalars.size(), out.dim());
  PointwiseArgs a;
  a.out = out.numel() == 0 ? nullptr : out.raw_data();
  a.out_dtype = out.dtype();
  a.compute = compute;
  a.numel = out.numel();
  a.ndim = static_cast<int>(out.dim());
  a.num_inputs = static_cast<int>(inputs.size());
  bool dense = out.is_contiguous() && out.dtype() == compute;
  for (int d = 0; d < a.ndim; ++d) {
    a.sizes[d] = out.sizes()[d];
    a.out_strides[d] = out.strides()[d];
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Tensor& in = inputs[k];
    broadcast_strides(op, in, out.sizes(), a.in_strides[k]);
    a.in[k] = in.numel() == 0 ? nullptr : in.raw_data();
    a.in_dtype[k] = in.dtype();
    dense = dense && in.sizes() == out.sizes() && in.is_contiguous() && in.dtype() == compute;
  }
  for (size_t j = 0; j < scalars.size(); ++j) a.scalars[j] = scalars[j].to<double>();
  a.contiguous = dense;
  return a;
}

void require_device(const char* op, Device device, std::initializer_list<Tensor> tensors) {
  for (const Tensor& t : tensors) {
    if (t.defined() && t.device() != device) {
      throw ShapeError(op, "expected all tensors on " + device.str() + ", got " + t.device().str());
    }
  }
}

void run_pointwise(const char* op, PointwiseLaunch launch, const Tensor& out,
                   std::initializer_list<Tensor> inputs, std::initializer_list<Scalar> scalars,
                   DType compute) {
  require_device(op, out.device(), inputs);
  const PointwiseArgs args = pointwise_args(op, out, std::span(inputs.begin(), inputs.size()),
                                            std::span(scalars.begin(), scalars.size()), compute);
  if (args.numel == 0) return;
  DeviceGuard guard(out.device().index);
  launch(args, current_stream());
}

void register_eager_kernels() {
  register_pointwise_kernels();
  register_blas_kernels();
  register_reduce_kernels();
  register_conv_kernels();
  register_pool_kernels();
  register_loss_kernels();
}

}  // namespace lazygen::cuda
