// Batch normalization (lazygen/composite.h) from mean, sum, rsqrt, pointwise ops and copy_, in
// PyTorch's native_batch_norm / native_batch_norm_backward shape: statistics per channel (dim 1).
#include <algorithm>
#include <string>

#include "autograd/function.h"
#include "lazygen/autograd.h"
#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/copy_.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/rsqrt.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

// Every dim but the channels (1).
std::vector<int64_t> reduced_dims(const char* op, const Tensor& input) {
  if (input.dim() < 2) {
    throw ShapeError(op, "expected an input of at least 2 dims [N, C, ...], got " + sizes_str(input.sizes()));
  }
  std::vector<int64_t> dims = {0};
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  return dims;
}

// A per-channel [C] tensor shaped [1, C, 1, ...] to broadcast against input.
Tensor per_channel(const Tensor& t, const Tensor& input) {
  std::vector<int64_t> sizes(static_cast<size_t>(input.dim()), 1);
  sizes[1] = input.size(1);
  return reshape(t, sizes);
}

Tensor scaled(const Tensor& t, const std::optional<Tensor>& weight, const Tensor& input) {
  return weight ? t * per_channel(*weight, input) : t;
}

Tensor empty_stat(const Tensor& input) { return zeros({0}, input.dtype(), input.device()); }

// native_batch_norm's ops, recorded by autograd when grad mode is on.
std::tuple<Tensor, Tensor, Tensor> batch_norm_forward(const Tensor& input,
                                                      const std::optional<Tensor>& weight,
                                                      const std::optional<Tensor>& bias,
                                                      const std::optional<Tensor>& running_mean,
                                                      const std::optional<Tensor>& running_var,
                                                      bool training, double momentum, double eps) {
  const std::vector<int64_t> dims = reduced_dims("native_batch_norm", input);
  Tensor mu, invstd, save_mean, save_invstd;
  if (training) {
    mu = mean(input, dims);
    const Tensor centered = input - per_channel(mu, input);
    const Tensor var = mean(centered * centered, dims);
    invstd = rsqrt(var + eps);
    save_mean = mu;
    save_invstd = invstd;
    const int64_t n = input.numel() / std::max<int64_t>(input.size(1), 1);
    if (running_mean) copy_(*running_mean, *running_mean * (1 - momentum) + mu * momentum);
    if (running_var) {
      const double unbias = n > 1 ? static_cast<double>(n) / static_cast<double>(n - 1) : 1.0;
      copy_(*running_var, *running_var * (1 - momentum) + var * (momentum * unbias));
    }
  } else {
    if (!running_mean || !running_var) {
      throw ShapeError("native_batch_norm", "running_mean and running_var must be defined in evaluation mode");
    }
    mu = *running_mean;
    invstd = rsqrt(*running_var + eps);
    save_mean = empty_stat(input);
    save_invstd = empty_stat(input);
  }
  Tensor out = scaled((input - per_channel(mu, input)) * per_channel(invstd, input), weight, input);
  if (bias) out = out + per_channel(*bias, input);
  return {out, save_mean, save_invstd};
}

// Note [Batch norm's backward function]
// Differentiated through the ops of its forward, batch norm's backward reduced over the input's
// size five times a layer (the gradients of the per-channel operands its forward broadcasts are
// sums over the other dims), seven passes with the forward's mean and variance. So when input,
// weight or bias requires grad (and the running statistics do not, which only evaluation
// reads), the forward runs without recording and one backward function calls
// native_batch_norm_backward, PyTorch's formulation with two reductions (sum(dy) and
// sum(dy * (x - mean))), as PyTorch's autograd does with its native kernel. save_mean and
// save_invstd are not differentiable outputs, as in PyTorch. Backward formulas run with grad
// mode off, so this function, like every other, has no derivative of its own.
class NativeBatchNormBackward final : public autograd::Function {
 public:
  const char* name() const override { return "NativeBatchNormBackward"; }

  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    if (!grads[0].defined()) return std::vector<Tensor>(3);
    auto [input_grad, weight_grad, bias_grad] = native_batch_norm_backward(
        grads[0], input, weight, running_mean, running_var, save_mean, save_invstd, training, eps,
        {needs_input_grad(0), needs_input_grad(1), needs_input_grad(2)});
    return {input_grad, weight_grad, bias_grad};
  }

  void release_saved() override {
    input = Tensor();
    weight = running_mean = running_var = save_mean = save_invstd = std::nullopt;
  }

  Tensor input;
  std::optional<Tensor> weight, running_mean, running_var, save_mean, save_invstd;
  bool training = true;
  double eps = 0;
};

bool requires_grad(const std::optional<Tensor>& t) {
  return t && t->defined() && t->requires_grad();
}

// Records NativeBatchNormBackward as the history of `out` (See Note [Batch norm's backward
// function]).
void record_batch_norm(const Tensor& out, const Tensor& input, const std::optional<Tensor>& weight,
                       const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                       const std::optional<Tensor>& running_var, const Tensor& save_mean,
                       const Tensor& save_invstd, bool training, double eps) {
  auto fn = std::make_shared<NativeBatchNormBackward>();
  fn->next_edges = {autograd::gradient_edge(input), autograd::gradient_edge(weight),
                    autograd::gradient_edge(bias)};
  fn->input_shapes = {input.shape(), weight ? weight->shape() : Shape(),
                      bias ? bias->shape() : Shape()};
  fn->input = autograd::saved(input);
  fn->weight = autograd::saved(weight);
  if (!training) {
    fn->running_mean = autograd::saved(running_mean);
    fn->running_var = autograd::saved(running_var);
  }
  fn->save_mean = autograd::saved(save_mean);
  fn->save_invstd = autograd::saved(save_invstd);
  fn->training = training;
  fn->eps = eps;
  autograd::set_history(out, fn, 0);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias,
                                                     const std::optional<Tensor>& running_mean,
                                                     const std::optional<Tensor>& running_var,
                                                     bool training, double momentum, double eps) {
  const bool wants_grad =
      autograd::needs_grad({&input, weight ? &*weight : nullptr, bias ? &*bias : nullptr});
  if (!wants_grad || requires_grad(running_mean) || requires_grad(running_var)) {
    return batch_norm_forward(input, weight, bias, running_mean, running_var, training, momentum,
                              eps);
  }
  std::tuple<Tensor, Tensor, Tensor> result;
  {
    NoGradGuard no_grad;
    result =
        batch_norm_forward(input, weight, bias, running_mean, running_var, training, momentum, eps);
  }
  record_batch_norm(std::get<0>(result), input, weight, bias, running_mean, running_var,
                    std::get<1>(result), std::get<2>(result), training, eps);
  return result;
}

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask) {
  const std::vector<int64_t> dims = reduced_dims("native_batch_norm_backward", input);
  const bool batch_stats = train && save_mean && save_invstd;
  if (!batch_stats && (!running_mean || !running_var)) {
    throw ShapeError("native_batch_norm_backward", "needs save_mean/save_invstd (training) or running statistics");
  }
  const Tensor mu = batch_stats ? *save_mean : *running_mean;
  const Tensor invstd = batch_stats ? *save_invstd : rsqrt(*running_var + eps);
  // PyTorch's formulation: two reductions over the input's size, sum(dy) and
  // dotp = sum(dy * (x - mean)); every gradient is per-channel arithmetic on them and pointwise
  // ops (the per-channel means of dy * w * invstd and of its product with the normalized input,
  // reduced separately, took two more passes over [n, c, h, w]).
  const Tensor centered = input - per_channel(mu, input);
  const bool input_sums = output_mask[0] && batch_stats;
  const Tensor sum_dy = input_sums || output_mask[2] ? sum(grad_out, dims) : Tensor();
  const Tensor dotp =
      input_sums || (output_mask[1] && weight) ? sum(grad_out * centered, dims) : Tensor();
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    const Tensor scale = per_channel(weight ? invstd * *weight : invstd, input);
    if (batch_stats) {
      const double n = static_cast<double>(input.numel() / std::max<int64_t>(input.size(1), 1));
      const Tensor k = per_channel(dotp * invstd * invstd / n, input);
      grad_input = (grad_out - per_channel(sum_dy / n, input) - centered * k) * scale;
    } else {
      grad_input = grad_out * scale;
    }
  }
  if (output_mask[1] && weight) grad_weight = dotp * invstd;
  if (output_mask[2]) grad_bias = sum_dy;
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace lazygen
