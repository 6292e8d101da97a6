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

// mm's and addmm's mat2 gradient, alpha * mat1^T @ grad, in mat2's layout (PyTorch's
// mm_mat2_backward): when mat2 is a transposed matrix (a t() on the lazy device; column-major
// strides on the cpu) it is computed as (grad^T @ mat1)^T. linear's weight.t() then gets a
// weight gradient laid out like the weight, which the optimizer's fused update reads in place
// instead of gathering a transpose (a strided read per element).
Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, const Tensor& mat2,
                        const Scalar& alpha);

}  // namespace lazygen::autograd
