// Adapters for the training ops PyTorch's tutorial CNN reaches the device with (ops.yaml,
// "PyTorch adapters"): convolution and its backward on lazygen's conv2d ops, nll_loss's
// forward/backward pair; and the random ops: bernoulli_ (dropout's mask; torch.bernoulli(x, p) decomposes into it), bernoulli, native_dropout
// and its backward, normal_ and random_, drawing from lazygen's Philox stream or generator seeded
// from PyTorch's generator, so torch.manual_seed makes runs repeatable (the numbers are not the
// CPU's: a different generator).
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/DistributionsHelper.h>
#include <c10/util/Exception.h>

#include <limits>
#include <mutex>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/_dropout_mask.h"
#include "lazygen/generated/ops/conv2d.h"
#include "lazygen/generated/ops/conv2d_backward_input.h"
#include "lazygen/generated/ops/conv2d_backward_weight.h"
#include "lazygen/generated/ops/copy_.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/lt.h"
#include "lazygen/generated/ops/max.h"
#include "lazygen/generated/ops/nll_loss_backward.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/torch_adapters.h"
#include "lazygen/operators.h"
#include "pytorch/call.h"
#include "pytorch/fallback.h"

namespace lazygen::pytorch::adapters {
namespace {

bool all_zero(c10::IntArrayRef v) {
  for (int64_t x : v) {
    if (x != 0) return false;
  }
  return true;
}

// lazygen's conv2d ops serve batched 2-d, non-transposed convolutions; the rest runs on the CPU.
bool lowered(const at::Tensor& input, bool transposed, c10::IntArrayRef output_padding) {
  return input.dim() == 4 && !transposed && all_zero(output_padding);
}


}  // namespace

at::Tensor convolution(const at::Tensor& input, const at::Tensor& weight,
                       const c10::optional<at::Tensor>& bias, c10::IntArrayRef stride,
                       c10::IntArrayRef padding, c10::IntArrayRef dilation, bool transposed,
                       c10::IntArrayRef output_padding, int64_t groups) {
  if (!lowered(input, transposed, output_padding)) {
    static const c10::OperatorHandle op = aten_op("aten::convolution");
    return call_on_cpu<at::Tensor>(op, input, weight, bias, stride, padding, dilation, transposed,
                                   output_padding, groups);
  }
  Call c("convolution", {&input, &weight, maybe(bias)});
  return c.result(conv2d(c.arg(input), c.arg(weight), c.arg(bias), c.arg(stride), c.arg(padding),
                         c.arg(dilation), groups));
}

::std::tuple<at::Tensor, at::Tensor, at::Tensor> convolution_backward(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight,
    at::OptionalIntArrayRef bias_sizes, c10::IntArrayRef stride, c10::IntArrayRef padding,
    c10::IntArrayRef dilation, bool transposed, c10::IntArrayRef output_padding, int64_t groups,
    ::std::array<bool, 3> output_mask) {
  if (!lowered(input, transposed, output_padding)) {
    static const c10::OperatorHandle op = aten_op("aten::convolution_backward");
    return call_on_cpu<::std::tuple<at::Tensor, at::Tensor, at::Tensor>>(
        op, grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
        output_padding, groups, output_mask);
  }
  Call c("convolution_backward", {&grad_output, &input, &weight});
  const Tensor& grad = c.arg(grad_output);
  at::Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    grad_input = c.result(conv2d_backward_input(grad, c.arg(weight), c.arg(input).sizes(),
                                                c.arg(stride), c.arg(padding), c.arg(dilation),
                                                groups));
  }
  if (output_mask[1]) {
    grad_weight = c.result(conv2d_backward_weight(grad, c.arg(input), c.arg(weight).sizes(),
                                                  c.arg(stride), c.arg(padding), c.arg(dilation),
                                                  groups));
  }
  if (output_mask[2]) grad_bias = c.result(sum(grad, std::vector<int64_t>{0, 2, 3}));
  return {grad_input, grad_weight, grad_bias};
}

// total_weight as PyTorch's kernel computes it (lazygen::nll_loss_forward).
::std::tuple<at::Tensor, at::Tensor> nll_loss_forward(const at::Tensor& self, const at::Tensor& target,
                                                      const c10::optional<at::Tensor>& weight, int64_t reduction,
                                                      int64_t ignore_index) {
  Call c("nll_loss_forward", {&self, &target, maybe(weight)});
  return c.result(lazygen::nll_loss_forward(c.arg(self), c.arg(target), c.arg(weight), reduction, ignore_index));
}

at::Tensor nll_loss_backward(const at::Tensor& grad_output, const at::Tensor& self,
                             const at::Tensor& target, const c10::optional<at::Tensor>& weight,
                             int64_t reduction, int64_t ignore_index,
                             const at::Tensor& total_weight) {
  (void)total_weight;  // lazygen's kernel sums the weights itself
  Call c("nll_loss_backward", {&grad_output, &self, &target, maybe(weight)});
  return c.result(nll_loss_backward(c.arg(grad_output), c.arg(self), c.arg(target), c.arg(weight),
                                    reduction, ignore_index));
}

// Element i is 1 with probability p: lazygen's dropout mask (Philox, seeded from PyTorch's
// generator, so torch.manual_seed makes runs repeatable) kept where it is non-zero.
namespace {

// A 63-bit seed drawn from PyTorch's generator (the default CPU one unless given).
int64_t draw_seed(const c10::optional<at::Generator>& generator) {
  auto* gen = at::get_generator_or_default<at::CPUGeneratorImpl>(generator, at::detail::getDefaultCPUGenerator());
  std::lock_guard<std::mutex> lock(gen->mutex_);
  return static_cast<int64_t>(gen->random64() >> 1);
}

// A bool device tensor like t: true with probability p, from lazygen's dropout mask.
Tensor bernoulli_mask(const Tensor& t, double p, const c10::optional<at::Generator>& generator) {
  if (p <= 0) return zeros_like(t, DType::Bool);
  if (p >= 1) return ones_like(t, DType::Bool);
  return gt(_dropout_mask(t, 1.0 - p, draw_seed(generator)), 0);
}

}  // namespace

at::Tensor& bernoulli_inplace_float(at::Tensor& self, double p,
                                    c10::optional<at::Generator> generator) {
  TORCH_CHECK(0 <= p && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  if (!c10::isFloatingType(self.scalar_type())) {  // lazygen's mask is floating
    static const c10::OperatorHandle op = aten_op("aten::bernoulli_", "float");
    return self = call_on_cpu<at::Tensor>(op, self, p, generator);
  }
  Call c("bernoulli_", {&self});
  const Tensor& t = c.arg(self);
  check_writable("bernoulli_", t);
  copy_(t, bernoulli_mask(t, p, generator).to(t.dtype()));
  return self;
}

// Each element 1 with the probability self holds (a float tensor of probabilities).
at::Tensor bernoulli(const at::Tensor& self, c10::optional<at::Generator> generator) {
  Call c("bernoulli", {&self});
  const Tensor& probabilities = c.arg(self);
  Generator draws(static_cast<uint64_t>(draw_seed(generator)));
  const Tensor uniform = rand(probabilities.sizes(), draws, probabilities.dtype(), probabilities.device());
  return c.result(lt(uniform, probabilities).to(probabilities.dtype()));
}

::std::tuple<at::Tensor, at::Tensor> native_dropout(const at::Tensor& input, double p, c10::optional<bool> train) {
  Call c("native_dropout", {&input});
  const std::optional<bool> training = train ? std::optional<bool>(*train) : std::nullopt;
  const bool draws = (!training || *training) && 0 < p && p < 1;
  return c.result(lazygen::native_dropout(c.arg(input), p, training, draws ? draw_seed(c10::nullopt) : 0));
}

at::Tensor native_dropout_backward(const at::Tensor& grad_output, const at::Tensor& mask, double scale) {
  Call c("native_dropout_backward", {&grad_output, &mask});
  return c.result(lazygen::native_dropout_backward(c.arg(grad_output), c.arg(mask), scale));
}

at::Tensor& normal_inplace(at::Tensor& self, double mean, double std, c10::optional<at::Generator> generator) {
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  Call c("normal_", {&self});
  const Tensor& t = c.written(self);
  TORCH_CHECK(is_floating(t.dtype()), "normal_ expects a floating point tensor");
  Generator draws(static_cast<uint64_t>(draw_seed(generator)));
  copy_(t, randn(t.sizes(), draws, t.dtype(), t.device()) * std + mean);
  return self;
}

namespace {

// Uniform integers on [from, to) written into self (any dtype that holds them).
at::Tensor& fill_random(const Call& c, at::Tensor& self, int64_t from, int64_t to,
                        const c10::optional<at::Generator>& generator) {
  TORCH_CHECK(from < to, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", to);
  const Tensor& t = c.written(self);
  Generator draws(static_cast<uint64_t>(draw_seed(generator)));
  copy_(t, randint(from, to, t.sizes(), draws, DType::Int64, t.device()).to(t.dtype()));
  return self;
}

// PyTorch's default upper bound: 2^digits for floating dtypes (every integer exact), else the
// dtype's maximum + 1 (bool: 2).
int64_t default_random_end(c10::ScalarType t) {
  switch (t) {
    case c10::kBool: return 2;
    case c10::kInt: return int64_t{1} << 31;
    case c10::kFloat: return int64_t{1} << 24;
    case c10::kDouble: return int64_t{1} << 53;
    default: return std::numeric_limits<int64_t>::max();
  }
}

}  // namespace

at::Tensor& random_inplace(at::Tensor& self, c10::optional<at::Generator> generator) {
  Call c("random_", {&self});
  return fill_random(c, self, 0, default_random_end(self.scalar_type()), generator);
}

at::Tensor& random_inplace_from(at::Tensor& self, int64_t from, c10::optional<int64_t> to,
                                c10::optional<at::Generator> generator) {
  Call c("random_.from", {&self});
  return fill_random(c, self, from, to ? *to : default_random_end(self.scalar_type()), generator);
}

at::Tensor& random_inplace_to(at::Tensor& self, int64_t to, c10::optional<at::Generator> generator) {
  Call c("random_.to", {&self});
  return fill_random(c, self, 0, to, generator);
}

}  // namespace lazygen::pytorch::adapters
