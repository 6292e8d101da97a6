// Hand-written shape functions of reductions whose dtype rule or input checks are not generated
// ones.
#include <string>

#include "core/tensor/shape_rules.h"
#include "lazygen/generated/shapes/amax.h"
#include "lazygen/generated/shapes/amin.h"
#include "lazygen/generated/shapes/argmax.h"
#include "lazygen/generated/shapes/cumsum.h"
#include "lazygen/generated/shapes/mean_dim.h"

namespace lazygen {

// mean of integers has no natural dtype: PyTorch asks for an explicit one, and so do we, at
// trace time on every device.
std::vector<Shape> compute_shape_mean_dim(const Shape& self, const std::optional<std::vector<int64_t>>& dim,
                                          bool keepdim, std::optional<DType> dtype) {
  DType out = dtype.value_or(self.dtype);
  if (!is_floating(out)) {
    throw ShapeError("mean.dim", "could not infer output dtype: input dtype must be floating point, got " +
                                     std::string(dtype_name(self.dtype)) + "; pass dtype=");
  }
  return {shape_rules::reduce("mean.dim", self, dim, keepdim, out)};
}

namespace {

// A reduction without an identity (max, argmax) has no value over an empty dim: PyTorch raises
// when the op is called, and so does the shape function, on every device.
void check_nonempty(const char* op, const Shape& self, const std::vector<bool>& reduced) {
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (reduced[static_cast<size_t>(d)] && self.sizes[static_cast<size_t>(d)] == 0) {
      throw ShapeError(op, "expected reduction dim " + std::to_string(d) + " to have non-zero size");
    }
  }
}

// amax / amin: self's dtype, and no reduced dim may be empty.
Shape extremum_shape(const char* op, const Shape& self, const std::vector<int64_t>& dim, bool keepdim) {
  check_nonempty(op, self, shape_rules::reduced_dims(op, self.dim(), dim));
  return shape_rules::reduce(op, self, dim, keepdim, self.dtype);
}

}  // namespace

std::vector<Shape> compute_shape_amax(const Shape& self, const std::vector<int64_t>& dim,
                                      bool keepdim) {
  return {extremum_shape("amax", self, dim, keepdim)};
}

std::vector<Shape> compute_shape_amin(const Shape& self, const std::vector<int64_t>& dim,
                                      bool keepdim) {
  return {extremum_shape("amin", self, dim, keepdim)};
}

// Like self; integral and bool inputs accumulate (and come out) in int64 unless dtype says
// otherwise, as PyTorch's cumsum.
std::vector<Shape> compute_shape_cumsum(const Shape& self, int64_t dim, std::optional<DType> dtype) {
  wrap_dim("cumsum", dim, self.dim());
  return {Shape(dtype.value_or(is_floating(self.dtype) ? self.dtype : DType::Int64), self.sizes)};
}

std::vector<Shape> compute_shape_argmax(const Shape& self, std::optional<int64_t> dim,
                                        bool keepdim) {
  if (!dim && self.numel() == 0) {
    throw ShapeError("argmax", "expected reduction dim to be specified for an empty input");
  }
  const auto dims = dim ? std::optional<std::vector<int64_t>>(std::vector<int64_t>{*dim}) : std::nullopt;
  if (dims) check_nonempty("argmax", self, shape_rules::reduced_dims("argmax", self.dim(), dims));
  Shape out = shape_rules::reduce("argmax", self, dims, keepdim, DType::Int64);
  // As PyTorch's kernel: bool is refused where there is something to compute.
  if (self.dtype == DType::Bool && out.numel() > 0) {
    throw ShapeError("argmax", "not implemented for bool tensors");
  }
  return {out};
}

}  // namespace lazygen
