// AutogradMeta: what a TensorImpl's autograd slot holds (see core/tensor/tensor_impl.h).
//
// A tensor without the slot takes no part in autograd. A leaf the user marked with
// requires_grad_() has `requires_grad` set; its gradients arrive through an AccumulateGrad
// function that the slot references weakly (the graphs built on the leaf own it, so a leaf does
// not keep an accumulator, or a graph, alive). A result of a recorded op has `grad_fn` (and
// `output_nr`, which of the op's outputs it is) instead; it requires grad through that history.
// Only leaves accumulate `grad`.
//
// Thread safety: follows Tensor's rule (one writer at a time).
#pragma once

#include <cstdint>
#include <memory>

#include "lazygen/tensor.h"

namespace lazygen::autograd {

class Function;

struct AutogradMeta {
  bool requires_grad = false;  // leaves only; results require grad through grad_fn
  Tensor grad;                 // leaves only: the accumulated gradient
  std::shared_ptr<Function> grad_fn;
  uint32_t output_nr = 0;
  std::weak_ptr<Function> grad_accumulator;  // leaves only; See the paragraph above
};

// The slot of `t`, or null when `t` is undefined or has none.
AutogradMeta* autograd_meta(const Tensor& t);
// The slot of `t`, created empty when absent. REQUIRES: t is defined.
AutogradMeta& ensure_autograd_meta(const Tensor& t);

}  // namespace lazygen::autograd
