// Adapters for the view ops PyTorch's decompositions call under names lazygen does not have
// (ops.yaml, "PyTorch adapters"): reshape reaches the device as _reshape_alias (a view) or
// _unsafe_view (of a fresh copy). Lazy tensors are contiguous, so both are lazygen views. The
// in-place view ops (transpose_, t_, squeeze_, unsqueeze_) make self the view (Call::become_view)
// where PyTorch's defaults would restride it with as_strided_, which lazy tensors cannot serve.
#include <vector>

#include "lazygen/generated/ops/squeeze.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/generated/ops/transpose.h"
#include "lazygen/generated/ops/unsqueeze.h"
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

at::Tensor& transpose_inplace(at::Tensor& self, int64_t dim0, int64_t dim1) {
  Call c("transpose_", {&self});
  return c.become_view(self, transpose(c.arg(self), dim0, dim1));
}

at::Tensor& t_inplace(at::Tensor& self) {
  Call c("t_", {&self});
  return c.become_view(self, t(c.arg(self)));
}

at::Tensor& squeeze_inplace(at::Tensor& self) {
  Call c("squeeze_", {&self});
  std::vector<int64_t> sizes;
  for (int64_t s : c.arg(self).sizes()) {
    if (s != 1) sizes.push_back(s);
  }
  return c.become_view(self, view(c.arg(self), sizes));
}

at::Tensor& squeeze_inplace_dim(at::Tensor& self, int64_t dim) {
  Call c("squeeze_.dim", {&self});
  return c.become_view(self, squeeze(c.arg(self), dim));
}

at::Tensor& unsqueeze_inplace(at::Tensor& self, int64_t dim) {
  Call c("unsqueeze_", {&self});
  return c.become_view(self, unsqueeze(c.arg(self), dim));
}

}  // namespace lazygen::pytorch::adapters
