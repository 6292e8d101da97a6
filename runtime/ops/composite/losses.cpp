// Embedding's gradient and the mean-squared-error loss (lazygen/composite.h) from index_add,
// where and pointwise ops.
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops.h"
#include "lazygen/operators.h"
#include "ops/shape/training_shapes.h"

namespace lazygen {

Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                int64_t padding_idx) {
  const int64_t width = grad_output.size(-1);
  const Tensor flat_indices = reshape(indices, {-1});
  Tensor rows = reshape(grad_output, {-1, width});
  if (padding_idx >= 0) {  // the padding row gets no gradient
    rows = where(unsqueeze(eq(flat_indices, padding_idx), 1), zeros_like(rows), rows);
  }
  const Tensor grad_weight = zeros({num_weights, width}, grad_output.dtype(), grad_output.device());
  return index_add(grad_weight, 0, flat_indices, rows);
}

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  check_reduction("mse_loss", reduction);
  const Tensor diff = self - target;
  const Tensor squared = diff * diff;
  if (reduction == kReductionNone) return squared;
  return reduction == kReductionMean ? mean(squared, std::nullopt) : sum(squared);
}

Tensor mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction) {
  check_reduction("mse_loss_backward", reduction);
  const Tensor diff = self - target;
  const double norm = reduction == kReductionMean ? 2.0 / static_cast<double>(diff.numel()) : 2.0;  // as PyTorch's
  return diff * norm * grad_output;
}

}  // namespace lazygen
