// Adapters for the view ops PyTorch's decompositions call under names lazygen does not have
// (ops.yaml, "PyTorch adapters"): reshape reaches the device as _reshape_alias (a view) or
// _unsafe_view (of a fresh copy). Lazy tensors are contiguous, so both are lazygen views.
#include "lazygen/generated/ops/view.h"
#include "lazygen/generated/torch_adapters.h"
#include "pytorch/call.h"

namespace lazygen::pytorch::adapters {

at::Tensor _reshape_alias(const at::Tensor& self, c10::IntArrayRef size, c10::IntArrayRef stride) {
  (void)stride;  // contiguous (See Note [Device tensors])
  Call c("_reshape_alias", {&self});
  return c.result(view(c.arg(self), c.arg(size)));
}

at::Tensor _unsafe_view(const at::Tensor& self, c10::IntArrayRef size) {
  Call c("_unsafe_view", {&self});
  // Not an alias of `self` for PyTorch: a view of a copy (which costs nothing until written).
  return c.result(view(c.arg(self).clone(), c.arg(size)));
}

}  // namespace lazygen::pytorch::adapters
