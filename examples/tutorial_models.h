// The two models of torch_peer.py's training benchmarks, shared by examples/train_cnn.cpp and
// bench/training/: PyTorch's lazy-tensor tutorial CNN and a 784-128-10 MLP, plus one training
// step (zero_grad, forward, nll_loss, backward, optimizer step, and mark_step on the lazy
// device), so the example and the benchmark time exactly the same work.
#pragma once

#include <functional>
#include <memory>

#include "lazygen/aot.h"
#include "lazygen/autograd.h"
#include "lazygen/composite.h"
#include "lazygen/conv.h"
#include "lazygen/cuda.h"
#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/flatten.h"
#include "lazygen/generated/ops/max_pool2d.h"
#include "lazygen/generated/ops/nll_loss.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/nn/functional.h"
#include "lazygen/nn/layers.h"
#include "lazygen/operators.h"
#include "lazygen/optim/optimizer.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"
#include "lazygen/version.h"

namespace lazygen::examples {

// A model with a forward pass from [batch, 1, 28, 28] images to log-probabilities [batch, 10].
class Classifier : public nn::Module {
 public:
  virtual Tensor forward(const Tensor& x) const = 0;
};

// The tutorial's CNN (1.2 M parameters): conv 1->32 3x3, relu, conv 32->64 3x3, relu,
// max_pool 2, dropout 0.25, flatten, fc 9216->128, relu, dropout 0.5, fc 128->10, log_softmax.
class TutorialCnn : public Classifier {
 public:
  TutorialCnn() {
    register_module("conv1", conv1_);
    register_module("conv2", conv2_);
    register_module("dropout1", dropout1_);
    register_module("dropout2", dropout2_);
    register_module("fc1", fc1_);
    register_module("fc2", fc2_);
  }
  Tensor forward(const Tensor& x) const override {
    namespace F = nn::functional;
    Tensor h = F::max_pool2d(F::relu(conv2_->forward(F::relu(conv1_->forward(x)))), 2);
    h = F::flatten(dropout1_->forward(h), 1);
    h = dropout2_->forward(F::relu(fc1_->forward(h)));
    return F::log_softmax(fc2_->forward(h), 1);
  }

 private:
  std::shared_ptr<nn::Conv2d> conv1_ = std::make_shared<nn::Conv2d>(1, 32, 3);
  std::shared_ptr<nn::Conv2d> conv2_ = std::make_shared<nn::Conv2d>(32, 64, 3);
  std::shared_ptr<nn::Dropout> dropout1_ = std::make_shared<nn::Dropout>(0.25);
  std::shared_ptr<nn::Dropout> dropout2_ = std::make_shared<nn::Dropout>(0.5);
  std::shared_ptr<nn::Linear> fc1_ = std::make_shared<nn::Linear>(9216, 128);
  std::shared_ptr<nn::Linear> fc2_ = std::make_shared<nn::Linear>(128, 10);
};

// torch_peer's `mlp`: flatten, 784->128, relu, 128->10, log_softmax.
class Mlp : public Classifier {
 public:
  Mlp() {
    register_module("fc1", fc1_);
    register_module("fc2", fc2_);
  }
  Tensor forward(const Tensor& x) const override {
    namespace F = nn::functional;
    return F::log_softmax(fc2_->forward(F::relu(fc1_->forward(F::flatten(x, 1)))), 1);
  }

 private:
  std::shared_ptr<nn::Linear> fc1_ = std::make_shared<nn::Linear>(784, 128);
  std::shared_ptr<nn::Linear> fc2_ = std::make_shared<nn::Linear>(128, 10);
};

// One training step on a cpu batch; returns the loss (materialized on the lazy device, where
// the step ends with mark_step()). `after_backward`, when given, runs between backward and the
// optimizer's step (data-parallel training all-reduces the gradients there).
inline Tensor train_step(const Classifier& model, optim::Optimizer& opt, const Tensor& images,
                         const Tensor& targets, Device device,
                         const std::function<void()>& after_backward = {}) {
  const Tensor x = images.to(device), y = targets.to(device);
  opt.zero_grad();
  Tensor loss = nn::functional::nll_loss(model.forward(x), y);
  loss.backward();
  if (after_backward) after_backward();
  opt.step();
  if (device.is_lazy()) mark_step();
  return loss;
}

}  // namespace lazygen::examples
