// Layer normalization (lazygen/composite.h) from mean, rsqrt and pointwise ops, in PyTorch's
// native_layer_norm / native_layer_norm_backward shape: mean and rstd keep the leading dims and
// a size-1 dim for each normalized one.
#include <string>

#include "lazygen/composite.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/rsqrt.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

// The last normalized_shape.size() dims of `input`, after checking they are normalized_shape.
std::vector<int64_t> normalized_dims(const char* op, const Tensor& input, const std::vector<int64_t>& normalized_shape) {
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  const std::vector<int64_t> sizes = input.sizes();
  bool ok = k >= 1 && k <= input.dim();
  for (int64_t i = 0; ok && i < k; ++i) ok = sizes[static_cast<size_t>(input.dim() - k + i)] == normalized_shape[static_cast<size_t>(i)];
  if (!ok) {
    throw ShapeError(op, "Given normalized_shape=" + sizes_str(normalized_shape) +
                             ", expected input with shape [*, " + sizes_str(normalized_shape).substr(1) +
                             ", but got input of size " + sizes_str(sizes));
  }
  std::vector<int64_t> dims;
  for (int64_t i = input.dim() - k; i < input.dim(); ++i) dims.push_back(i);
  return dims;
}

// The leading (not normalized) dims: what weight's and bias's gradients sum over.
std::vector<int64_t> leading_dims(const Tensor& input, size_t normalized) {
  std::vector<int64_t> dims;
  for (int64_t i = 0; i + static_cast<int64_t>(normalized) < input.dim(); ++i) dims.push_back(i);
  return dims;
}

// sum over `dims`, or t itself when there are none (sum with an empty list would sum every dim).
Tensor sum_over(const Tensor& t, const std::vector<int64_t>& dims) {
  return dims.empty() ? t : sum(t, dims);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double eps) {
  const std::vector<int64_t> dims = normalized_dims("native_layer_norm", input, normalized_shape);
  const Tensor mu = mean(input, dims, true);
  const Tensor centered = input - mu;
  const Tensor rstd = rsqrt(mean(centered * centered, dims, true) + eps);
  Tensor out = centered * rstd;
  if (weight) out = out * *weight;
  if (bias) out = out + *bias;
  return {out, mu, rstd};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(
    const Tensor& grad_out, const Tensor& input, const std::vector<int64_t>& normalized_shape, const Tensor& mean_,
    const Tensor& rstd, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    std::array<bool, 3> output_mask) {
  const std::vector<int64_t> dims = normalized_dims("native_layer_norm_backward", input, normalized_shape);
  const Tensor normalized = (input - mean_) * rstd;
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    const Tensor g = weight ? grad_out * *weight : grad_out;
    grad_input = rstd * (g - mean(g, dims, true) - normalized * mean(g * normalized, dims, true));
  }
  const std::vector<int64_t> leading = leading_dims(input, dims.size());
  if (output_mask[1] && weight) grad_weight = sum_over(grad_out * normalized, leading);
  if (output_mask[2] && bias) grad_bias = sum_over(grad_out, leading);
  return {grad_input, grad_weight, grad_bias};
}

Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps) {
  return std::get<0>(native_layer_norm(input, normalized_shape, weight, bias, eps));
}

}  // namespace lazygen
