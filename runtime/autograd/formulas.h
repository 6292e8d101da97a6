// Helpers that ops.yaml's `derivatives:` formulas may call besides the op API (the generated
// backward.cpp includes this header).
#pragma once

#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen::autograd {

// t * s, or t itself when s is exactly 1 (PyTorch's maybe_multiply). Formulas scale gradients by
// an op's alpha/beta, which is 1 almost always: skipping the multiply saves a pass over the
// gradient (on the lazy device a node and its memory). The choice is made from the scalar's value
// at trace time, so alpha = 1 and alpha = 2 trace different graphs, each cached once.
Tensor maybe_multiply(const Tensor& t, const Scalar& s);

}  // namespace lazygen::autograd
