// Tests for the optimizers and StepLR (lazygen/optim/optimizer.h): a few steps of SGD (plain,
// momentum, Nesterov, weight decay), Adadelta and Adam against their update rules written out
// in double; zero_grad; and on the lazy device: the same numbers, one compiled graph from the
// second step on (a new learning rate included), and parameters updated in place.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <memory>

#include "lazygen/autograd.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/pow.h"
#include "lazygen/generated/ops/sqrt.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/operators.h"
#include "lazygen/optim/optimizer.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen::optim {
namespace {

using testing::values;

// The loss sum(p * p * c) has gradient 2 * p * c: a different gradient at every step.
constexpr double kC[] = {0.5, -1.0, 2.0};

void set_gradient(const Tensor& p) {
  Tensor c = tensor<double>({kC[0], kC[1], kC[2]}, std::nullopt, DType::Float32, p.device());
  sum(p * p * c).backward();
}

// Runs `steps` steps of `opt` on p (3 floats, starting at {1, 2, 3}); returns p's values.
std::vector<double> run(Device device, int steps,
                        const std::function<std::unique_ptr<Optimizer>(Tensor)>& make) {
  Tensor p = tensor<float>({1, 2, 3}, std::nullopt, std::nullopt, device).requires_grad_();
  std::unique_ptr<Optimizer> opt = make(p);
  for (int i = 0; i < steps; ++i) {
    opt->zero_grad();
    set_gradient(p);
    opt->step();
    if (device.is_lazy()) mark_step();
  }
  return values<double>(p);
}

// The reference: `update(p, g, state, step)` per element, in double.
std::vector<double> reference(int steps,
                              const std::function<void(double&, double, double*, int)>& update) {
  std::vector<double> p = {1, 2, 3};
  std::vector<std::array<double, 2>> state(3, {0, 0});
  for (int step = 1; step <= steps; ++step) {
    for (size_t i = 0; i < 3; ++i) update(p[i], 2 * p[i] * kC[i], state[i].data(), step);
  }
  return p;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
}

TEST(SGD, PlainMomentumNesterovAndWeightDecayFollowTorch) {
  for (const SGDOptions o :
       {SGDOptions{.lr = 0.1}, SGDOptions{.lr = 0.1, .momentum = 0.9},
        SGDOptions{.lr = 0.05, .momentum = 0.9, .nesterov = true},
        SGDOptions{.lr = 0.1, .momentum = 0.5, .dampening = 0.3, .weight_decay = 0.01}}) {
    SCOPED_TRACE(::testing::Message() << o.momentum << " " << o.nesterov);
    const auto want = reference(4, [&](double& p, double g, double* buf, int step) {
      g += o.weight_decay * p;
      if (o.momentum != 0) {
        buf[0] = step == 1 ? g : o.momentum * buf[0] + (1 - o.dampening) * g;
        g = o.nesterov ? g + o.momentum * buf[0] : buf[0];
      }
      p -= o.lr * g;
    });
    auto make = [&](Tensor p) { return std::make_unique<SGD>(std::vector<Tensor>{p}, o); };
    expect_close(run(kCPU, 4, make), want);
    expect_close(run(kLazy, 4, make), want);
  }
}

TEST(Adadelta, FollowsTorch) {
  const AdadeltaOptions o{.lr = 1.0, .rho = 0.9, .eps = 1e-6, .weight_decay = 0.1};
  const auto want = reference(5, [&](double& p, double g, double* s, int) {
    g += o.weight_decay * p;
    s[0] = o.rho * s[0] + (1 - o.rho) * g * g;
    const double delta = std::sqrt(s[1] + o.eps) / std::sqrt(s[0] + o.eps) * g;
    s[1] = o.rho * s[1] + (1 - o.rho) * delta * delta;
    p -= o.lr * delta;
  });
  auto make = [&](Tensor p) { return std::make_unique<Adadelta>(std::vector<Tensor>{p}, o); };
  expect_close(run(kCPU, 5, make), want);
  expect_close(run(kLazy, 5, make), want);
}

TEST(Adam, FollowsTorch) {
  const AdamOptions o{.lr = 0.1, .beta1 = 0.8, .beta2 = 0.99, .eps = 1e-8, .weight_decay = 0.01};
  const auto want = reference(5, [&](double& p, double g, double* m, int step) {
    g += o.weight_decay * p;
    m[0] = o.beta1 * m[0] + (1 - o.beta1) * g;
    m[1] = o.beta2 * m[1] + (1 - o.beta2) * g * g;
    const double bc1 = 1 - std::pow(o.beta1, step), bc2 = 1 - std::pow(o.beta2, step);
    p -= o.lr / bc1 * m[0] / (std::sqrt(m[1]) / std::sqrt(bc2) + o.eps);
  });
  auto make = [&](Tensor p) { return std::make_unique<Adam>(std::vector<Tensor>{p}, o); };
  expect_close(run(kCPU, 5, make), want);
  expect_close(run(kLazy, 5, make), want);
}

TEST(Optimizer, ZeroGradResetsGradientsAndStepSkipsParametersWithout) {
  Tensor a = ones({2}).requires_grad_(), b = ones({2}).requires_grad_();
  SGD opt({a, b}, {.lr = 1});
  sum(a * 3).backward();
  opt.step();  // b has no gradient: untouched
  EXPECT_EQ(values<float>(a), (std::vector<float>{-2, -2}));
  EXPECT_EQ(values<float>(b), (std::vector<float>{1, 1}));
  opt.zero_grad();
  EXPECT_FALSE(a.grad().defined());
  EXPECT_THROW(SGD({ones({2})}, {}), std::invalid_argument);  // does not require grad
  EXPECT_THROW(Adadelta({a}, {.rho = 2}), std::invalid_argument);
}

TEST(StepLR, MultipliesTheRateByGammaEveryStepSize) {
  Tensor a = ones({1}).requires_grad_();
  Adadelta opt({a});
  StepLR sched(opt, 2, 0.5);
  std::vector<double> rates;
  for (int i = 0; i < 5; ++i) {
    rates.push_back(sched.last_lr());
    sched.step();
  }
  EXPECT_EQ(rates, (std::vector<double>{1, 1, 0.5, 0.5, 0.25}));
}

TEST(LazyOptimizer, UpdatesInPlaceWithOneGraphWhateverTheLearningRate) {
  mark_step();
  Tensor p = randn({64, 32}).to(kLazy).requires_grad_();
  Adadelta opt({p});
  StepLR sched(opt, 1, 0.7);
  const TensorImpl* impl = p.impl();
  int64_t misses = 0;
  for (int step = 0; step < 6; ++step) {
    if (step == 2) misses = metrics::counter_value("computation_cache.miss");
    opt.zero_grad();
    sum(p * p).backward();
    opt.step();
    sched.step();  // a new learning rate every step
    mark_step();
  }
  EXPECT_EQ(metrics::counter_value("computation_cache.miss"), misses);
  EXPECT_EQ(p.impl(), impl);
  EXPECT_TRUE(p.device().is_lazy());
}

}  // namespace
}  // namespace lazygen::optim
