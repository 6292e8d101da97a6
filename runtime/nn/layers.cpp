// The layers of lazygen/nn/layers.h, initialized as PyTorch does.
#include "lazygen/nn/layers.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/conv2d.h"
#include "lazygen/generated/ops/index_select.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/sqrt.h"
#include "lazygen/nn/functional.h"
#include "lazygen/operators.h"

namespace lazygen::nn {

Tensor uniform(const std::vector<int64_t>& sizes, double bound, Generator* generator) {
  const Tensor u = generator != nullptr ? rand(sizes, *generator) : rand(sizes);
  return u * (2 * bound) - bound;
}

namespace {

// kaiming_uniform(a = sqrt(5)) has bound gain * sqrt(3 / fan_in) with gain = sqrt(2 / (1 + 5)):
// that is 1 / sqrt(fan_in), the bias's bound too.
double init_bound(int64_t fan_in) {
  return fan_in > 0 ? 1.0 / std::sqrt(fan_in) : 0.0;
}

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

Tensor Linear::forward(const Tensor& x) const {
  return functional::linear(x, weight_, bias_);
}

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

BatchNorm2d::BatchNorm2d(int64_t channels, double eps, double momentum) : eps_(eps), momentum_(momentum) {
  weight_ = ones({channels});
  bias_ = zeros({channels});
  running_mean_ = zeros({channels});
  running_var_ = ones({channels});
  register_parameter("weight", &weight_);
  register_parameter("bias", &bias_);
  register_buffer("running_mean", &running_mean_);
  register_buffer("running_var", &running_var_);
}

Tensor BatchNorm2d::forward(const Tensor& x) const {
  return std::get<0>(
      native_batch_norm(x, weight_, bias_, running_mean_, running_var_, is_training(), momentum_, eps_));
}

LayerNorm::LayerNorm(int64_t features, double eps) : features_(features), eps_(eps) {
  weight_ = ones({features});
  bias_ = zeros({features});
  register_parameter("weight", &weight_);
  register_parameter("bias", &bias_);
}

Tensor LayerNorm::forward(const Tensor& x) const {
  return layer_norm(x, {features_}, weight_, bias_, eps_);
}

Embedding::Embedding(int64_t num_embeddings, int64_t dim, Generator* generator, double std) {
  weight_ = (generator != nullptr ? randn({num_embeddings, dim}, *generator) : randn({num_embeddings, dim})) * std;
  register_parameter("weight", &weight_);
}

Tensor Embedding::forward(const Tensor& indices) const {
  std::vector<int64_t> sizes = indices.sizes();
  sizes.push_back(weight_.size(1));
  return reshape(index_select(weight_, 0, reshape(indices, {-1})), sizes);
}

}  // namespace lazygen::nn
