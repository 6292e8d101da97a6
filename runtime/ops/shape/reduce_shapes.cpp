// Hand-written shape functions of reductions whose dtype rule is not a generated one.
#include <string>

#include "core/tensor/shape_rules.h"
#include "lazygen/generated/shape_inference.h"

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

}  // namespace lazygen
