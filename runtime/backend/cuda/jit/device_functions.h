// The CUDA source text the JIT composes kernels from: each pointwise op's generated device
// functor (generated/include/lazygen/generated/cuda_device_functions.inc, from ops.yaml's
// `pointwise:` expressions). The include-free scalar math they call (lazygen/kernels/
// pointwise_math.h) is embedded by backend/cuda_text (pointwise_math_source()). The same
// functors are the eager CPU, fused CPU and eager CUDA kernels, so a JIT kernel computes what
// every other backend computes.
// Thread safety: immutable tables.
#pragma once

#include <span>

#include "core/ir/node.h"

namespace lazygen::cuda {

struct DeviceFunction {
  const char* op_id;    // e.g. "add_tensor"
  ir::OpKind kind;      // the op's
  const char* functor;  // in namespace lazygen::kernels, e.g. "AddTensor"
  const char* source;   // its definition, which needs pointwise_math_source() before it
};

// The device functor of a pointwise op; nullptr for ops without a `pointwise:` expression.
const DeviceFunction* device_function(ir::OpKind kind);
// Every pointwise op's device functor, in ops.yaml's order.
std::span<const DeviceFunction> device_functions();

}  // namespace lazygen::cuda
