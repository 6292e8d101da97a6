// The eager CUDA reductions sum, sum.dim_IntList, mean.dim and amax (eager_kernels.h): shapes
// and dtypes from the ops' shape functions, the reduction itself in reduce.cu over the input's own
// strides (views are not copied first).
#include <string>
#include <vector>

#include "backend/cuda/eager/eager_kernels.h"
#include "backend/cuda/eager/reduce_args.h"
#include "backend/cuda/memory/cuda_memory.h"
#include "core/dispatch.h"
#include "lazygen/generated/shapes/amax.h"
#include "lazygen/generated/shapes/mean_dim.h"
#include "lazygen/generated/shapes/sum.h"
#include "lazygen/generated/shapes/sum_dim_intlist.h"
#include "lazygen/shape.h"

namespace lazygen::cuda {
namespace {

// Which dims of a rank-`rank` tensor `dims` reduces; none given (or an empty list) means all.
std::vector<bool> reduced_dims(const char* op, const std::optional<std::vector<int64_t>>& dims,
                               int64_t rank) {
  std::vector<bool> reduced(static_cast<size_t>(rank), !dims || dims->empty());
  if (dims) {
    for (int64_t d : *dims) reduced[static_cast<size_t>(wrap_dim(op, d, rank))] = true;
  }
  return reduced;
}

ReduceArgs reduce_args(const char* op, const Tensor& self, const std::vector<bool>& reduced,
                       const Tensor& out, bool mean, bool max = false) {
  ReduceArgs a;
  a.in = self.numel() == 0 ? nullptr : self.raw_data();
  a.in_dtype = self.dtype();
  a.out = out.raw_data();
  a.out_dtype = out.dtype();
  a.out_numel = out.numel();
  a.mean = mean;
  a.max = max;
  for (int64_t d = 0; d < self.dim(); ++d) {
    const bool r = reduced[static_cast<size_t>(d)];
    int& n = r ? a.reduced_ndim : a.kept_ndim;
    if (n == kMaxReduceDims) throw ShapeError(op, "the CUDA reduction takes at most 8 dims");
    (r ? a.reduced_sizes : a.kept_sizes)[n] = self.size(d);
    (r ? a.reduced_strides : a.kept_strides)[n] = self.stride(d);
    if (r) a.reduced_numel *= self.size(d);
    ++n;
  }
  return a;
}

Tensor reduce(const char* op, const Tensor& self, const std::optional<std::vector<int64_t>>& dims,
              const Shape& shape, bool mean) {
  Tensor out = empty_device(shape.sizes, shape.dtype, self.device());
  if (out.numel() == 0) return out;
  const ReduceArgs args = reduce_args(op, self, reduced_dims(op, dims, self.dim()), out, mean);
  DeviceGuard guard(self.device().index);
  launch_reduce_sum(args, current_stream());
  return out;
}

Tensor sum(const Tensor& self, std::optional<DType> dtype) {
  return reduce("sum", self, std::nullopt, compute_shape_sum(self.shape(), dtype)[0], false);
}

Tensor sum_dim_intlist(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                       bool keepdim, std::optional<DType> dtype) {
  const Shape shape = compute_shape_sum_dim_intlist(self.shape(), dim, keepdim, dtype)[0];
  return reduce("sum.dim_IntList", self, dim, shape, false);
}

Tensor mean_dim(const Tensor& self, const std::optional<std::vector<int64_t>>& dim, bool keepdim,
                std::optional<DType> dtype) {
  const Shape shape = compute_shape_mean_dim(self.shape(), dim, keepdim, dtype)[0];
  return reduce("mean.dim", self, dim, shape, true);
}

// The cpu amax's checks: a reduced dim of size 0 has no maximum.
Tensor amax(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim) {
  const Shape shape = compute_shape_amax(self.shape(), dim, keepdim)[0];
  const std::vector<bool> reduced = reduced_dims("amax", dim, self.dim());
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (reduced[static_cast<size_t>(d)] && self.size(d) == 0) {
      throw ShapeError("amax",
                       "expected reduction dim " + std::to_string(d) + " to have non-zero size");
    }
  }
  Tensor out = empty_device(shape.sizes, shape.dtype, self.device());
  if (out.numel() == 0) return out;
  const ReduceArgs args = reduce_args("amax", self, reduced, out, false, true);
  DeviceGuard guard(self.device().index);
  launch_reduce_sum(args, current_stream());
  return out;
}

}  // namespace

void register_reduce_kernels() {
  detail::register_device_kernel(DeviceType::CUDA, "sum", &sum);
  detail::register_device_kernel(DeviceType::CUDA, "sum.dim_IntList", &sum_dim_intlist);
  detail::register_device_kernel(DeviceType::CUDA, "mean.dim", &mean_dim);
  detail::register_device_kernel(DeviceType::CUDA, "amax", &amax);
}

}  // namespace lazygen::cuda
