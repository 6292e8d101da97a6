// Shape functions of max.dim, lerp, softshrink, sort, topk, cat and clamp (custom_shapes.h).
#include <string>

#include "core/tensor/shape_rules.h"
#include "ops/shape/custom_shapes.h"

namespace lazygen {

std::vector<Shape> compute_shape_max_dim(const Shape& self, int64_t dim, bool keepdim) {
  const int64_t d = wrap_dim("max.dim", dim, self.dim());
  if (self.dim() > 0 && self.sizes[d] == 0) {
    throw ShapeError("max.dim",
                     "expected reduction dim " + std::to_string(d) + " to have non-zero size");
  }
  Shape values = shape_rules::reduce("max.dim", self, std::vector<int64_t>{d}, keepdim, self.dtype);
  Shape indices = values;
  indices.dtype = DType::Int64;
  return {values, indices};
}

namespace {

// lerp computes in self's dtype: PyTorch refuses an `end` or `weight` of another dtype (a 0-dim
// weight too) instead of promoting.
void check_lerp_dtype(const char* op, const Shape& self, const Shape& other, const char* name) {
  if (other.dtype != self.dtype) {
    throw ShapeError(op, std::string("expected dtype ") + std::string(dtype_name(self.dtype)) + " for `" + name +
                             "` but got dtype " + std::string(dtype_name(other.dtype)));
  }
}

}  // namespace

std::vector<Shape> compute_shape_lerp_scalar(const Shape& self, const Shape& end, const Scalar& weight) {
  (void)weight;
  check_lerp_dtype("lerp.Scalar", self, end, "end");
  return {Shape(self.dtype, shape_rules::broadcast("lerp.Scalar", {&self, &end}))};
}

std::vector<Shape> compute_shape_softshrink(const Shape& self, const Scalar& lambd) {
  if (lambd.to<double>() < 0) {
    throw ShapeError("softshrink",
                     "lambda must be greater or equal to 0, but found to be " + lambd.str() + ".");
  }
  return {self};
}

std::vector<Shape> compute_shape_lerp_tensor(const Shape& self, const Shape& end, const Shape& weight) {
  check_lerp_dtype("lerp.Tensor", self, end, "end");
  check_lerp_dtype("lerp.Tensor", self, weight, "weight");
  return {Shape(self.dtype, shape_rules::broadcast("lerp.Tensor", {&self, &end, &weight}))};
}

std::vector<Shape> compute_shape_sort(const Shape& self, int64_t dim, bool descending) {
  (void)descending;
  wrap_dim("sort", dim, self.dim());
  return {self, Shape(DType::Int64, self.sizes)};
}

// k elements along dim (a 0-dim tensor counts as one element); bool is refused where there is a
// dim to select along, as PyTorch's kernel does.
std::vector<Shape> compute_shape_topk(const Shape& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  (void)largest;
  (void)sorted;
  const int64_t d = wrap_dim("topk", dim, self.dim());
  const int64_t size = self.dim() == 0 ? 1 : self.sizes[static_cast<size_t>(d)];
  if (k < 0 || k > size) {
    throw ShapeError("topk", "selected index k out of range: k = " + std::to_string(k) + " for a dim of size " +
                                 std::to_string(size) + " in a tensor of shape " + sizes_str(self.sizes));
  }
  if (self.dtype == DType::Bool && self.dim() > 0) throw ShapeError("topk", "not implemented for bool tensors");
  Shape values = self;
  if (self.dim() > 0) values.sizes[static_cast<size_t>(d)] = k;
  return {values, Shape(DType::Int64, values.sizes)};
}

namespace {

// PyTorch skips 1-D tensors of size 0 in cat (a legacy placeholder for "nothing").
bool skipped_in_cat(const Shape& s) {
  return s.dim() == 1 && s.sizes[0] == 0;
}

void check_cat_operand(const Shape& first, const Shape& s, int64_t dim, size_t index) {
  if (s.dim() != first.dim()) {
    throw ShapeError("cat", "tensors must have same number of dimensions: got " +
                                std::to_string(first.dim()) + " and " + std::to_string(s.dim()));
  }
  for (int64_t d = 0; d < s.dim(); ++d) {
    if (d != dim && s.sizes[d] != first.sizes[d]) {
      throw ShapeError("cat", "sizes of tensors must match except in dimension " +
                                  std::to_string(dim) + ". Expected size " +
                                  std::to_string(first.sizes[d]) + " but got size " +
                                  std::to_string(s.sizes[d]) + " for tensor number " +
                                  std::to_string(index) + " in the list");
    }
  }
}

}  // namespace

std::vector<Shape> compute_shape_cat(const std::vector<Shape>& tensors, int64_t dim) {
  if (tensors.empty()) throw ShapeError("cat", "expected a non-empty list of tensors");
  const Shape* first = nullptr;
  DType dtype = tensors[0].dtype;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Shape& s = tensors[i];
    if (s.dim() == 0) {
      throw ShapeError("cat", "zero-dimensional tensor (at position " + std::to_string(i) +
                                  ") cannot be concatenated");
    }
    dtype = promote_types(dtype, s.dtype);
    if (skipped_in_cat(s)) continue;
    if (first == nullptr) first = &s;
  }
  if (first == nullptr) return {Shape(dtype, {0})};
  const int64_t d = wrap_dim("cat", dim, first->dim());
  Shape out(dtype, first->sizes);
  out.sizes[d] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (skipped_in_cat(tensors[i])) continue;
    check_cat_operand(*first, tensors[i], d, i);
    out.sizes[d] += tensors[i].sizes[d];
  }
  return {out};
}

std::vector<Shape> compute_shape_clamp(const Shape& self, const std::optional<Scalar>& min,
                                       const std::optional<Scalar>& max) {
  if (!min && !max) throw ShapeError("clamp", "at least one of 'min' or 'max' must not be None");
  // PyTorch's result type: the bounds take part in type promotion (int tensor, 0.5 -> float).
  const DType dtype =
      shape_rules::result_type({&self}, {min ? &*min : nullptr, max ? &*max : nullptr});
  return {Shape(dtype, self.sizes)};
}

}  // namespace lazygen
