// max.dim and argmax (custom_kernels.h): the value and index of the maximum along one dim.
// The first maximum wins; a NaN is the maximum (the first NaN), as in PyTorch.
#include "core/tensor/shape_rules.h"
#include "core/tensor/tensor_impl.h"
#include "core/thread_pool.h"
#include "lazygen/generated/shapes/argmax.h"
#include "lazygen/generated/shapes/max_dim.h"
#include "lazygen/kernels/pointwise_math.h"
#include "ops/cpu/custom_kernels.h"
#include "ops/cpu/reduce_plan.h"
#include "ops/shape/custom_shapes.h"

namespace lazygen::cpu {
namespace {

constexpr int64_t kWork = 32 * 1024;

// values[o] / indices[o] for each output o of reducing `x` over dim `d` (null values: skip).
template <class T>
void arg_max(const Tensor& x, int64_t d, T* values, int64_t* indices) {
  std::vector<int64_t> sizes = x.sizes(), strides = x.strides();
  const int64_t n = x.dim() ? sizes[d] : 1, stride = x.dim() ? strides[d] : 0;
  if (x.dim()) sizes[d] = 1;  // enumerate the kept dims only
  const auto offsets = detail::enumerate_offsets(sizes, strides);
  const T* base = x.data_ptr<T>();
  parallel_for(0, static_cast<int64_t>(offsets.size()), std::max<int64_t>(1, kWork / n),
               [&](int64_t b, int64_t e) {
                 for (int64_t o = b; o < e; ++o) {
                   const T* p = base + offsets[o];
                   T best = p[0];
                   int64_t at = 0;
                   for (int64_t i = 1; i < n && !kernels::isnan(best); ++i) {
                     const T v = p[i * stride];
                     if (v > best || kernels::isnan(v)) best = v, at = i;
                   }
                   if (values != nullptr) values[o] = best;
                   indices[o] = at;
                 }
               });
}

void run_arg_max(const Tensor& x, int64_t d, const Tensor* values, const Tensor& indices) {
  dispatch_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    arg_max<T>(x, d, values ? values->data_ptr<T>() : nullptr, indices.data_ptr<int64_t>());
  });
}

}  // namespace

std::tuple<Tensor, Tensor> max_dim(const Tensor& self, int64_t dim, bool keepdim) {
  const auto shapes = compute_shape_max_dim(self.shape(), dim, keepdim);
  Tensor values = make_cpu_tensor(shapes[0].sizes, shapes[0].dtype);
  Tensor indices = make_cpu_tensor(shapes[1].sizes, shapes[1].dtype);
  if (values.numel() > 0) {
    run_arg_max(self, wrap_dim("max.dim", dim, self.dim()), &values, indices);
  }
  return {values, indices};
}

Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  const Shape shape = compute_shape_argmax(self.shape(), dim, keepdim)[0];
  Tensor indices = make_cpu_tensor(shape.sizes, DType::Int64);
  if (!dim) {
    const Tensor flat = self.contiguous();
    const Tensor as_vector = make_view(flat, {flat.numel()}, {1}, flat.storage_offset());
    run_arg_max(as_vector, 0, nullptr, indices);
    return indices;
  }
  const int64_t d = wrap_dim("argmax", *dim, self.dim());
  if (indices.numel() > 0) run_arg_max(self, d, nullptr, indices);
  return indices;
}

}  // namespace lazygen::cpu
