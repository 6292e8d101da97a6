// The device-neutral lowering table (generated/src/lowering_<shard>.cpp, looked up in
// lowering.cpp): for each op of ops.yaml, how an IR node's attributes and operands become a call
// of the op's kernel, bound at run time to the kernel registered for the device its operands
// live on.
//
// Note [Kernel lowering]
// The lowering table of exec/lowering.h calls lazygen's cpu kernels by name: right for the cpu
// backends, useless to a device whose memory cpu kernels must never touch. This table is the
// same unpacking of a node (its class's attributes, its operands in schema order, a written
// operand cloned first so that nodes stay pure) without the kernel: each entry looks the op's
// kernel up with the op's dispatch signature in the device-kernel registry (Note [Device kernels]
// in core/dispatch.h), for the device type of the op's first tensor operand. A backend whose
// device registers eager kernels therefore lowers every op it has a kernel for, and no other,
// with no list of its own: has_device_kernel(<its type>, entry->kernel) says which (the CUDA
// backend does; backend/cuda/lazy/device_lowering.h). `view` binds reshape's kernel (Note [Lazy
// view lowering] in the generator). Ops without a tensor operand (factories) have no entry: nothing
// says their device.
// The cpu device registers its kernels too (register_cpu_device_kernels), so that the
// "cpu-kernels" backend runs the table over every op of the consistency suite on any machine.
//
// Thread safety: the table is immutable; registration is the registry's.
#pragma once

#include <string_view>

#include "exec/lowering.h"

namespace lazygen::exec {

struct KernelLowering {
  LowerFn fn = nullptr;
  std::string_view kernel;  // the schema name the kernel is registered under ("add.Tensor")
};

// The kernel lowering of `kind`, or nullptr for kinds without one (See Note [Kernel lowering]).
// Generated.
const KernelLowering* kernel_lowering_for(ir::OpKind kind);

// Registers every op's eager cpu kernel as the cpu device's kernel (generated; idempotent).
void register_cpu_device_kernels();

}  // namespace lazygen::exec
