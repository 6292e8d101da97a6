// Tensor's autograd methods (lazygen/tensor.h) and lazygen::backward (lazygen/autograd.h). The
// tensor core defines the rest of Tensor; this part owns the autograd slot (autograd_meta.h).
#include <memory>
#include <stdexcept>
#include <string>

#include "autograd/autograd_meta.h"
#include "autograd/engine.h"
#include "autograd/function.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/autograd.h"
#include "lazygen/tensor.h"

namespace lazygen {
namespace {

void check_defined(const Tensor& t, const char* method) {
  if (!t.defined()) throw std::logic_error(std::string(method) + " on an undefined tensor");
}

}  // namespace

bool Tensor::requires_grad() const {
  const autograd::AutogradMeta* meta = autograd::autograd_meta(*this);
  return meta != nullptr && (meta->requires_grad || meta->grad_fn != nullptr);
}

Tensor& Tensor::requires_grad_(bool value) {
  check_defined(*this, "requires_grad_()");
  autograd::AutogradMeta* meta = autograd::autograd_meta(*this);
  if (meta != nullptr && meta->grad_fn) {
    if (value) return *this;
    throw std::runtime_error(
        "you can only change requires_grad flags of leaf tensors; this one was computed by " +
        std::string(meta->grad_fn->name()) + " (use detach() to get a tensor without history)");
  }
  if (value && !is_floating(dtype())) {
    throw std::runtime_error("only floating point tensors can require gradients (this one is " +
                             std::string(dtype_name(dtype())) + ")");
  }
  if (meta == nullptr && !value) return *this;
  autograd::ensure_autograd_meta(*this).requires_grad = value;
  return *this;
}

Tensor Tensor::grad() const {
  const autograd::AutogradMeta* meta = autograd::autograd_meta(*this);
  return meta != nullptr ? meta->grad : Tensor();
}

void Tensor::backward(const Tensor& gradient, bool retain_graph) const {
  autograd::run_backward(*this, gradient, retain_graph);
}

Tensor Tensor::detach() const {
  check_defined(*this, "detach()");
  const TensorImpl& impl = *impl_;
  if (impl.has_storage()) return make_view(*this, sizes(), strides(), storage_offset());
  if (impl.lazy_state()) {
    return Tensor(std::make_shared<TensorImpl>(impl.shape(), impl.device(), impl.lazy_state()));
  }
  throw std::logic_error("detach(): a " + device().str() +
                         " tensor with neither data nor a lazy "
                         "state");
}

void Tensor::zero_grad_() const {
  autograd::AutogradMeta* meta = autograd::autograd_meta(*this);
  if (meta != nullptr) meta->grad = Tensor();
}

const std::shared_ptr<autograd::Function>& Tensor::grad_fn() const {
  static const std::shared_ptr<autograd::Function> kNone;
  const autograd::AutogradMeta* meta = autograd::autograd_meta(*this);
  return meta != nullptr ? meta->grad_fn : kNone;
}

void backward(const Tensor& root, const Tensor& gradient, bool retain_graph) {
  autograd::run_backward(root, gradient, retain_graph);
}

}  // namespace lazygen
