// AccumulateGrad: the backward function at a leaf. Its one input is the gradient with respect
// to the leaf, which it adds into the leaf's grad(); it has no edges of its own.
//
// One accumulator exists per leaf at a time (grad_accumulator() hands out the live one), so all
// gradients reaching a leaf in one backward pass meet in one input buffer and are accumulated
// once. It holds the leaf (a Tensor handle) strongly and is never released by the engine: later
// graphs built on the leaf reuse it.
#pragma once

#include <memory>
#include <vector>

#include "autograd/function.h"
#include "lazygen/tensor.h"

namespace lazygen::autograd {

class AccumulateGrad final : public Function {
 public:
  explicit AccumulateGrad(Tensor leaf);

  // grads[0] (when defined) is added into the leaf's grad(). Returns no gradients.
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override;
  const char* name() const override { return "AccumulateGrad"; }

  const Tensor& leaf() const { return leaf_; }

 private:
  Tensor leaf_;
};

// The accumulator of `leaf`, created on first use. REQUIRES: leaf requires grad and has no
// grad_fn.
std::shared_ptr<Function> grad_accumulator(const Tensor& leaf);

// Adds `gradient` into `leaf`'s grad(): the first gradient is stored (itself when nobody else
// holds it and it is contiguous, else a copy, so grad() never aliases another tensor), later ones
// are added to it in place. REQUIRES: gradient has leaf's sizes; grad mode is off.
void accumulate_grad(const Tensor& leaf, Tensor&& gradient);

}  // namespace lazygen::autograd
