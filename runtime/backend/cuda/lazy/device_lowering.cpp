// Lowered nodes on cuda tensors (device_lowering.h). See Note [Lowered nodes on CUDA].
#include "backend/cuda/lazy/device_lowering.h"

#include "core/dispatch.h"
#include "exec/kernel_lowering.h"

namespace lazygen::cuda {

exec::LowerFn device_lowering_for(const ir::Node& node) {
  const exec::KernelLowering* lowering = exec::kernel_lowering_for(node.op());
  if (lowering == nullptr || !detail::has_device_kernel(DeviceType::CUDA, lowering->kernel)) {
    return nullptr;
  }
  return lowering->fn;
}

}  // namespace lazygen::cuda
