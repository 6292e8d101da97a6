// The view kernels: new TensorImpls over self's storage (custom_kernels.h). Sizes come from the
// shape functions (ops/shape/view_shapes.cpp); this file derives strides and offsets. reshape and
// flatten copy when no strides fit.
#include <optional>

#include "core/tensor/tensor_impl.h"
#include "ops/cpu/custom_kernels.h"
#include "ops/shape/custom_shapes.h"

namespace lazygen::cpu {
namespace {

// PyTorch's computeStride: strides that let `new_sizes` view memory laid out as (sizes,
// strides), or nullopt when a new dim would span two non-contiguous chunks.
std::optional<std::vector<int64_t>> view_strides(const std::vector<int64_t>& sizes,
                                                 const std::vector<int64_t>& strides,
                                                 const std::vector<int64_t>& new_sizes) {
  if (sizes.empty()) return std::vector<int64_t>(new_sizes.size(), 1);
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0) return contiguous_strides(new_sizes);
  std::vector<int64_t> out(new_sizes.size());
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_stride = strides.back(), tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    // A chunk ends where the next outer dim does not continue it contiguously.
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        out[view_d] = view_numel * chunk_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_stride = strides[d - 1];
        tensor_numel = view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

std::vector<int64_t> erased(std::vector<int64_t> v, int64_t i) {
  v.erase(v.begin() + i);
  return v;
}

// self with `sizes` (same element count): a view when the strides allow, else a contiguous
// copy, as PyTorch's reshape. The same sizes keep self's strides.
Tensor reshaped(const Tensor& self, const std::vector<int64_t>& sizes) {
  if (sizes == self.sizes()) return make_view(self, sizes, self.strides(), self.storage_offset());
  if (auto strides = view_strides(self.sizes(), self.strides(), sizes)) {
    return make_view(self, sizes, std::move(*strides), self.storage_offset());
  }
  const Tensor copy = self.clone();
  return make_view(copy, sizes, contiguous_strides(sizes), copy.storage_offset());
}

}  // namespace

Tensor view(const Tensor& self, const std::vector<int64_t>& size) {
  const Shape shape = compute_shape_view(self.shape(), size)[0];
  auto strides = view_strides(self.sizes(), self.strides(), shape.sizes);
  if (!strides) {
    throw ShapeError("view", "view size " + sizes_str(shape.sizes) +
                                 " is not compatible with input tensor's size " +
                                 sizes_str(self.sizes()) + " and stride " +
                                 sizes_str(self.strides()) +
                                 " (at least one dimension spans across two contiguous "
                                 "subspaces); copy with contiguous() first");
  }
  return make_view(self, shape.sizes, std::move(*strides), self.storage_offset());
}

Tensor reshape(const Tensor& self, const std::vector<int64_t>& shape) {
  return reshaped(self, compute_shape_reshape(self.shape(), shape)[0].sizes);
}

Tensor flatten_using_ints(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  return reshaped(self,
                  compute_shape_flatten_using_ints(self.shape(), start_dim, end_dim)[0].sizes);
}

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  const Shape shape = compute_shape_narrow(self.shape(), dim, start, length)[0];
  const int64_t d = wrap_dim("narrow", dim, self.dim());
  if (start < 0) start += self.size(d);
  const int64_t offset = self.storage_offset() + start * self.stride(d);
  return make_view(self, shape.sizes, self.strides(), offset);
}

Tensor permute(const Tensor& self, const std::vector<int64_t>& dims) {
  const Shape shape = compute_shape_permute(self.shape(), dims)[0];
  std::vector<int64_t> strides(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    strides[i] = self.strides()[static_cast<size_t>(wrap_dim("permute", dims[i], self.dim()))];
  }
  return make_view(self, shape.sizes, std::move(strides), self.storage_offset());
}

Tensor transpose_int(const Tensor& self, int64_t dim0, int64_t dim1) {
  const Shape shape = compute_shape_transpose_int(self.shape(), dim0, dim1)[0];
  std::vector<int64_t> strides = self.strides();
  if (self.dim() > 0) {
    std::swap(strides[wrap_dim("transpose.int", dim0, self.dim())],
              strides[wrap_dim("transpose.int", dim1, self.dim())]);
  }
  return make_view(self, shape.sizes, std::move(strides), self.storage_offset());
}

Tensor t(const Tensor& self) {
  compute_shape_t(self.shape());
  return self.dim() < 2 ? transpose_int(self, 0, 0) : transpose_int(self, 0, 1);
}

Tensor expand(const Tensor& self, const std::vector<int64_t>& size, bool implicit) {
  const Shape shape = compute_shape_expand(self.shape(), size, implicit)[0];
  const int64_t lead = shape.dim() - self.dim();
  std::vector<int64_t> strides(shape.sizes.size(), 0);
  for (int64_t i = lead; i < shape.dim(); ++i) {
    // Grown dims (and new leading ones) repeat one element: stride 0.
    if (self.sizes()[i - lead] == shape.sizes[i]) strides[i] = self.strides()[i - lead];
  }
  return make_view(self, shape.sizes, std::move(strides), self.storage_offset());
}

Tensor slice_tensor(const Tensor& self, int64_t dim, std::optional<int64_t> start,
                    std::optional<int64_t> end, int64_t step) {
  const Shape shape = compute_shape_slice_tensor(self.shape(), dim, start, end, step)[0];
  const int64_t d = wrap_dim("slice.Tensor", dim, self.dim());
  const SliceRange range = slice_range("slice.Tensor", self.size(d), start, end, step);
  std::vector<int64_t> strides = self.strides();
  const int64_t offset = self.storage_offset() + range.start * strides[d];
  strides[d] *= step;
  return make_view(self, shape.sizes, std::move(strides), offset);
}

Tensor select_int(const Tensor& self, int64_t dim, int64_t index) {
  const Shape shape = compute_shape_select_int(self.shape(), dim, index)[0];
  const int64_t d = wrap_dim("select.int", dim, self.dim());
  if (index < 0) index += self.size(d);
  const int64_t offset = self.storage_offset() + index * self.stride(d);
  return make_view(self, shape.sizes, erased(self.strides(), d), offset);
}

Tensor squeeze_dim(const Tensor& self, int64_t dim) {
  const Shape shape = compute_shape_squeeze_dim(self.shape(), dim)[0];
  if (shape.dim() == self.dim())
    return make_view(self, self.sizes(), self.strides(), self.storage_offset());
  const int64_t d = wrap_dim("squeeze.dim", dim, self.dim());
  return make_view(self, shape.sizes, erased(self.strides(), d), self.storage_offset());
}

Tensor unsqueeze(const Tensor& self, int64_t dim) {
  const Shape shape = compute_shape_unsqueeze(self.shape(), dim)[0];
  const int64_t d = wrap_dim("unsqueeze", dim, self.dim() + 1);
  std::vector<int64_t> strides = self.strides();
  const int64_t stride = d < self.dim() ? self.size(d) * self.stride(d) : 1;
  strides.insert(strides.begin() + d, stride);
  return make_view(self, shape.sizes, std::move(strides), self.storage_offset());
}

}  // namespace lazygen::cpu
