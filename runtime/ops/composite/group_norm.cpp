// Group normalization (lazygen/composite.h) in PyTorch's native_group_norm shape: input [N, C, *]
// viewed as [N, group, C / group * HxW], normalized per row; mean and rstd are [N, group].
#include <string>

#include "lazygen/composite.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/rsqrt.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

void check_group_norm(const char* op, const Tensor& input, int64_t N, int64_t C, int64_t HxW,
                      int64_t group) {
  if (input.dim() < 2 || input.size(0) != N || input.size(1) != C || input.numel() != N * C * HxW) {
    throw ShapeError(op, "expected input of shape [" + std::to_string(N) + ", " +
                             std::to_string(C) + ", *] with " + std::to_string(HxW) +
                             " elements per channel, got " + sizes_str(input.sizes()));
  }
  if (group <= 0 || C % group != 0) {
    throw ShapeError(
        op,
        "expected number of channels in input to be divisible by num_groups, but got input of "
        "shape " +
            sizes_str(input.sizes()) + " and num_groups=" + std::to_string(group));
  }
}

// A per-channel [C] tensor shaped to broadcast over input [N, C, *].
Tensor per_channel(const Tensor& t, const Tensor& input) {
  std::vector<int64_t> sizes(static_cast<size_t>(input.dim()), 1);
  sizes[1] = input.size(1);
  return reshape(t, sizes);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& input,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, int64_t N,
                                                     int64_t C, int64_t HxW, int64_t group,
                                                     double eps) {
  check_group_norm("native_group_norm", input, N, C, HxW, group);
  const Tensor rows = reshape(input, {N, group, -1});
  const Tensor mu = mean(rows, std::vector<int64_t>{2}, true);
  const Tensor centered = rows - mu;
  const Tensor rstd = rsqrt(mean(centered * centered, std::vector<int64_t>{2}, true) + eps);
  Tensor out = reshape(centered * rstd, input.sizes());
  if (weight) out = out * per_channel(*weight, input);
  if (bias) out = out + per_channel(*bias, input);
  return {out, reshape(mu, {N, group}), reshape(rstd, {N, group})};
}

std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward(
    const Tensor& grad_out, const Tensor& input, const Tensor& mean_, const Tensor& rstd,
    const std::optional<Tensor>& weight, int64_t N, int64_t C, int64_t HxW, int64_t group,
    std::array<bool, 3> output_mask) {
  check_group_norm("native_group_norm_backward", input, N, C, HxW, group);
  const Tensor r = reshape(rstd, {N, group, 1});
  const Tensor normalized = (reshape(input, {N, group, -1}) - reshape(mean_, {N, group, 1})) * r;
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    const Tensor g =
        reshape(weight ? grad_out * per_channel(*weight, input) : grad_out, {N, group, -1});
    const std::vector<int64_t> row{2};
    grad_input = reshape(
        r * (g - mean(g, row, true) - normalized * mean(g * normalized, row, true)), input.sizes());
  }
  const std::vector<int64_t> batch_and_space{0, 2};
  if (output_mask[1] && weight) {
    grad_weight =
        sum(reshape(grad_out * reshape(normalized, input.sizes()), {N, C, -1}), batch_and_space);
  }
  if (output_mask[2]) grad_bias = sum(reshape(grad_out, {N, C, -1}), batch_and_space);
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace lazygen
