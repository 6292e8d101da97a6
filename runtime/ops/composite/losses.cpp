// Embedding's gradient and the losses (lazygen/composite.h): mean squared error, binary cross
// entropy, smooth L1 and the per-pixel negative log likelihood, from nll_loss, index_add,
// where and pointwise ops.
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/clamp.h"
#include "lazygen/generated/ops/clamp_min.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/index_add.h"
#include "lazygen/generated/ops/index_select.h"
#include "lazygen/generated/ops/log.h"
#include "lazygen/generated/ops/lt.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/ne.h"
#include "lazygen/generated/ops/nll_loss.h"
#include "lazygen/generated/ops/nll_loss_backward.h"
#include "lazygen/generated/ops/permute.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/sign.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/generated/ops/where.h"
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

namespace lazygen {
namespace {

// The loss of each element, reduced as `reduction` asks (none, mean, sum).
Tensor reduced(const Tensor& loss, int64_t reduction) {
  if (reduction == kReductionNone) return loss;
  return reduction == kReductionMean ? mean(loss, std::nullopt) : sum(loss);
}

// grad_output scaled for `reduction`: divided by the element count for a mean.
Tensor scaled_grad(const Tensor& grad_output, int64_t reduction, int64_t numel) {
  return reduction == kReductionMean ? grad_output / static_cast<double>(numel) : grad_output;
}

void check_same_sizes(const char* op, const Tensor& self, const Tensor& target) {
  if (self.sizes() != target.sizes()) {
    throw ShapeError(op, "target size " + sizes_str(target.sizes()) + " must be the same as input size " +
                             sizes_str(self.sizes()));
  }
}

// [N, C, H, W] -> [N*H*W, C] (class scores per pixel) and [N, H, W] -> [N*H*W].
Tensor pixels_by_class(const Tensor& t) {
  return reshape(permute(t, {0, 2, 3, 1}), {-1, t.size(1)});
}

void check_nll_loss2d(const char* op, const Tensor& self, const Tensor& target) {
  if (self.dim() != 4 || target.dim() != 3 || target.size(0) != self.size(0) || target.size(1) != self.size(2) ||
      target.size(2) != self.size(3)) {
    throw ShapeError(op, "expected input [N, C, H, W] and target [N, H, W], got " + sizes_str(self.sizes()) +
                             " and " + sizes_str(target.sizes()));
  }
}

}  // namespace

Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                            int64_t reduction) {
  check_reduction("binary_cross_entropy", reduction);
  check_same_sizes("binary_cross_entropy", self, target);
  // PyTorch's clamp of each log at -100 keeps the loss finite at 0 and 1.
  const Tensor log_p = clamp_min(log(self), -100);
  const Tensor log_q = clamp_min(log(1.0 - self), -100);
  Tensor loss = (target - 1.0) * log_q - target * log_p;
  if (weight) loss = loss * *weight;
  return reduced(loss, reduction);
}

Tensor binary_cross_entropy_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                     const std::optional<Tensor>& weight, int64_t reduction) {
  check_reduction("binary_cross_entropy_backward", reduction);
  constexpr double kEpsilon = 1e-12;  // PyTorch's guard of the denominator
  Tensor grad = scaled_grad(grad_output, reduction, self.numel()) * (self - target) /
                clamp_min((1.0 - self) * self, kEpsilon);
  if (weight) grad = grad * *weight;
  return grad;
}

Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  check_reduction("smooth_l1_loss", reduction);
  if (beta < 0) throw ShapeError("smooth_l1_loss", "smooth_l1_loss does not support negative values for beta");
  const Tensor diff = self - target;
  const Tensor z = abs(diff);
  if (beta == 0) return reduced(z, reduction);  // the l1 loss, as PyTorch
  return reduced(where(lt(z, beta), diff * diff * (0.5 / beta), z - 0.5 * beta), reduction);
}

Tensor smooth_l1_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                               int64_t reduction, double beta) {
  check_reduction("smooth_l1_loss_backward", reduction);
  const Tensor diff = self - target;
  const Tensor slope = beta == 0 ? sign(diff) : clamp(diff / beta, -1.0, 1.0);
  return scaled_grad(grad_output, reduction, self.numel()) * slope;
}

Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  check_reduction("huber_loss", reduction);
  if (delta <= 0)
    throw ShapeError("huber_loss", "huber_loss does not support non-positive values for delta.");
  const Tensor diff = self - target;
  const Tensor z = abs(diff);
  return reduced(where(lt(z, delta), diff * diff * 0.5, (z - 0.5 * delta) * delta), reduction);
}

Tensor huber_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                           int64_t reduction, double delta) {
  check_reduction("huber_loss_backward", reduction);
  return scaled_grad(grad_output, reduction, self.numel()) * clamp(self - target, -delta, delta);
}

std::tuple<Tensor, Tensor> nll_loss_forward(const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight, int64_t reduction,
                                            int64_t ignore_index) {
  const Tensor output = nll_loss(self, target, weight, reduction, ignore_index);
  const Tensor zero = zeros({}, self.dtype(), self.device());
  if (reduction == kReductionNone) return {output, zero};
  const Tensor counted = ne(target, ignore_index);
  const Tensor w = weight ? index_select(*weight, 0, where(counted, target, zeros({}, target.dtype(), target.device())))
                          : ones({}, self.dtype(), self.device());
  return {output, sum(where(counted, w, zero))};
}

std::tuple<Tensor, Tensor> nll_loss2d_forward(const Tensor& self, const Tensor& target,
                                              const std::optional<Tensor>& weight, int64_t reduction,
                                              int64_t ignore_index) {
  check_nll_loss2d("nll_loss2d_forward", self, target);
  auto [output, total_weight] =
      nll_loss_forward(pixels_by_class(self), reshape(target, {-1}), weight, reduction, ignore_index);
  if (reduction == kReductionNone) output = reshape(output, target.sizes());
  return {output, total_weight};
}

Tensor nll_loss2d_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                           const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index) {
  check_nll_loss2d("nll_loss2d_backward", self, target);
  const Tensor grad = reduction == kReductionNone ? reshape(grad_output, {-1}) : grad_output;
  const Tensor per_pixel =
      nll_loss_backward(grad, pixels_by_class(self), reshape(target, {-1}), weight, reduction, ignore_index);
  // [N*H*W, C] -> [N, H, W, C] -> [N, C, H, W]
  return permute(reshape(per_pixel, {self.size(0), self.size(2), self.size(3), self.size(1)}), {0, 3, 1, 2});
}

}  // namespace lazygen
