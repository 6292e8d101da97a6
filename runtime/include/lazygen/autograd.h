// Reverse-mode automatic differentiation, as in PyTorch: mark leaves with requires_grad_(),
// compute, call backward() on a one-element result, read the leaves' grad().
//
//   Tensor w = randn({3, 4}, DType::Float64).requires_grad_();
//   Tensor loss = sum(tanh(mm(x, w)));
//   loss.backward();               // w.grad() now holds d loss / d w
//   {
//     NoGradGuard no_grad;         // e.g. an optimizer step: nothing here is recorded
//     w.sub_(w.grad() * 0.1);
//   }
//   w.zero_grad_();
//
// Every op with `derivatives:` in ops.yaml records its backward function when grad mode is on
// and one of its inputs requires grad; the backward formulas are themselves ops, so on the lazy
// device the backward pass is traced into the same graph as the forward pass (forward, backward
// and the optimizer step run as one cached graph at mark_step()).
//
// Gradients accumulate: each backward() adds into the leaves' grad() until zero_grad_() resets
// it. A backward() without retain_graph frees the graph's saved tensors; a second backward()
// through the same graph throws. Thread safety: grad mode is per thread; one autograd graph must
// not be used from two threads at once.
#pragma once

#include "lazygen/tensor.h"

namespace lazygen {
namespace autograd {

// Grad mode: when off, ops record no history. Per thread, on by default.
bool grad_mode_enabled();
void set_grad_mode_enabled(bool enabled);

// Turns grad mode off for its scope and restores the previous mode on exit.
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace autograd

using autograd::grad_mode_enabled;
using autograd::NoGradGuard;

// Computes the gradient of `root` with respect to every leaf that requires grad and that `root`
// depends on, adding it into the leaves' grad(). `gradient` is d(something)/d(root), of root's
// sizes; it may be omitted only when root has one element (it is then 1). Without
// `retain_graph` the graph's saved tensors are freed and a later backward() through the graph
// throws. Throws std::runtime_error when root does not require grad. Same as root.backward().
void backward(const Tensor& root, const Tensor& gradient = Tensor(), bool retain_graph = false);

}  // namespace lazygen
