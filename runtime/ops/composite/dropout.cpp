// native_dropout and its backward (lazygen/composite.h) on _dropout_mask, lazygen's Philox mask.
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/_dropout_mask.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/operators.h"

namespace lazygen {

std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train,
                                          int64_t seed) {
  if (p < 0 || p > 1) {
    throw ShapeError("native_dropout",
                     "dropout probability has to be between 0 and 1, but got " + std::to_string(p));
  }
  if (train.has_value() && !*train) return {input.clone(), ones_like(input, DType::Bool)};
  if (p == 1) return {zeros_like(input), zeros_like(input, DType::Bool)};
  const Tensor scaled_mask = _dropout_mask(input, p, seed);  // 0 or 1 / (1 - p)
  return {input * scaled_mask, gt(scaled_mask, 0)};
}

Tensor native_dropout_backward(const Tensor& grad_output, const Tensor& mask, double scale) {
  return grad_output * mask * scale;
}

}  // namespace lazygen
