// The optimizers and StepLR (lazygen/optim/optimizer.h). Each step follows torch.optim's
// single-tensor implementation line by line, with the same in-place ops.
#include "lazygen/optim/optimizer.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "lazygen/autograd.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/add.h"
#include "lazygen/generated/ops/div.h"
#include "lazygen/generated/ops/pow.h"
#include "lazygen/generated/ops/sqrt.h"
#include "lazygen/operators.h"

namespace lazygen::optim {
namespace {

void check_non_negative(const char* what, double v) {
  if (!(v >= 0))
    throw std::invalid_argument(std::string("invalid ") + what + ": " + std::to_string(v));
}

// The gradient with weight decay folded in (a new tensor; grad() itself is left alone).
Tensor decayed_grad(const Tensor& param, double weight_decay) {
  const Tensor g = param.grad();
  return weight_decay != 0 ? add(g, param, weight_decay) : g;
}

}  // namespace

Optimizer::Optimizer(std::vector<Tensor> params, double lr) : params_(std::move(params)), lr_(lr) {
  check_non_negative("learning rate", lr);
  for (const Tensor& p : params_) {
    if (!p.defined() || !p.requires_grad()) {
      throw std::invalid_argument("optimizer parameters must be tensors that require grad");
    }
  }
}

void Optimizer::zero_grad() {
  for (const Tensor& p : params_) p.zero_grad_();
}

SGD::SGD(std::vector<Tensor> params, SGDOptions options)
    : Optimizer(std::move(params), options.lr), options_(options), momentum_(params_.size()) {
  check_non_negative("momentum", options.momentum);
  check_non_negative("weight_decay", options.weight_decay);
  if (options.nesterov && (options.momentum <= 0 || options.dampening != 0)) {
    throw std::invalid_argument("Nesterov momentum requires a momentum and zero dampening");
  }
}

void SGD::step() {
  NoGradGuard no_grad;
  const SGDOptions& o = options_;
  for (size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    if (!p.grad().defined()) continue;
    Tensor d = decayed_grad(p, o.weight_decay);
    if (o.momentum != 0) {
      Tensor& buf = momentum_[i];
      if (!buf.defined()) {
        buf = d.detach().clone();
      } else {
        buf.mul_(o.momentum).add_(d, 1 - o.dampening);
      }
      d = o.nesterov ? add(d, buf, o.momentum) : buf;
    }
    p.add_(d, -lr_);
  }
}

Adadelta::Adadelta(std::vector<Tensor> params, AdadeltaOptions options)
    : Optimizer(std::move(params), options.lr),
      options_(options),
      square_avg_(params_.size()),
      acc_delta_(params_.size()) {
  if (!(options.rho >= 0 && options.rho <= 1)) {
    throw std::invalid_argument("invalid rho: " + std::to_string(options.rho));
  }
  check_non_negative("epsilon", options.eps);
  check_non_negative("weight_decay", options.weight_decay);
}

void Adadelta::step() {
  NoGradGuard no_grad;
  const AdadeltaOptions& o = options_;
  for (size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    if (!p.grad().defined()) continue;
    if (!square_avg_[i].defined()) {
      square_avg_[i] = zeros_like(p);
      acc_delta_[i] = zeros_like(p);
    }
    const Tensor g = decayed_grad(p, o.weight_decay);
    square_avg_[i].mul_(o.rho).addcmul_(g, g, 1 - o.rho);
    const Tensor std_dev = add(square_avg_[i], o.eps).sqrt_();
    const Tensor delta = add(acc_delta_[i], o.eps).sqrt_();
    delta.div_(std_dev).mul_(g);
    acc_delta_[i].mul_(o.rho).addcmul_(delta, delta, 1 - o.rho);
    p.add_(delta, -lr_);
  }
}

Adam::Adam(std::vector<Tensor> params, AdamOptions options)
    : Optimizer(std::move(params), options.lr),
      options_(options),
      exp_avg_(params_.size()),
      exp_avg_sq_(params_.size()),
      steps_(params_.size(), 0) {
  for (double beta : {options.beta1, options.beta2}) {
    if (!(beta >= 0 && beta < 1))
      throw std::invalid_argument("invalid beta: " + std::to_string(beta));
  }
  check_non_negative("epsilon", options.eps);
  check_non_negative("weight_decay", options.weight_decay);
}

void Adam::step() {
  NoGradGuard no_grad;
  const AdamOptions& o = options_;
  for (size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    if (!p.grad().defined()) continue;
    if (!exp_avg_[i].defined()) {
      exp_avg_[i] = zeros_like(p);
      exp_avg_sq_[i] = zeros_like(p);
    }
    const auto step = static_cast<double>(++steps_[i]);
    const Tensor g = decayed_grad(p, o.weight_decay);
    exp_avg_[i].mul_(o.beta1).add_(g, 1 - o.beta1);
    exp_avg_sq_[i].mul_(o.beta2).addcmul_(g, g, 1 - o.beta2);
    const double bias_correction1 = 1 - std::pow(o.beta1, step);
    const double bias_correction2_sqrt = std::sqrt(1 - std::pow(o.beta2, step));
    const Tensor denom = add(div(sqrt(exp_avg_sq_[i]), bias_correction2_sqrt), o.eps);
    p.addcdiv_(exp_avg_[i], denom, -lr_ / bias_correction1);
  }
}

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : optimizer_(optimizer), step_size_(step_size), gamma_(gamma), base_lr_(optimizer.lr()) {
  if (step_size < 1) throw std::invalid_argument("StepLR: step_size must be at least 1");
}

void StepLR::step() {
  ++epoch_;
  optimizer_.set_lr(base_lr_ * std::pow(gamma_, static_cast<double>(epoch_ / step_size_)));
}

}  // namespace lazygen::optim
