// Helpers that ops.yaml's `derivatives:` formulas may call besides the op API (the generated
// backward_<shard>.cpp includes this header).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

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

// The gradients of reductions over `dims` (nullopt or empty: all) of a tensor of `sizes`, from
// `grad` of the reduced shape (keepdim or not): sum spreads grad over the reduced dims; mean
// divides it by their element count; amax and amin share it equally among the extrema (`self`
// equal to `result`), as PyTorch does.
Tensor sum_backward(const Tensor& grad, const std::vector<int64_t>& sizes,
                    const std::optional<std::vector<int64_t>>& dims, bool keepdim);
Tensor mean_backward(const Tensor& grad, const std::vector<int64_t>& sizes,
                     const std::optional<std::vector<int64_t>>& dims, bool keepdim);
Tensor reduced_extremum_backward(const Tensor& grad, const Tensor& self, const Tensor& result,
                     const std::vector<int64_t>& dims, bool keepdim);
// The values gradient of max.dim, sort and topk: grad placed at `indices` along `dim` of a zero
// tensor of `sizes` (PyTorch's value_selecting_reduction_backward).
Tensor value_selecting_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                                const std::vector<int64_t>& sizes, bool keepdim);
// cumsum's gradient: the running sum of grad from the end, in self's dtype.
Tensor cumsum_backward(const Tensor& grad, int64_t dim, const Tensor& self);

// Views' gradients: the view's gradient put back in the shape of the tensor viewed.
Tensor permute_backward(const Tensor& grad, const std::vector<int64_t>& dims);
Tensor squeeze_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t dim);
Tensor select_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t dim,
                       int64_t index);
Tensor slice_view_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t dim,
                           std::optional<int64_t> start, std::optional<int64_t> end, int64_t step);
// cat's gradient: grad split along `dim` into the sizes of `tensors` (size-0 1-d ones, which cat
// skips, get zeros).
std::vector<Tensor> cat_backward(const Tensor& grad, const std::vector<Tensor>& tensors,
                                 int64_t dim);

// grad * sign(self) (abs), and maximum's / minimum's share for `self` against `other`: grad where
// self wins, half of it on ties, zero where it loses (PyTorch's rule); `max` picks the op.
Tensor abs_backward(const Tensor& grad, const Tensor& self);
Tensor extremum_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool max);

// _polygamma's gradient: grad * polygamma(n + 1, self).
Tensor polygamma_backward(const Tensor& grad, const Tensor& self, const Scalar& n);

// scatter_reduce's gradients of self and src, PyTorch's rules (scatter_backward.cpp).
std::pair<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self,
                                                  int64_t dim, const Tensor& index,
                                                  const Tensor& src, std::string_view reduce,
                                                  bool include_self, const Tensor& result);

}  // namespace lazygen::autograd
