// The lazy device's wiring (lazy_device.cpp) as the layers above it see it.
#pragma once

#include "lazygen/dtype.h"
#include "lazygen/tensor.h"

namespace lazygen::exec {

// Note [Traced casts]
// Tensor::to(DType) of a lazy tensor goes through the lazy device's to_dtype hook. The traced
// conversion (a copy_ into a tensor of the new dtype) is an op of the op layer, above this one,
// so the op layer installs it here at its load (ops/composite/cast.cpp); until then, and in
// programs without it, the hook converts through the cpu, which syncs. Thread-safe; install once.
using LazyCast = Tensor (*)(const Tensor& t, DType dtype);
void set_lazy_cast(LazyCast cast);

}  // namespace lazygen::exec
