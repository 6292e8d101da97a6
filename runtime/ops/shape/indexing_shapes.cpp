// Shape functions of the indexing ops (custom_shapes.h): index_select, index_add, gather,
// scatter_add, scatter_reduce, masked_fill and where (its bool condition). They check ranks, sizes
// and dtypes, as PyTorch's meta functions do; index values are data, bounds-checked by the kernels
// (ops/cpu/indexing.cpp).
#include <algorithm>
#include <string>
#include <string_view>

#include "core/tensor/shape_rules.h"
#include "ops/shape/custom_shapes.h"

namespace lazygen {
namespace {

std::string str(int64_t v) {
  return std::to_string(v);
}

// " (self of shape [2, 3], index of shape [4])": what each error adds about its operands.
std::string operands(const Shape& self, const Shape& index) {
  return " (self of shape " + sizes_str(self.sizes) + ", index of shape " + sizes_str(index.sizes) +
         ")";
}

void require_index_dtype(const char* op, const Shape& index, bool allow_int32) {
  if (index.dtype == DType::Int64 || (allow_int32 && index.dtype == DType::Int32)) return;
  throw ShapeError(op, std::string("expected dtype ") + (allow_int32 ? "int32 or int64" : "int64") +
                           " for index, got " + std::string(dtype_name(index.dtype)));
}

void require_vector_index(const char* op, const Shape& self, const Shape& index) {
  if (index.dim() > 1) {
    throw ShapeError(op, "index is supposed to be a vector" + operands(self, index));
  }
}

// Sizes without dim `d` (a 0-dim tensor has none).
std::vector<int64_t> without(const std::vector<int64_t>& sizes, int64_t d) {
  std::vector<int64_t> out = sizes;
  if (!out.empty()) out.erase(out.begin() + d);
  return out;
}

// gather and scatter_add: index has self's rank (0-dim counting as 1-D) and fits in `other`
// (self for gather, src for scatter_add) in every dim, and in self in every dim but `d`.
void check_scatter_gather(const char* op, const Shape& self, int64_t d, const Shape& index,
                          const Shape* src) {
  const auto rank = [](const Shape& s) { return std::max<int64_t>(s.dim(), 1); };
  const auto size = [](const Shape& s, int64_t i) { return s.dim() == 0 ? 1 : s.sizes[i]; };
  if (rank(index) != rank(self) || (src != nullptr && rank(index) != rank(*src))) {
    throw ShapeError(op, std::string("index tensor must have the same number of dimensions as ") +
                             (src ? "self and src" : "self") + operands(self, index) +
                             (src ? " and src of shape " + sizes_str(src->sizes) : ""));
  }
  for (int64_t i = 0; i < rank(index); ++i) {
    const bool fits_self = i == d || size(index, i) <= size(self, i);
    const bool fits_src = src == nullptr || size(index, i) <= size(*src, i);
    if (!fits_self || !fits_src) {
      throw ShapeError(op, "size does not match at dimension " + str(i) + ": index may not be " +
                               "larger than " + (src ? "src, nor than self" : "self") +
                               " apart from dimension " + str(d) + operands(self, index) +
                               (src ? " and src of shape " + sizes_str(src->sizes) : ""));
    }
  }
}

// scatter_add and scatter_reduce: an int64 index as check_scatter_gather says, src of self's
// dtype; self's shape.
std::vector<Shape> scatter_shape(const char* op, const Shape& self, int64_t dim, const Shape& index,
                                 const Shape& src) {
  require_index_dtype(op, index, false);
  if (self.dtype != src.dtype) {
    throw ShapeError(op, std::string("expected self.dtype to be equal to src.dtype, got ") +
                             std::string(dtype_name(self.dtype)) + " and " +
                             std::string(dtype_name(src.dtype)));
  }
  const int64_t d = wrap_dim(op, dim, self.dim());
  if (index.numel() > 0) check_scatter_gather(op, self, d, index, &src);
  return {self};
}

}  // namespace

std::vector<Shape> compute_shape_index_select(const Shape& self, int64_t dim, const Shape& index) {
  const char* op = "index_select";
  require_index_dtype(op, index, true);
  require_vector_index(op, self, index);
  const int64_t d = wrap_dim(op, dim, self.dim());
  if (self.dim() == 0) {
    if (index.numel() != 1) {
      throw ShapeError(op, "index to a 0-dim tensor can have only 1 value, got " +
                               str(index.numel()) + operands(self, index));
    }
    return {self};
  }
  Shape out = self;
  out.sizes[d] = index.numel();
  return {out};
}

std::vector<Shape> compute_shape_index_add(const Shape& self, int64_t dim, const Shape& index,
                                           const Shape& source, const Scalar& alpha) {
  const char* op = "index_add";
  require_index_dtype(op, index, true);
  require_vector_index(op, self, index);
  const int64_t d = wrap_dim(op, dim, self.dim());
  const std::string shapes =
      operands(self, index) + " and source of shape " + sizes_str(source.sizes);
  if (self.dtype != source.dtype) {
    throw ShapeError(op, std::string("self (") + std::string(dtype_name(self.dtype)) +
                             ") and source (" + std::string(dtype_name(source.dtype)) +
                             ") must have the same dtype");
  }
  if (!is_floating(self.dtype) && alpha.is_floating()) {
    throw ShapeError(op,
                     "for integral input tensors, argument alpha must not be a floating "
                     "point number");
  }
  if (d > 0 && d >= source.dim()) {
    throw ShapeError(op, "indexing dim " + str(d) + " is out of bounds of source" + shapes);
  }
  const int64_t count = source.dim() == 0 ? 1 : source.sizes[d];
  if (index.numel() != count) {
    throw ShapeError(op, "number of indices (" + str(index.numel()) +
                             ") should be equal to source.size(dim) (" + str(count) + ")" + shapes);
  }
  if (without(self.sizes, d) != without(source.sizes, d)) {
    throw ShapeError(
        op, "source and self must have the same slice shapes apart from dim " + str(d) + shapes);
  }
  return {self};
}

std::vector<Shape> compute_shape_gather(const Shape& self, int64_t dim, const Shape& index,
                                        bool sparse_grad) {
  (void)sparse_grad;  // gradients are dense either way
  const char* op = "gather";
  require_index_dtype(op, index, false);
  const int64_t d = wrap_dim(op, dim, self.dim());
  if (index.numel() > 0) check_scatter_gather(op, self, d, index, nullptr);
  return {Shape(self.dtype, index.sizes)};
}

std::vector<Shape> compute_shape_scatter_add(const Shape& self, int64_t dim, const Shape& index,
                                             const Shape& src) {
  return scatter_shape("scatter_add", self, dim, index, src);
}

std::vector<Shape> compute_shape_scatter_reduce_two(const Shape& self, int64_t dim,
                                                    const Shape& index, const Shape& src,
                                                    std::string_view reduce, bool include_self) {
  (void)include_self;
  if (reduce == "mean" && self.dtype == DType::Bool) {
    throw ShapeError("scatter_reduce", "mean is not implemented for bool tensors");
  }
  if (reduce != "sum" && reduce != "prod" && reduce != "mean" && reduce != "amax" &&
      reduce != "amin") {
    throw ShapeError("scatter_reduce",
                     "reduce argument must be either sum, prod, mean, amax or "
                     "amin, got '" +
                         std::string(reduce) + "'");
  }
  return scatter_shape("scatter_reduce", self, dim, index, src);
}

std::vector<Shape> compute_shape_masked_fill_scalar(const Shape& self, const Shape& mask,
                                                    const Scalar& value) {
  (void)value;  // cast to self's dtype by the kernel
  const char* op = "masked_fill.Scalar";
  if (mask.dtype != DType::Bool) {
    throw ShapeError(op, std::string("only boolean masks are supported, but got mask with dtype ") +
                             std::string(dtype_name(mask.dtype)));
  }
  return {Shape(self.dtype, broadcast_sizes(op, self.sizes, mask.sizes))};
}

std::vector<Shape> compute_shape_where_self(const Shape& condition, const Shape& self,
                                            const Shape& other) {
  const char* op = "where.self";
  if (condition.dtype != DType::Bool) {
    throw ShapeError(op, "expected condition to be a boolean tensor, but got a tensor with dtype " +
                             std::string(dtype_name(condition.dtype)) + " (condition of shape " +
                             sizes_str(condition.sizes) + ")");
  }
  return {Shape(shape_rules::result_type({&self, &other}),
                shape_rules::broadcast(op, {&condition, &self, &other}))};
}

}  // namespace lazygen
