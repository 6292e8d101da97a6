// cat (custom_kernels.h): each input is copied (converted to the promoted dtype) into its slice
// of the output along dim.
#include "core/tensor/strided_loop.h"
#include "core/tensor/tensor_impl.h"
#include "ops/cpu/custom_kernels.h"
#include "ops/shape/custom_shapes.h"

namespace lazygen::cpu {

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  std::vector<Shape> shapes;
  shapes.reserve(tensors.size());
  for (const Tensor& t : tensors) shapes.push_back(t.shape());
  const Shape shape = compute_shape_cat(shapes, dim)[0];
  Tensor out = make_cpu_tensor(shape.sizes, shape.dtype);
  if (out.numel() == 0) return out;
  const int64_t d = wrap_dim("cat", dim, out.dim());
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (t.dim() == 1 && t.size(0) == 0) continue;  // skipped, as compute_shape_cat does
    std::vector<int64_t> sizes = out.sizes();
    sizes[d] = t.size(d);
    const Tensor slice = make_view(out, sizes, out.strides(), offset * out.stride(d));
    lazygen::detail::copy_into("cat", slice, t);
    offset += t.size(d);
  }
  return out;
}

}  // namespace lazygen::cpu
