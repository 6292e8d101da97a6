// Which lowered (non-fused) nodes the lazy CUDA backend can run, and how: a node that no fusion
// group computes runs as an eager op on cuda tensors.
//
// Note [Lowered nodes on CUDA]
// The generated lowering table (exec/lowering.h) calls cpu kernels directly, which must never
// see device memory. So the CUDA backend runs a lowered node only when it knows a device path:
//   - mm, addmm, bmm, sum, sum.dim_IntList, mean.dim: through the op dispatch (Tensor methods),
//     which sends cuda tensors to the eager CUDA kernels (cuBLAS, reduce.cu);
//   - view ops with a CUDA kernel: their lowering, whose cpu kernel only computes sizes and
//     strides and is the very kernel registered for cuda tensors (eager_kernels.h).
// Any other node fails compile() with a CompileError naming the op: no silent cpu fallback
// (a pointwise op outside every group, e.g. in a dtype the fusion does not compute in, is one).
// ScalarParam operands arrive as 0-dim cpu tensors, as exec::scalar_of expects.
// Thread safety: pure functions.
#pragma once

#include "exec/lowering.h"

namespace lazygen::cuda {

// The device lowering of `node`, or nullptr when it has none (See Note [Lowered nodes on CUDA]).
exec::LowerFn device_lowering_for(const ir::Node& node);

}  // namespace lazygen::cuda
