// Adapters for the activations PyTorch passes a string or a flag to (ops.yaml, "PyTorch
// adapters"): gelu and gelu_backward, served by lazygen::gelu / gelu_backward (lazygen/composite.h)
// on ops.yaml's _gelu_erf / _gelu_tanh pointwise ops, and elu_backward, so the lazy device fuses
// them.
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

at::Tensor elu_backward(const at::Tensor& grad_output, const c10::Scalar& alpha, const c10::Scalar& scale,
                        const c10::Scalar& input_scale, bool is_result, const at::Tensor& self_or_result) {
  Call c("elu_backward", {&grad_output, &self_or_result});
  return c.result(lazygen::elu_backward(c.arg(grad_output), c.arg(alpha), c.arg(scale), c.arg(input_scale), is_result,
                                        c.arg(self_or_result)));
}

}  // namespace lazygen::pytorch::adapters
