// Adapters for the activations PyTorch spells differently from lazygen (ops.yaml, "PyTorch
// adapters"): gelu and gelu_backward, served by lazygen::gelu / gelu_backward (lazygen/composite.h)
// on ops.yaml's _gelu_erf / _gelu_tanh pointwise ops; elu_backward; log_sigmoid's forward and
// backward (on ops.yaml's log_sigmoid; PyTorch's buffer is not needed), glu's and prelu's, so the
// lazy device fuses them; and polygamma (order first) on ops.yaml's _polygamma (order a Scalar).

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/log_sigmoid.h"
#include "lazygen/generated/ops/sigmoid.h"
#include "lazygen/generated/torch_adapters.h"
#include "lazygen/operators.h"
#include "pytorch/call.h"

namespace lazygen::pytorch::adapters {

at::Tensor gelu(const at::Tensor& self, c10::string_view approximate) {
  Call c("gelu", {&self});
  return c.result(lazygen::gelu(c.arg(self), c.arg(approximate)));
}

at::Tensor gelu_backward(const at::Tensor& grad_output, const at::Tensor& self,
                         c10::string_view approximate) {
  Call c("gelu_backward", {&grad_output, &self});
  return c.result(lazygen::gelu_backward(c.arg(grad_output), c.arg(self), c.arg(approximate)));
}

at::Tensor elu_backward(const at::Tensor& grad_output, const c10::Scalar& alpha, const c10::Scalar& scale,
                        const c10::Scalar& input_scale, bool is_result, const at::Tensor& self_or_result) {
  Call c("elu_backward", {&grad_output, &self_or_result});
  return c.result(lazygen::elu_backward(c.arg(grad_output), c.arg(alpha), c.arg(scale), c.arg(input_scale), is_result,
                                        c.arg(self_or_result)));
}

// The buffer PyTorch's CPU kernel fills (exp(-|x|)) is for its own backward; lazygen's backward
// recomputes from self, so the buffer is an empty placeholder.
::std::tuple<at::Tensor, at::Tensor> log_sigmoid_forward(const at::Tensor& self) {
  Call c("log_sigmoid_forward", {&self});
  const Tensor& x = c.arg(self);
  return {c.result(log_sigmoid(x)), c.result(empty({0}, x.dtype(), x.device()))};
}

at::Tensor log_sigmoid_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& buffer) {
  (void)buffer;
  Call c("log_sigmoid_backward", {&grad_output, &self});
  return c.result(c.arg(grad_output) * sigmoid(-c.arg(self)));
}

at::Tensor glu(const at::Tensor& self, int64_t dim) {
  Call c("glu", {&self});
  return c.result(lazygen::glu(c.arg(self), dim));
}

at::Tensor glu_backward(const at::Tensor& grad_output, const at::Tensor& self, int64_t dim) {
  Call c("glu_backward", {&grad_output, &self});
  return c.result(lazygen::glu_backward(c.arg(grad_output), c.arg(self), dim));
}

at::Tensor glu_jvp(const at::Tensor& glu, const at::Tensor& x, const at::Tensor& dx, int64_t dim) {
  Call c("glu_jvp", {&glu, &x, &dx});
  return c.result(lazygen::glu_jvp(c.arg(glu), c.arg(x), c.arg(dx), dim));
}

at::Tensor prelu(const at::Tensor& self, const at::Tensor& weight) {
  Call c("prelu", {&self, &weight});
  return c.result(lazygen::prelu(c.arg(self), c.arg(weight)));
}

::std::tuple<at::Tensor, at::Tensor> prelu_backward(const at::Tensor& grad_output,
                                                    const at::Tensor& self,
                                                    const at::Tensor& weight) {
  Call c("prelu_backward", {&grad_output, &self, &weight});
  return c.result(lazygen::prelu_backward(c.arg(grad_output), c.arg(self), c.arg(weight)));
}

at::Tensor polygamma(int64_t n, const at::Tensor& self) {
  Call c("polygamma", {&self});
  return c.result(lazygen::polygamma(n, c.arg(self)));
}

at::Tensor& polygamma_inplace(at::Tensor& self, int64_t n) {
  Call c("polygamma_", {&self});
  return c.write_back(self, lazygen::polygamma(n, c.arg(self)));
}

}  // namespace lazygen::pytorch::adapters
