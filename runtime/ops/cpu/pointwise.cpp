// The non-template helpers of the pointwise engine (pointwise.h).
#include "ops/cpu/pointwise.h"

#include <string>

namespace lazygen::cpu::detail {

void check_counts(const char* op, size_t tensors, size_t scalars, int want_tensors,
                  int want_scalars) {
  if (tensors != static_cast<size_t>(want_tensors) ||
      scalars != static_cast<size_t>(want_scalars)) {
    throw ShapeError(op, "the pointwise kernel takes " + std::to_string(want_tensors) +
                             " tensors and " + std::to_string(want_scalars) + " scalars, got " +
                             std::to_string(tensors) + " and " + std::to_string(scalars));
  }
}

void no_kernel_for(const char* op, DType compute) {
  throw ShapeError(op, "no kernel computing in " + std::string(dtype_name(compute)) +
                           " (the op's dtypes in ops.yaml exclude it)");
}

bool inputs_have_dtype(const StridedPlan& plan, DType dtype) {
  for (int k = 1; k < plan.num_operands; ++k) {
    if (plan.dtypes[k] != dtype) return false;
  }
  return true;
}

}  // namespace lazygen::cpu::detail
