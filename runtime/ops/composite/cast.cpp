// The lazy device's traced dtype conversion (Note [Traced casts] in exec/lazy_device.h), composed
// of copy_: the tensor copied into a new one of the target dtype, so Tensor::to(DType) of a lazy
// tensor adds a node to the trace instead of syncing. As on the cpu, the conversion records no
// gradient.
#include "core/lazy/lazy_tensor.h"
#include "exec/lazy_device.h"
#include "lazygen/autograd.h"
#include "lazygen/factory.h"

namespace lazygen {
namespace {

Tensor traced_cast(const Tensor& t, DType dtype) {
  NoGradGuard no_grad;
  // Its values are never read: copy_ overwrites every element, so no cpu data is copied in.
  Tensor out = lazy::make_lazy_tensor_from_data(empty(t.sizes(), dtype), t.device());
  out.copy_(t);
  return out;
}

}  // namespace
}  // namespace lazygen

extern const bool lazygen_lazy_cast_linked;
const bool lazygen_lazy_cast_linked = [] {
  lazygen::exec::set_lazy_cast(&lazygen::traced_cast);
  return true;
}();
