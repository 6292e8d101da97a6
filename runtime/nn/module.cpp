// nn::Module (lazygen/nn/module.h) and the layers (lazygen/nn/layers.h).
#include "lazygen/nn/module.h"

#include <cmath>
#include <stdexcept>

#include "lazygen/factory.h"
#include "lazygen/generated/ops.h"
#include "lazygen/nn/functional.h"
#include "lazygen/nn/layers.h"
#include "lazygen/operators.h"

namespace lazygen::nn {

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (auto& [name, t] : named_parameters()) out.push_back(t);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Tensor>> out;
  for (const auto& [name, slot] : parameters_) out.emplace_back(name, *slot);
  for (const auto& [prefix, child] : children_) {
    for (auto& [name, t] : child->named_parameters()) out.emplace_back(prefix + "." + name, t);
  }
  return out;
}

int64_t Module::parameter_count() const {
  int64_t n = 0;
  for (const Tensor& t : parameters()) n += t.numel();
  return n;
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [name, child] : children_) child->train(on);
}

void Module::to(Device device) {
  for (auto& [name, slot] : parameters_) {
    if (slot->device() == device) continue;
    Tensor moved = slot->detach().to(device);
    moved.requires_grad_();
    *slot = moved;
  }
  for (auto& [name, child] : children_) child->to(device);
}

void Module::register_parameter(std::string name, Tensor* slot) {
  if (slot == nullptr || !slot->defined()) {
    throw std::invalid_argument("register_parameter(\"" + name + "\"): undefined tensor");
  }
  slot->requires_grad_();
  parameters_.emplace_back(std::move(name), slot);
}

Tensor uniform(const std::vector<int64_t>& sizes, double bound, Generator* generator) {
  const Tensor u = generator != nullptr ? rand(sizes, *generator) : rand(sizes);
  return u * (2 * bound) - bound;
}

namespace {

// kaiming_uniform(a = sqrt(5)) has bound gain * sqrt(3 / fan_in) with gain = sqrt(2 / (1 + 5)):
// that is 1 / sqrt(fan_in), the bias's bound too.
double init_bound(int64_t fan_in) { return fan_in > 0 ? 1.0 / std::sqrt(fan_in) : 0.0; }

}  // namespace

Linear::Linear(int64_t in_features, int64_t out_features, bool bias, Generator* generator) {
  const double bound = init_bound(in_features);
  weight_ = uniform({out_features, in_features}, bound, generator);
  register_parameter("weight", &weight_);
  if (bias) {
    bias_ = uniform({out_features}, bound, generator);
    register_parameter("bias", &bias_);
  }
}

Tensor Linear::forward(const Tensor& x) const { return functional::linear(x, weight_, bias_); }

Conv2d::Conv2d(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
               Conv2dOptions options, Generator* generator)
    : options_(options) {
  const int64_t per_group = in_channels / std::max<int64_t>(1, options.groups);
  const double bound = init_bound(per_group * kernel_size * kernel_size);
  weight_ = uniform({out_channels, per_group, kernel_size, kernel_size}, bound, generator);
  register_parameter("weight", &weight_);
  if (options.bias) {
    bias_ = uniform({out_channels}, bound, generator);
    register_parameter("bias", &bias_);
  }
}

Tensor Conv2d::forward(const Tensor& x) const {
  const Conv2dOptions& o = options_;
  return conv2d(x, weight_, bias_.defined() ? std::optional(bias_) : std::nullopt,
                {o.stride, o.stride}, {o.padding, o.padding}, {o.dilation, o.dilation}, o.groups);
}

Dropout::Dropout(double p, Generator* generator) : p_(p), generator_(generator) {
  if (p < 0 || p > 1) {
    throw std::invalid_argument("Dropout: probability has to be between 0 and 1, but got " +
                                std::to_string(p));
  }
}

Tensor Dropout::forward(const Tensor& x) const {
  return functional::dropout(x, p_, is_training(), generator_);
}

}  // namespace lazygen::nn
