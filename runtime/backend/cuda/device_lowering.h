// Which lowered (non-fused) nodes the lazy CUDA backend can run, and how: a node that no fusion
// group computes runs as an eager op on cuda tensors.
//
// Note [Lowered nodes on CUDA]
// The generated lowering table (exec/lowering.h) calls cpu kernels directly, which must never
// see device memory. So the CUDA backend runs a lowered node only when it knows a device path:
//   - mm, addmm, bmm, sum, sum.dim_IntList, mean.dim: through the op dispatch (Tensor methods),
//     which sends cuda tensors to the eager CUDA kernels (cuBLAS, reduce.cu);
//   - view ops with a CUDA kernel: their lowering, whose cpu kernel only computes sizes and
//     strides and is the very kernel registered for cuda tensors (eager_kernels.h);
//   - the training ops (conv2d, max pooling, log_softmax, nll_loss, their backward ops,
//     _dropout_mask) and amax: through the op dispatch too (training_lowering.cpp).
// A hand-kept list, not "every op with a CUDA kernel": the generated lowerings call cpu kernels
// by name, so a generic path would need a second, dispatching lowering table from the generator.
// Any other node fails compile() with a CompileError naming the op: no silent cpu fallback
// (a pointwise op outside every group, e.g. in a dtype the fusion does not compute in, is one).
// ScalarParam operands arrive as 0-dim cpu tensors, as exec::scalar_of expects.
// Thread safety: pure functions.
#pragma once

#include "exec/lowering.h"

namespace lazygen::cuda {

// The device lowering of `node`, or nullptr when it has none (See Note [Lowered nodes on CUDA]).
exec::LowerFn device_lowering_for(const ir::Node& node);

// The part of device_lowering_for for the training ops and amax (training_lowering.cpp).
exec::LowerFn training_lowering_for(ir::OpKind kind);

}  // namespace lazygen::cuda
