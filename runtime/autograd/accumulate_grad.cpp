// AccumulateGrad and the accumulation rule (autograd/accumulate_grad.h).
//
// Note [Gradient ownership]: grad() is updated in place by later backward passes (and users and
// optimizers may update it in place too), so it must never alias another tensor: the same
// gradient tensor often flows to several leaves (add's backward passes `grad` to both inputs),
// and a user's gradient argument stays the user's. The first gradient a leaf receives is kept
// as is only when the engine holds the last reference to it, its data and (lazy) its state, and
// it is contiguous; otherwise grad() starts as a clone. On the lazy device a clone shares the
// pending value and costs nothing.
#include "autograd/accumulate_grad.h"

#include <stdexcept>
#include <utility>

#include "autograd/autograd_meta.h"
#include "core/tensor/tensor_impl.h"

namespace lazygen::autograd {
namespace {

// See Note [Gradient ownership].
bool exclusively_owned(const Tensor& t) {
  const TensorImpl& impl = *t.impl();
  if (t.impl_ptr().use_count() != 1 || impl.autograd_meta()) return false;
  if (impl.has_storage() && impl.storage().use_count() != 1) return false;
  if (impl.lazy_state() && impl.lazy_state().use_count() != 1) return false;
  return t.is_contiguous();
}

}  // namespace

AccumulateGrad::AccumulateGrad(Tensor leaf) : leaf_(std::move(leaf)) {
  // Leaves run as soon as their gradient is complete: nothing downstream waits on them.
  sequence_nr = UINT64_MAX;
}

std::vector<Tensor> AccumulateGrad::apply(std::vector<Tensor>&& grads) {
  if (!grads.empty() && grads[0].defined()) accumulate_grad(leaf_, std::move(grads[0]));
  return {};
}

std::shared_ptr<Function> grad_accumulator(const Tensor& leaf) {
  AutogradMeta& meta = ensure_autograd_meta(leaf);
  if (meta.grad_fn) {
    throw std::logic_error("grad_accumulator: a tensor with a grad_fn is not a leaf");
  }
  std::shared_ptr<Function> fn = meta.grad_accumulator.lock();
  if (!fn) {
    fn = std::make_shared<AccumulateGrad>(leaf);
    meta.grad_accumulator = fn;
  }
  return fn;
}

void accumulate_grad(const Tensor& leaf, Tensor&& gradient) {
  AutogradMeta& meta = ensure_autograd_meta(leaf);
  if (!meta.grad.defined()) {
    meta.grad = exclusively_owned(gradient) ? std::move(gradient) : gradient.clone();
  } else {
    meta.grad.add_(gradient);
  }
}

}  // namespace lazygen::autograd
