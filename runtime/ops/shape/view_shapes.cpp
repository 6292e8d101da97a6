// Shape functions of the view ops (custom_shapes.h). The eager kernels in ops/cpu/views.cpp
// derive strides from the sizes these produce.
#include <algorithm>
#include <limits>
#include <string>

#include "core/tensor/shape_rules.h"
#include "ops/shape/custom_shapes.h"

namespace lazygen {
namespace {

std::string str(int64_t v) {
  return std::to_string(v);
}

void require_dims(const char* op, const Shape& self, const char* what) {
  if (self.dim() == 0)
    throw ShapeError(op, std::string(what) + " cannot be applied to a 0-dim tensor");
}

// The sizes of `size` with a -1 replaced so that the element count equals self's.
std::vector<int64_t> infer_size(const char* op, const std::vector<int64_t>& size,
                                const Shape& self) {
  const int64_t numel = self.numel();
  std::vector<int64_t> out = size;
  int64_t known = 1;
  std::optional<size_t> infer;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1 && infer) {
      throw ShapeError(op, "only one dimension can be inferred in " + sizes_str(size));
    } else if (size[i] == -1) {
      infer = i;
    } else if (size[i] < 0) {
      throw ShapeError(op, "invalid shape dimension " + str(size[i]) + " in " + sizes_str(size));
    } else {
      known *= size[i];
    }
  }
  const bool fits = infer ? known != 0 && numel % known == 0 : known == numel;
  if (!fits) {
    throw ShapeError(op, "shape '" + sizes_str(size) + "' is invalid for input of size " +
                             str(numel) + " (input shape " + sizes_str(self.sizes) + ")");
  }
  if (infer) out[*infer] = numel / known;
  return out;
}

}  // namespace

std::vector<Shape> compute_shape_view(const Shape& self, const std::vector<int64_t>& size) {
  return {Shape(self.dtype, infer_size("view", size, self))};
}

std::vector<Shape> compute_shape_reshape(const Shape& self, const std::vector<int64_t>& shape) {
  return {Shape(self.dtype, infer_size("reshape", shape, self))};
}

std::vector<Shape> compute_shape_flatten_using_ints(const Shape& self, int64_t start_dim,
                                                    int64_t end_dim) {
  const char* op = "flatten.using_ints";
  const int64_t start = wrap_dim(op, start_dim, self.dim());
  const int64_t end = wrap_dim(op, end_dim, self.dim());
  if (start > end) {
    throw ShapeError(op, "start_dim " + str(start_dim) + " cannot come after end_dim " +
                             str(end_dim) + " (self of shape " + sizes_str(self.sizes) + ")");
  }
  if (self.dim() == 0) return {Shape(self.dtype, {1})};
  std::vector<int64_t> sizes(self.sizes.begin(), self.sizes.begin() + start);
  int64_t merged = 1;
  for (int64_t d = start; d <= end; ++d) merged *= self.sizes[d];
  sizes.push_back(merged);
  sizes.insert(sizes.end(), self.sizes.begin() + end + 1, self.sizes.end());
  return {Shape(self.dtype, std::move(sizes))};
}

std::vector<Shape> compute_shape_narrow(const Shape& self, int64_t dim, int64_t start,
                                        int64_t length) {
  const char* op = "narrow";
  require_dims(op, self, "narrow()");
  const int64_t d = wrap_dim(op, dim, self.dim());
  const int64_t size = self.sizes[d];
  const std::string where = " (self of shape " + sizes_str(self.sizes) + ", dim " + str(d) + ")";
  if (length < 0) throw ShapeError(op, "length must be non-negative, got " + str(length) + where);
  if (start < -size || start > size) {
    throw ShapeError(op, "start out of range (expected to be in range of [" + str(-size) + ", " +
                             str(size) + "], but got " + str(start) + ")" + where);
  }
  const int64_t first = start < 0 ? start + size : start;
  if (first > size - length) {
    throw ShapeError(op, "start (" + str(first) + ") + length (" + str(length) +
                             ") exceeds dimension size (" + str(size) + ")" + where);
  }
  Shape out = self;
  out.sizes[d] = length;
  return {out};
}

std::vector<Shape> compute_shape_permute(const Shape& self, const std::vector<int64_t>& dims) {
  if (static_cast<int64_t>(dims.size()) != self.dim()) {
    throw ShapeError("permute", "number of dims don't match in permute: got " + sizes_str(dims) +
                                    " for a tensor of rank " + str(self.dim()));
  }
  Shape out(self.dtype, std::vector<int64_t>(dims.size()));
  std::vector<bool> seen(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    const auto d = static_cast<size_t>(wrap_dim("permute", dims[i], self.dim()));
    if (seen[d])
      throw ShapeError("permute", "repeated dim " + str(int64_t(d)) + " in " + sizes_str(dims));
    seen[d] = true;
    out.sizes[i] = self.sizes[d];
  }
  return {out};
}

std::vector<Shape> compute_shape_transpose_int(const Shape& self, int64_t dim0, int64_t dim1) {
  const int64_t a = wrap_dim("transpose.int", dim0, self.dim());
  const int64_t b = wrap_dim("transpose.int", dim1, self.dim());
  Shape out = self;
  if (self.dim() > 0) std::swap(out.sizes[a], out.sizes[b]);
  return {out};
}

std::vector<Shape> compute_shape_t(const Shape& self) {
  if (self.dim() > 2) {
    throw ShapeError(
        "t", "t() expects a tensor with <= 2 dimensions, but self is " + str(self.dim()) + "D");
  }
  Shape out = self;
  if (self.dim() == 2) std::swap(out.sizes[0], out.sizes[1]);
  return {out};
}

std::vector<Shape> compute_shape_expand(const Shape& self, const std::vector<int64_t>& size,
                                        bool implicit) {
  const int64_t rank = self.dim(), n = static_cast<int64_t>(size.size());
  if (n < rank) {
    throw ShapeError("expand", "the number of sizes provided (" + str(n) +
                                   ") must be greater or equal to the number of dimensions in "
                                   "the tensor (" +
                                   str(rank) + ")");
  }
  Shape out(self.dtype, size);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = i - (n - rank);  // the matching dim of self, if any
    if (j < 0) {
      if (size[i] < 0) {
        throw ShapeError("expand", "the expanded size of the tensor (" + str(size[i]) +
                                       ") isn't allowed in a leading, non-existing dimension " +
                                       str(i));
      }
      continue;
    }
    const int64_t have = self.sizes[j];
    if (size[i] == -1) out.sizes[i] = have;
    if (out.sizes[i] != have && have != 1) {
      throw ShapeError("expand", "the expanded size of the tensor (" + str(size[i]) +
                                     ") must match the existing size (" + str(have) +
                                     ") at non-singleton dimension " + str(i) +
                                     ".  Target sizes: " + sizes_str(size) +
                                     ".  Tensor sizes: " + sizes_str(self.sizes));
    }
  }
  return {out};
}

SliceRange slice_range(const char* op, int64_t size, std::optional<int64_t> start,
                       std::optional<int64_t> end, int64_t step) {
  if (step <= 0) throw ShapeError(op, "slice step must be positive, got " + str(step));
  auto clamp = [size](int64_t v) {
    if (v < 0) v += size;
    return std::min(std::max<int64_t>(v, 0), size);
  };
  const int64_t s = clamp(start.value_or(0));
  const int64_t e = std::max(s, clamp(end.value_or(std::numeric_limits<int64_t>::max())));
  return {s, (e - s + step - 1) / step};
}

std::vector<Shape> compute_shape_slice_tensor(const Shape& self, int64_t dim,
                                              std::optional<int64_t> start,
                                              std::optional<int64_t> end, int64_t step) {
  require_dims("slice.Tensor", self, "slice()");
  const int64_t d = wrap_dim("slice.Tensor", dim, self.dim());
  Shape out = self;
  out.sizes[d] = slice_range("slice.Tensor", self.sizes[d], start, end, step).length;
  return {out};
}

std::vector<Shape> compute_shape_slice_backward(const Shape& grad_output,
                                                const std::vector<int64_t>& input_sizes,
                                                int64_t dim, int64_t start, int64_t end,
                                                int64_t step) {
  const char* op = "slice_backward";
  checked_numel(op, input_sizes);
  const Shape input(grad_output.dtype, input_sizes);
  require_dims(op, input, "slice_backward()");
  const int64_t d = wrap_dim(op, dim, input.dim());
  std::vector<int64_t> sliced = input_sizes;
  sliced[d] = slice_range(op, input_sizes[d], start, end, step).length;
  if (sliced != grad_output.sizes) {
    throw ShapeError(op, "grad_output of shape " + sizes_str(grad_output.sizes) +
                             " does not match the slice [" + str(start) + ":" + str(end) + ":" +
                             str(step) + "] along dim " + str(d) + " of input_sizes " +
                             sizes_str(input_sizes) + ", which has shape " + sizes_str(sliced));
  }
  return {input};
}

std::vector<Shape> compute_shape_slice_scatter(const Shape& self, const Shape& src, int64_t dim,
                                               std::optional<int64_t> start,
                                               std::optional<int64_t> end, int64_t step) {
  const char* op = "slice_scatter";
  require_dims(op, self, "slice_scatter()");
  const int64_t d = wrap_dim(op, dim, self.dim());
  std::vector<int64_t> sliced = self.sizes;
  sliced[d] = slice_range(op, self.sizes[d], start, end, step).length;
  if (sliced != src.sizes) {
    throw ShapeError(op, "src of shape " + sizes_str(src.sizes) + " does not match the slice [" +
                             (start ? str(*start) : "") + ":" + (end ? str(*end) : "") + ":" +
                             str(step) + "] along dim " + str(d) + " of self " +
                             sizes_str(self.sizes) + ", which has shape " + sizes_str(sliced));
  }
  return {self};  // src is converted to self's dtype, as PyTorch's copy into the slice does
}

std::vector<Shape> compute_shape_select_int(const Shape& self, int64_t dim, int64_t index) {
  require_dims("select.int", self, "select()");
  const int64_t d = wrap_dim("select.int", dim, self.dim());
  const int64_t size = self.sizes[d];
  if (index < -size || index >= size) {
    throw ShapeError("select.int", "index " + str(index) + " out of range for tensor of size " +
                                       sizes_str(self.sizes) + " at dimension " + str(d));
  }
  Shape out = self;
  out.sizes.erase(out.sizes.begin() + d);
  return {out};
}

std::vector<Shape> compute_shape_squeeze_dim(const Shape& self, int64_t dim) {
  const int64_t d = wrap_dim("squeeze.dim", dim, self.dim());
  Shape out = self;
  if (self.dim() > 0 && self.sizes[d] == 1) out.sizes.erase(out.sizes.begin() + d);
  return {out};
}

std::vector<Shape> compute_shape_unsqueeze(const Shape& self, int64_t dim) {
  const int64_t d = wrap_dim("unsqueeze", dim, self.dim() + 1);
  Shape out = self;
  out.sizes.insert(out.sizes.begin() + d, 1);
  return {out};
}

}  // namespace lazygen
