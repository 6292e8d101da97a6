// Which lowered (non-fused) nodes the lazy CUDA backend can run, and how: a node that no fusion
// group computes runs as an eager op on cuda tensors.
//
// Note [Lowered nodes on CUDA]
// The cpu lowering table (exec/lowering.h) calls cpu kernels directly, which must never see
// device memory. The CUDA backend takes the device-neutral kernel lowering instead (Note [Kernel
// lowering] in exec/kernel_lowering.h): every op with an eager CUDA kernel registered (cuBLAS
// products, reduce.cu, the training kernels, the generated pointwise kernels, and the view ops,
// whose registered kernel is the cpu one, computing sizes and strides only) runs through that
// kernel, with no list kept here. Any other node fails compile() with a CompileError naming the
// op: no silent cpu fallback. ScalarParam operands arrive as 0-dim cpu tensors, as
// exec::scalar_of expects.
// Thread safety: pure functions.
#pragma once

#include "exec/lowering.h"

namespace lazygen::cuda {

// The device lowering of `node`, or nullptr when it has none (See Note [Lowered nodes on CUDA]).
exec::LowerFn device_lowering_for(const ir::Node& node);

}  // namespace lazygen::cuda
