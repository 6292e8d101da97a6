// scatter_reduce's gradients (autograd/formulas.h), PyTorch's scatter_reduce_backward.
#include <string_view>
#include <utility>

#include "autograd/formulas.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/bitwise_and.h"
#include "lazygen/generated/ops/div.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/gather.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/masked_fill.h"
#include "lazygen/generated/ops/mul.h"
#include "lazygen/generated/ops/scatter_add.h"
#include "lazygen/generated/ops/scatter_reduce.h"
#include "lazygen/generated/ops/where.h"

namespace lazygen::autograd {
namespace {

using Grads = std::pair<Tensor, Tensor>;

// Each factor's gradient is the product of the others: the result over the factor, with the
// zeros taken out first (a position with one zero factor gives that factor the product of the
// others; with two or more, every factor's gradient there is zero).
Grads prod_grads(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& index,
                 const Tensor& src, bool include_self, const Tensor& result) {
  const Tensor masked_self = masked_fill(self, eq(self, Scalar(0)), Scalar(1));
  const Tensor grad_self = div(
      mul(grad, scatter_reduce(masked_self, dim, index, src, "prod", include_self)), masked_self);
  const Tensor src_zero = eq(src, Scalar(0));
  const Tensor zeros_there =
      gather(scatter_add(zeros_like(self), dim, index, src_zero.to(self.dtype())), dim, index);
  const Tensor single_zero = bitwise_and(src_zero, eq(zeros_there, Scalar(1)));
  const Tensor without_the_zero = scatter_reduce(
      self, dim, index, masked_fill(src, single_zero, Scalar(1)), "prod", include_self);
  const Tensor grad_src =
      where(single_zero, gather(mul(grad, without_the_zero), dim, index),
            div(gather(mul(grad, result), dim, index), masked_fill(src, src_zero, Scalar(1))));
  return {grad_self, grad_src};
}

// Each position's gradient divided by the number of values averaged there.
Grads mean_grads(const Tensor& grad, int64_t dim, const Tensor& index, const Tensor& src,
                 bool include_self) {
  const Tensor start = include_self ? ones_like(grad) : zeros_like(grad);
  const Tensor counted = scatter_add(start, dim, index, ones_like(src));
  const Tensor count = masked_fill(counted, eq(counted, Scalar(0)), Scalar(1));
  return {div(grad, count), div(gather(grad, dim, index), gather(count, dim, index))};
}

// The gradient shared evenly by the values equal to the extremum (self's counted even when not
// included, as PyTorch counts it).
Grads extremum_grads(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& index,
                     const Tensor& src, const Tensor& result) {
  const Tensor value = gather(result, dim, index);
  const Tensor self_is = eq(self, result).to(self.dtype());
  const Tensor src_is = eq(src, value).to(self.dtype());
  const Tensor shared = div(grad, scatter_add(self_is, dim, index, src_is));
  return {mul(self_is, shared), mul(src_is, gather(shared, dim, index))};
}

}  // namespace

Grads scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                              const Tensor& index, const Tensor& src, std::string_view reduce,
                              bool include_self, const Tensor& result) {
  Grads g;
  if (reduce == "sum") {
    g = {grad, gather(grad, dim, index)};
  } else if (reduce == "prod") {
    g = prod_grads(grad, self, dim, index, src, include_self, result);
  } else if (reduce == "mean") {
    g = mean_grads(grad, dim, index, src, include_self);
  } else {
    g = extremum_grads(grad, self, dim, index, src, result);
  }
  // Without self, the positions src reached owe self nothing.
  if (!include_self) {
    const Tensor reached = scatter_add(zeros_like(grad), dim, index, ones_like(src));
    g.first = masked_fill(g.first, gt(reached, Scalar(0)), Scalar(0));
  }
  return g;
}

}  // namespace lazygen::autograd
