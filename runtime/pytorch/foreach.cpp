// PyTorch's _foreach_* ops on the lazygen device: the multi-tensor ops of the optimizers'
// foreach=True paths (Adam, AdamW, SGD, ...).
//
// Note [Foreach ops]
// PyTorch 1.13 gives each _foreach op a CPU kernel that loops over the list calling the op on
// each tensor (its "slow" path) and CUDA's fused multi-tensor kernels; other devices get neither,
// so on this device every _foreach op would run on the CPU fallback, copying each parameter and
// optimizer state to the CPU and back on every step. On a lazy device the loop is what fusion
// wants anyway: each tensor's ops join the traced step and fuse there. So each _foreach op is
// registered to redispatch to its CPU kernel, whose per-tensor calls (at::add_, at::sqrt, ...)
// dispatch on the tensors' device, this one. The CPU kernels check the lists the way PyTorch
// does for every device (lengths, dtypes), so errors read as PyTorch's. Each registration is
// recorded in registration_report() with origin "foreach".
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <string>

#include "pytorch/registrar.h"

namespace lazygen::pytorch {
namespace {

void loop_on_device(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::CPU), stack);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  Registrar foreach_ops(m, "foreach");
  c10::Dispatcher& dispatcher = c10::Dispatcher::singleton();
  const std::string prefix = "aten::_foreach_";
  for (const c10::OperatorName& name : dispatcher.getAllOpNames()) {
    if (name.name.rfind(prefix, 0) != 0) continue;
    const c10::optional<c10::OperatorHandle> op = dispatcher.findOp(name);
    if (!op || !op->hasKernelForDispatchKey(c10::DispatchKey::CPU)) continue;
    std::string qualified = name.name.substr(std::string("aten::").size());
    if (!name.overload_name.empty()) qualified += "." + name.overload_name;
    foreach_ops.add_boxed(qualified.c_str(),
                          torch::CppFunction::makeFromBoxedFunction<&loop_on_device>());
  }
}

}  // namespace
}  // namespace lazygen::pytorch
