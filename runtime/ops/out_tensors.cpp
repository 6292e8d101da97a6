// Out tensors of the op API (out_tensors.h).
#include "ops/out_tensors.h"

#include "core/lazy/lazy_state.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/factory.h"

namespace lazygen::detail {

void resize_empty_out(const Tensor& out, const std::vector<int64_t>& sizes) {
  if (!out.defined() || out.numel() != 0 || out.sizes() == sizes) return;
  const auto& state = out.impl()->lazy_state();
  if (state != nullptr && state->view != nullptr) return;
  const Tensor fresh = empty(sizes, out.dtype(), out.device());
  out.impl()->become(*fresh.impl());
}

}  // namespace lazygen::detail
