// Optimizers (namespace lazygen::optim), computing what torch.optim's do (PyTorch 1.13, the
// single-tensor code paths): SGD with momentum, dampening, Nesterov and weight decay; Adadelta;
// Adam.
//
// step() updates each parameter that has a gradient IN PLACE, under a NoGradGuard, with in-place
// ops (mul_, add_, addcmul_, addcdiv_, sqrt_, div_). On the lazy device the update is traced
// into the step's graph and runs at mark_step(); the parameters and the optimizer state keep
// their tensors, so memory does not grow step after step. Hyper-parameters reach the ops as
// Scalars, which are runtime parameters on the lazy device: changing the learning rate (StepLR)
// or Adam's step-dependent bias corrections does not recompile. State tensors are created at the
// first step, on each parameter's device.
//
// The parameter list holds handles sharing the model's tensors: call Module::to() before
// building the optimizer. Thread safety: none.
#pragma once

#include <cstdint>
#include <vector>

#include "lazygen/tensor.h"

namespace lazygen::optim {

class Optimizer {
 public:
  Optimizer(std::vector<Tensor> params, double lr);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One update of every parameter with a defined grad().
  virtual void step() = 0;
  // Resets every parameter's grad() to undefined (PyTorch's set_to_none=True).
  void zero_grad();

  double lr() const { return lr_; }
  void set_lr(double lr) { lr_ = lr; }
  const std::vector<Tensor>& params() const { return params_; }

 protected:
  std::vector<Tensor> params_;
  double lr_;
};

struct SGDOptions {
  double lr = 0.01;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, SGDOptions options);
  void step() override;

 private:
  SGDOptions options_;
  std::vector<Tensor> momentum_;  // per parameter; undefined until its first step
};

struct AdadeltaOptions {
  double lr = 1.0;
  double rho = 0.9;
  double eps = 1e-6;
  double weight_decay = 0;
};

class Adadelta : public Optimizer {
 public:
  Adadelta(std::vector<Tensor> params, AdadeltaOptions options = {});
  void step() override;

 private:
  AdadeltaOptions options_;
  std::vector<Tensor> square_avg_, acc_delta_;
};

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9, beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;
};

class Adam : public Optimizer {
 public:
  Adam(std::vector<Tensor> params, AdamOptions options = {});
  void step() override;

 private:
  AdamOptions options_;
  std::vector<Tensor> exp_avg_, exp_avg_sq_;
  std::vector<int64_t> steps_;
};

// Multiplies the optimizer's learning rate by gamma every step_size calls of step() (one call
// per epoch, as torch.optim.lr_scheduler.StepLR).
class StepLR {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);
  void step();
  double last_lr() const { return optimizer_.lr(); }

 private:
  Optimizer& optimizer_;
  int64_t step_size_;
  double gamma_;
  double base_lr_;
  int64_t epoch_ = 0;
};

}  // namespace lazygen::optim
