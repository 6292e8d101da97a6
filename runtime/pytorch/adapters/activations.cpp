// Adapters for the activations PyTorch passes a string to (ops.yaml, "PyTorch adapters"): gelu
// and gelu_backward, served by lazygen::gelu / gelu_backward (lazygen/composite.h) on
// ops.yaml's _gelu_erf / _gelu_tanh pointwise ops, so the lazy device fuses them.
#include <string_view>

#include "lazygen/composite.h"
#include "lazygen/generated/torch_adapters.h"
#include "pytorch/call.h"

namespace lazygen::pytorch::adapters {

at::Tensor gelu(const at::Tensor& self, c10::string_view approximate) {
  Call c("gelu", {&self});
  return c.result(lazygen::gelu(c.arg(self), std::string_view(approximate.data(), approximate.size())));
}

at::Tensor gelu_backward(const at::Tensor& grad_output, const at::Tensor& self,
                         c10::string_view approximate) {
  Call c("gelu_backward", {&grad_output, &self});
  return c.result(lazygen::gelu_backward(c.arg(grad_output), c.arg(self),
                                         std::string_view(approximate.data(), approximate.size())));
}

}  // namespace lazygen::pytorch::adapters
