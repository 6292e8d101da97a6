// gradcheck (gradcheck.h): analytic gradients on the device under test against central
// differences computed eagerly on the cpu.
#include "gradcheck.h"

#include <cmath>
#include <sstream>
#include <string>

#include "lazygen/autograd.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/mul.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/lazy.h"

namespace lazygen::testing {
namespace {

// L(inputs) = sum(fn(inputs) * weights), evaluated eagerly without recording.
double weighted_sum(const GradFn& fn, const std::vector<Tensor>& inputs, const Tensor& weights) {
  NoGradGuard no_grad;
  return sum(mul(fn(inputs), weights)).item<double>();
}

std::vector<int64_t> output_sizes(const GradFn& fn, const std::vector<Tensor>& inputs) {
  NoGradGuard no_grad;
  return fn(inputs).sizes();
}

// The gradients of L w.r.t. each input, computed by autograd on `device` and brought back to the
// cpu as contiguous tensors (undefined where no gradient arrived).
std::vector<Tensor> analytic_grads(const GradFn& fn, const std::vector<Tensor>& inputs,
                                   const Tensor& weights, Device device) {
  std::vector<Tensor> leaves;
  for (const Tensor& x : inputs) {
    Tensor leaf = device.is_cpu() ? x.clone() : x.to(device);
    if (is_floating(x.dtype())) leaf.requires_grad_();
    leaves.push_back(leaf);
  }
  Tensor loss = sum(mul(fn(leaves), weights.to(device)));
  loss.backward();
  std::vector<Tensor> grads;
  for (const Tensor& leaf : leaves) {
    grads.push_back(leaf.grad().defined() ? leaf.grad().cpu().contiguous() : Tensor());
  }
  if (device.is_lazy()) mark_step();
  return grads;
}

// Central differences of L w.r.t. every element of inputs[i] (a float64 input).
std::vector<double> numerical_grad(const GradFn& fn, std::vector<Tensor> inputs, size_t i,
                                   const Tensor& weights, double eps) {
  Tensor x = inputs[i].clone();
  inputs[i] = x;
  double* data = x.data_ptr<double>();
  std::vector<double> out(static_cast<size_t>(x.numel()));
  for (size_t j = 0; j < out.size(); ++j) {
    const double saved = data[j];
    data[j] = saved + eps;
    const double plus = weighted_sum(fn, inputs, weights);
    data[j] = saved - eps;
    const double minus = weighted_sum(fn, inputs, weights);
    data[j] = saved;
    out[j] = (plus - minus) / (2 * eps);
  }
  return out;
}

// Compares one input's analytic gradient with its numerical one.
::testing::AssertionResult compare(size_t i, const Tensor& input, const Tensor& analytic,
                                   const std::vector<double>& numerical,
                                   const GradcheckOptions& options) {
  std::ostringstream where;
  where << "input " << i << " on " << options.device.str() << ": ";
  if (analytic.defined() && analytic.shape() != input.shape()) {
    return ::testing::AssertionFailure()
           << where.str() << "gradient " << analytic.shape() << " for an input " << input.shape();
  }
  const double* a = analytic.defined() ? analytic.data_ptr<double>() : nullptr;
  for (size_t j = 0; j < numerical.size(); ++j) {
    const double got = a != nullptr ? a[j] : 0.0;
    if (std::abs(got - numerical[j]) > options.atol + options.rtol * std::abs(numerical[j])) {
      return ::testing::AssertionFailure() << where.str() << "element " << j << ": analytic " << got
                                           << " vs numerical " << numerical[j];
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace

::testing::AssertionResult gradcheck(const GradFn& fn, const std::vector<Tensor>& inputs,
                                     const GradcheckOptions& options) {
  Generator generator(options.seed);
  Tensor weights = randn(output_sizes(fn, inputs), generator, DType::Float64);
  std::vector<Tensor> analytic = analytic_grads(fn, inputs, weights, options.device);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!is_floating(inputs[i].dtype())) {
      if (analytic[i].defined()) {
        return ::testing::AssertionFailure() << "non-differentiable input " << i << " got a grad";
      }
      continue;
    }
    if (inputs[i].dtype() != DType::Float64) {
      return ::testing::AssertionFailure() << "input " << i << " must be float64";
    }
    std::vector<double> numerical = numerical_grad(fn, inputs, i, weights, options.eps);
    ::testing::AssertionResult result = compare(i, inputs[i], analytic[i], numerical, options);
    if (!result) return result;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace lazygen::testing
