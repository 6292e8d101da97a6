// Adapters for the training ops PyTorch's tutorial CNN reaches the device with (ops.yaml,
// "PyTorch adapters"): convolution and its backward (1-d to 3-d, transposed or not) on lazygen's
// conv2d ops and conv3d composites, nll_loss's forward/backward pair; and the random ops:
// bernoulli_ (dropout's mask; torch.bernoulli(x, p) decomposes into it), bernoulli,
// native_dropout and its backward,
// normal_, exponential_ (Gumbel noise), random_, multinomial, rrelu's noise and randperm, drawing
// from lazygen's Philox stream or generator seeded from PyTorch's generator, so torch.manual_seed
// makes runs repeatable (the numbers are not the CPU's: a different generator).
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/DistributionsHelper.h>
#include <c10/util/Exception.h>

#include <limits>
#include <mutex>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/_dropout_mask.h"
#include "lazygen/generated/ops/conv2d.h"
#include "lazygen/generated/ops/conv2d_backward_input.h"
#include "lazygen/generated/ops/conv2d_backward_weight.h"
#include "lazygen/generated/ops/copy_.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/le.h"
#include "lazygen/generated/ops/leaky_relu.h"
#include "lazygen/generated/ops/log1p.h"
#include "lazygen/generated/ops/lt.h"
#include "lazygen/generated/ops/max.h"
#include "lazygen/generated/ops/neg.h"
#include "lazygen/generated/ops/nll_loss_backward.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/sort.h"
#include "lazygen/generated/ops/squeeze.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/generated/torch_adapters.h"
#include "lazygen/operators.h"
#include "pytorch/call.h"
#include "pytorch/fallback.h"

namespace lazygen::pytorch::adapters {
namespace {

// lazygen's conv2d ops serve batched 1-d and 2-d convolutions, transposed or not (a 1-d one as a
// 2-d one over planes of height 1; a transposed one is conv2d's input gradient, Note [Transposed
// convolution]), and lazygen's conv3d composites 3-d ones (Note [3-d convolution as 2-d ones]);
// unbatched inputs arrive batched (PyTorch's convolution adds the batch dim).
bool lowered(const at::Tensor& input) {
  return input.dim() >= 3 && input.dim() <= 5;
}

bool three_d(const at::Tensor& input) {
  return input.dim() == 5;
}

// Note [Transposed convolution]
// A transposed convolution of x [N, Cin, H, W] by w [Cin, Cout/groups, kh, kw] is the adjoint of
// the convolution by w that maps [N, Cout, Ho, Wo] to x's shape: conv2d_backward_input(x, w,
// [N, Cout, Ho, Wo]) with Ho = (H - 1) * stride - 2 * padding + dilation * (kh - 1) +
// output_padding + 1. Its gradients swap roles accordingly: the input's is conv2d(grad, w), the
// weight's conv2d_backward_weight(x, grad), as the gradient of <grad, conv2d_backward_input(x, w)>.

// A convolution's geometry for lazygen's 2-d ops: a 1-d convolution's gets a leading height dim
// (stride 1, padding 0, dilation 1, output padding 0).
struct Geometry {
  bool one_d;
  std::vector<int64_t> stride, padding, dilation, output_padding;
};

Geometry geometry(const at::Tensor& input, c10::IntArrayRef stride, c10::IntArrayRef padding,
                  c10::IntArrayRef dilation, c10::IntArrayRef output_padding) {
  const bool one_d = input.dim() == 3;
  const auto lift = [&](c10::IntArrayRef v, int64_t height) {
    std::vector<int64_t> out = to_ints(v);
    if (one_d) out.insert(out.begin(), height);
    return out;
  };
  return {one_d, lift(stride, 1), lift(padding, 0), lift(dilation, 1), lift(output_padding, 0)};
}

Tensor as_2d(const Tensor& t, const Geometry& g) {
  return g.one_d ? unsqueeze(t, 2) : t;
}
at::Tensor result_of(const Call& c, const Tensor& t, const Geometry& g) {
  return c.result(g.one_d ? squeeze(t, 2) : t);
}

// The output sizes of a transposed convolution of x by w (both 2-d or both 3-d): PyTorch's formula
// and check.
std::vector<int64_t> transposed_sizes(const Tensor& x, const Tensor& w, const Geometry& g,
                                      int64_t groups) {
  std::vector<int64_t> out = {x.size(0), w.size(1) * groups};
  for (size_t d = 0; d + 2 < static_cast<size_t>(x.dim()); ++d) {
    TORCH_CHECK(
        g.output_padding[d] < g.stride[d] || g.output_padding[d] < g.dilation[d],
        "output padding must be smaller than either stride or dilation, but got output_padding: ",
        c10::IntArrayRef(g.output_padding), ", stride: ", c10::IntArrayRef(g.stride),
        ", dilation: ", c10::IntArrayRef(g.dilation));
    const int64_t k = w.size(static_cast<int64_t>(d) + 2);
    out.push_back((x.size(static_cast<int64_t>(d) + 2) - 1) * g.stride[d] - 2 * g.padding[d] +
                  g.dilation[d] * (k - 1) + g.output_padding[d] + 1);
  }
  return out;
}

}  // namespace

at::Tensor convolution(const at::Tensor& input, const at::Tensor& weight,
                       const c10::optional<at::Tensor>& bias, c10::IntArrayRef stride,
                       c10::IntArrayRef padding, c10::IntArrayRef dilation, bool transposed,
                       c10::IntArrayRef output_padding, int64_t groups) {
  if (!lowered(input)) {
    static const c10::OperatorHandle op = aten_op("aten::convolution");
    return call_on_cpu<at::Tensor>(op, input, weight, bias, stride, padding, dilation, transposed,
                                   output_padding, groups);
  }
  Call c("convolution", {&input, &weight, maybe(bias)});
  const Geometry g = geometry(input, stride, padding, dilation, output_padding);
  const Tensor x = as_2d(c.arg(input), g), w = as_2d(c.arg(weight), g);
  if (!transposed) {
    if (three_d(input)) {
      return c.result(conv3d(x, w, c.arg(bias), g.stride, g.padding, g.dilation, groups));
    }
    return result_of(c, conv2d(x, w, c.arg(bias), g.stride, g.padding, g.dilation, groups), g);
  }
  const std::vector<int64_t> sizes = transposed_sizes(x, w, g, groups);
  Tensor y = three_d(input)
                 ? conv3d_backward_input(x, sizes, w, g.stride, g.padding, g.dilation, groups)
                 : conv2d_backward_input(x, w, sizes, g.stride, g.padding, g.dilation, groups);
  if (const std::optional<Tensor> b = c.arg(bias)) {
    std::vector<int64_t> channels(static_cast<size_t>(y.dim()), 1);
    channels[1] = -1;
    y = y + reshape(*b, channels);
  }
  return result_of(c, y, g);
}

::std::tuple<at::Tensor, at::Tensor, at::Tensor> convolution_backward(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight,
    at::OptionalIntArrayRef bias_sizes, c10::IntArrayRef stride, c10::IntArrayRef padding,
    c10::IntArrayRef dilation, bool transposed, c10::IntArrayRef output_padding, int64_t groups,
    ::std::array<bool, 3> output_mask) {
  if (!lowered(input)) {
    static const c10::OperatorHandle op = aten_op("aten::convolution_backward");
    return call_on_cpu<::std::tuple<at::Tensor, at::Tensor, at::Tensor>>(
        op, grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
        output_padding, groups, output_mask);
  }
  Call c("convolution_backward", {&grad_output, &input, &weight});
  const Geometry g = geometry(input, stride, padding, dilation, output_padding);
  const Tensor grad = as_2d(c.arg(grad_output), g), x = as_2d(c.arg(input), g),
               w = as_2d(c.arg(weight), g);
  // The convolution that maps grad's space to x's (the forward one, or the transposed one's
  // adjoint) and the weight gradient of the convolution from `in` to `out`.
  const auto convolve = [&](const Tensor& t) {
    return three_d(input) ? conv3d(t, w, std::nullopt, g.stride, g.padding, g.dilation, groups)
                          : conv2d(t, w, std::nullopt, g.stride, g.padding, g.dilation, groups);
  };
  const auto input_gradient = [&](const Tensor& t) {
    return three_d(input)
               ? conv3d_backward_input(t, x.sizes(), w, g.stride, g.padding, g.dilation, groups)
               : conv2d_backward_input(t, w, x.sizes(), g.stride, g.padding, g.dilation, groups);
  };
  const auto weight_gradient = [&](const Tensor& out, const Tensor& in) {
    return three_d(input)
               ? conv3d_backward_weight(out, in, w.sizes(), g.stride, g.padding, g.dilation, groups)
               : conv2d_backward_weight(out, in, w.sizes(), g.stride, g.padding, g.dilation,
                                        groups);
  };
  at::Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    grad_input = result_of(c, transposed ? convolve(grad) : input_gradient(grad), g);
  }
  if (output_mask[1]) {
    grad_weight = result_of(c, transposed ? weight_gradient(x, grad) : weight_gradient(grad, x), g);
  }
  if (output_mask[2]) {
    std::vector<int64_t> dims = {0, 2, 3};
    if (three_d(input)) dims.push_back(4);
    grad_bias = c.result(sum(grad, dims));
  }
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

// -log(1 - u) / lambd for u uniform on [0, 1): exponential with rate lambd (Gumbel noise).
at::Tensor& exponential_inplace(at::Tensor& self, double lambd,
                                c10::optional<at::Generator> generator) {
  TORCH_CHECK(lambd > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  Call c("exponential_", {&self});
  const Tensor& t = c.written(self);
  TORCH_CHECK(is_floating(t.dtype()), "exponential_ expects a floating point tensor");
  Generator draws(static_cast<uint64_t>(draw_seed(generator)));
  copy_(t, neg(log1p(neg(rand(t.sizes(), draws, t.dtype(), t.device())))) / lambd);
  return self;
}

// torch.multinomial by lazygen's composite (Note [Sampling categories]), drawing from a seed of
// PyTorch's generator as the other random ops do.
at::Tensor multinomial(const at::Tensor& self, int64_t num_samples, bool replacement,
                       c10::optional<at::Generator> generator) {
  // PyTorch's message names the dtype as PyTorch does ("Long").
  TORCH_CHECK(at::isFloatingType(self.scalar_type()),
              "multinomial only supports floating-point dtypes for input, got: ", self.scalar_type());
  Call c("multinomial", {&self});
  Generator draws(static_cast<uint64_t>(draw_seed(generator)));
  return c.result(lazygen::multinomial(c.arg(self), num_samples, replacement, draws));
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

namespace {

// rrelu_with_noise's result, and in training the noise written (PyTorch's CPU kernel): each
// element <= 0 is scaled by a slope drawn uniformly from [lower, upper), which noise records
// (1 elsewhere, for the backward formula's grad * noise); outside training every negative
// element is scaled by the mean slope, and noise is left as it is.
Tensor rrelu(const Call& c, const at::Tensor& self, const at::Tensor& noise,
             const at::Scalar& lower, const at::Scalar& upper, bool training,
             const c10::optional<at::Generator>& generator) {
  TORCH_CHECK(lower.toDouble() <= upper.toDouble(),
              "Lower bound should be less than or equal to the upper bound");
  TORCH_CHECK(c10::isFloatingType(self.scalar_type()), "\"",
              training ? "rrelu_with_noise_out_cpu" : "leaky_relu_cpu", "\" not implemented for '",
              c10::toString(self.scalar_type()), "'");
  const Tensor& x = c.arg(self);
  if (!training) return leaky_relu(x, (lower.toDouble() + upper.toDouble()) / 2);
  const Tensor& written = c.arg(noise);
  TORCH_CHECK(written.sizes() == x.sizes(), c.op(), ": noise of shape ", noise.sizes(),
              " must have self's shape ", self.sizes());
  check_writable(c.op(), written);
  Generator draws(static_cast<uint64_t>(draw_seed(generator)));
  const double low = lower.toDouble(), width = upper.toDouble() - low;
  const Tensor slopes = rand(x.sizes(), draws, x.dtype(), x.device()) * width + low;
  const Tensor scale = where(le(x, 0), slopes, ones_like(x));
  copy_(written, scale);
  return x * scale;
}

// PyTorch's limits on n for randperm's out dtype: every value n - 1 must be exact in it. Its own
// check_supported_max_int_with_precision (ATen/native/TensorFactories.h) would pull in
// ATen/Functions.h and build a scalar tensor on out's device; these are its checks for the
// device's dtypes, with its messages.
void check_randperm_length(int64_t n, c10::ScalarType dtype) {
  TORCH_CHECK(n >= 0, "n must be non-negative, got", n);
  TORCH_CHECK(dtype != c10::kBool, "\"randperm\" not implemented for 'Bool'");
  TORCH_CHECK(dtype != c10::kFloat || n <= (int64_t{1} << 24) + 1,
              "n cannot be greater than 2^24+1 for Float type.");
  TORCH_CHECK(dtype != c10::kDouble || n <= (int64_t{1} << 53) + 1,
              "n cannot be greater than 2^53+1 for Double type.");
  TORCH_CHECK(dtype != c10::kInt || n - 1 <= std::numeric_limits<int32_t>::max(),
              "value cannot be converted to type int32_t without overflow");
}

}  // namespace

at::Tensor rrelu_with_noise(const at::Tensor& self, const at::Tensor& noise,
                            const at::Scalar& lower, const at::Scalar& upper, bool training,
                            c10::optional<at::Generator> generator) {
  Call c("rrelu_with_noise", {&self, &noise});
  return c.result(rrelu(c, self, noise, lower, upper, training, generator));
}

at::Tensor& rrelu_with_noise_inplace(at::Tensor& self, const at::Tensor& noise,
                                     const at::Scalar& lower, const at::Scalar& upper,
                                     bool training, c10::optional<at::Generator> generator) {
  Call c("rrelu_with_noise_", {&self, &noise});
  return c.write_back(self, rrelu(c, self, noise, lower, upper, training, generator));
}

// A uniform permutation of 0..n-1: the order that sorts n uniform draws (float64, so ties, which
// would favour the lower index, are about n^2 / 2^54 likely).
at::Tensor& randperm_generator_out(int64_t n, c10::optional<at::Generator> generator,
                                   at::Tensor& out) {
  check_randperm_length(n, out.scalar_type());
  Call c("randperm.generator_out", {&out});
  Generator draws(static_cast<uint64_t>(draw_seed(generator)));
  const Tensor keys = rand({n}, draws, DType::Float64, c.arg(out).device());
  return c.assign_out(out, std::get<1>(sort(keys, 0, false)));
}

}  // namespace lazygen::pytorch::adapters
