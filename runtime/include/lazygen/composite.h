// Composite ops: hand-written compositions of the ops of ops.yaml, named and behaving like
// PyTorch's CompositeImplicitAutograd functions. They have no IR op, kernel or backward function
// of their own: autograd differentiates, and the lazy device traces, the ops they are made of.
// (Sources: runtime/ops/composite/.)
#pragma once

#include <string_view>

#include "lazygen/tensor.h"

namespace lazygen {

// torch.matmul. By the operands' ranks:
//   1-D @ 1-D  the dot product (a 0-dim tensor);
//   2-D @ 2-D  mm; a 1-D operand is promoted to a matrix ([1, k] on the left, [k, 1] on the
//              right) and that dim removed from the result;
//   N-D @ 1-D or 2-D (N >= 3)  self's batch dims folded into its rows: one mm;
//   otherwise  a batched product: batch dims (all but the last two; none for a 1-D operand)
//              broadcast, both operands expanded and flattened to 3-D, one bmm.
// Operands share one dtype and are at least 1-D; a ShapeError names matmul and both shapes.
// Also a method: x.matmul(y).
Tensor matmul(const Tensor& self, const Tensor& other);

// torch.nn.functional.gelu: x * Phi(x) with `approximate` "none" (Phi by erf: _gelu_erf) or
// "tanh" (_gelu_tanh); gelu_backward is its gradient given grad_output (_gelu_*_backward). Any
// other `approximate` is a ShapeError naming gelu, as PyTorch refuses it. float32 and float64.
Tensor gelu(const Tensor& self, std::string_view approximate = "none");
Tensor gelu_backward(const Tensor& grad_output, const Tensor& self, std::string_view approximate = "none");

}  // namespace lazygen
