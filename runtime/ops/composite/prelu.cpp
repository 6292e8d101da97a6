// The parametric ReLU and its gradients (lazygen/composite.h): self where positive, else self
// times its channel's weight (dim 1, or one weight for every element), through where and
// pointwise ops; the weight's gradient sums over every dim but the channel's.
#include <string>
#include <tuple>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

// weight shaped to broadcast against self: [1, C, 1, ...] for C weights, as it is for one.
Tensor channel_weight(const char* op, const Tensor& self, const Tensor& weight) {
  if (weight.dim() > 1)
    throw ShapeError(op, "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = " +
                             std::to_string(weight.dim()));
  const int64_t count = weight.numel();
  if (count == 1) return reshape(weight, {});
  const int64_t channels = self.dim() >= 2 ? self.size(1) : 1;
  if (count != channels) {
    throw ShapeError(
        op, "Mismatch of parameter numbers and input channel size. Found parameter numbers = " +
                std::to_string(count) + " and channel size = " + std::to_string(channels) + ".");
  }
  std::vector<int64_t> sizes(static_cast<size_t>(self.dim()), 1);
  sizes[1] = count;
  return reshape(weight, sizes);
}

}  // namespace

Tensor prelu(const Tensor& self, const Tensor& weight) {
  const Tensor w = channel_weight("prelu", self, weight);
  return where(gt(self, 0), self, w * self);
}

std::tuple<Tensor, Tensor> prelu_backward(const Tensor& grad_output, const Tensor& self,
                                          const Tensor& weight) {
  const Tensor w = channel_weight("prelu_backward", self, weight);
  const Tensor positive = gt(self, 0);
  const Tensor grad_input = where(positive, grad_output, w * grad_output);
  const Tensor per_element = where(positive, zeros_like(self), self * grad_output);
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (weight.numel() == 1 || d != 1) dims.push_back(d);
  }
  const Tensor summed = dims.empty() ? per_element : sum(per_element, dims);
  return {grad_input, reshape(summed, weight.sizes())};
}

}  // namespace lazygen
