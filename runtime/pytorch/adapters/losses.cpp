// Adapters for PyTorch's margin losses over classes (ops.yaml, "PyTorch adapters"):
// multi_margin_loss and multilabel_margin_loss_forward with their backward ops, served by
// lazygen's composites of the same names (lazygen/composite.h).
#include <tuple>

#include "lazygen/composite.h"
#include "lazygen/generated/torch_adapters.h"
#include "pytorch/call.h"

namespace lazygen::pytorch::adapters {

at::Tensor multi_margin_loss(const at::Tensor& self, const at::Tensor& target, const at::Scalar& p,
                             const at::Scalar& margin, const c10::optional<at::Tensor>& weight,
                             int64_t reduction) {
  Call c("multi_margin_loss", {&self, &target, maybe(weight)});
  return c.result(lazygen::multi_margin_loss(c.arg(self), c.arg(target), c.arg(p), c.arg(margin),
                                             c.arg(weight), reduction));
}

at::Tensor multi_margin_loss_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                      const at::Tensor& target, const at::Scalar& p,
                                      const at::Scalar& margin,
                                      const c10::optional<at::Tensor>& weight, int64_t reduction) {
  Call c("multi_margin_loss_backward", {&grad_output, &self, &target, maybe(weight)});
  return c.result(lazygen::multi_margin_loss_backward(c.arg(grad_output), c.arg(self),
                                                      c.arg(target), c.arg(p), c.arg(margin),
                                                      c.arg(weight), reduction));
}

::std::tuple<at::Tensor, at::Tensor> multilabel_margin_loss_forward(const at::Tensor& self,
                                                                    const at::Tensor& target,
                                                                    int64_t reduction) {
  Call c("multilabel_margin_loss_forward", {&self, &target});
  return c.result(lazygen::multilabel_margin_loss_forward(c.arg(self), c.arg(target), reduction));
}

at::Tensor multilabel_margin_loss_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                           const at::Tensor& target, int64_t reduction,
                                           const at::Tensor& is_target) {
  Call c("multilabel_margin_loss_backward", {&grad_output, &self, &target, &is_target});
  return c.result(lazygen::multilabel_margin_loss_backward(
      c.arg(grad_output), c.arg(self), c.arg(target), reduction, c.arg(is_target)));
}

}  // namespace lazygen::pytorch::adapters
