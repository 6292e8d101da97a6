// The layers of the training examples: Linear, Conv2d, Dropout, BatchNorm2d, LayerNorm and
// Embedding, initialized as PyTorch does.
//
// Linear and Conv2d draw weights from kaiming_uniform(a = sqrt(5)) and biases from
// uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)) (both work out to that same bound), using the given
// Generator (the default generator when none is given, like torch.manual_seed + nn.Linear).
// Parameters are created on the cpu; move a model with Module::to(kLazy).
// Dropout draws one seed per call from its generator and passes it to _dropout_mask as a Scalar,
// so on the lazy device every step reuses one compiled graph.
#pragma once

#include <cstdint>
#include <vector>

#include "lazygen/nn/module.h"
#include "lazygen/types.h"

namespace lazygen::nn {

// y = x @ weight^T + bias; x is [batch, in_features].
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true,
         Generator* generator = nullptr);
  Tensor forward(const Tensor& x) const;
  Tensor operator()(const Tensor& x) const { return forward(x); }

  const Tensor& weight() const { return weight_; }  // [out_features, in_features]
  const Tensor& bias() const { return bias_; }      // [out_features] or undefined

 private:
  Tensor weight_, bias_;
};

struct Conv2dOptions {
  int64_t stride = 1, padding = 0, dilation = 1, groups = 1;
  bool bias = true;
};

// 2-D convolution of [batch, in_channels, h, w] with square kernels.
class Conv2d : public Module {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, Conv2dOptions options = {},
         Generator* generator = nullptr);
  Tensor forward(const Tensor& x) const;
  Tensor operator()(const Tensor& x) const { return forward(x); }

  const Tensor& weight() const { return weight_; }  // [out, in / groups, k, k]
  const Tensor& bias() const { return bias_; }

 private:
  Conv2dOptions options_;
  Tensor weight_, bias_;
};

// Zeroes each element with probability p and scales the rest by 1/(1-p) in training mode; the
// identity in eval mode. REQUIRES: 0 <= p <= 1.
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5, Generator* generator = nullptr);
  Tensor forward(const Tensor& x) const;
  Tensor operator()(const Tensor& x) const { return forward(x); }

 private:
  double p_;
  Generator* generator_;
};

// Batch normalization over the channels of [N, C, H, W] (lazygen::native_batch_norm): in training
// mode by the batch's statistics, updating the running mean and variance buffers in place with
// `momentum`; in eval mode by the running statistics. weight starts at 1, bias at 0.
class BatchNorm2d : public Module {
 public:
  explicit BatchNorm2d(int64_t channels, double eps = 1e-5, double momentum = 0.1);
  Tensor forward(const Tensor& x) const;
  Tensor operator()(const Tensor& x) const { return forward(x); }

  const Tensor& running_mean() const { return running_mean_; }
  const Tensor& running_var() const { return running_var_; }

 private:
  double eps_, momentum_;
  Tensor weight_, bias_, running_mean_, running_var_;
};

// Layer normalization over the last dim of size `features` (lazygen::layer_norm); weight 1, bias 0.
class LayerNorm : public Module {
 public:
  explicit LayerNorm(int64_t features, double eps = 1e-5);
  Tensor forward(const Tensor& x) const;
  Tensor operator()(const Tensor& x) const { return forward(x); }

 private:
  int64_t features_;
  double eps_;
  Tensor weight_, bias_;
};

// Rows of a [num_embeddings, dim] table (drawn from N(0, std^2); std 1 is PyTorch's) at int64
// `indices` of any shape: the result is indices.sizes() + [dim]. An index outside the table is an
// error when the lookup runs.
class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t dim, Generator* generator = nullptr, double std = 1.0);
  Tensor forward(const Tensor& indices) const;
  Tensor operator()(const Tensor& indices) const { return forward(indices); }

  const Tensor& weight() const { return weight_; }

 private:
  Tensor weight_;
};

// A new float32 cpu tensor drawn from uniform(-bound, bound) (the default generator when null).
Tensor uniform(const std::vector<int64_t>& sizes, double bound, Generator* generator = nullptr);

}  // namespace lazygen::nn
