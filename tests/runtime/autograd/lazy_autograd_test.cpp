// Autograd on the lazy device: the backward pass is traced, not run, so forward, backward and an
// optimizer step are one graph at mark_step() (and one cached graph from the second step on);
// the results match eager training step for step.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/lazy/lazy_tensor.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/autograd.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/mm.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/tanh.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

std::vector<double> values_of(const Tensor& t) {
  Tensor c = t.cpu().contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

void expect_near(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-12) << "element " << i;
}

// One step of a one-layer regression: loss, backward, SGD update, zero_grad.
Tensor train_step(const Tensor& x, const Tensor& target, const Tensor& w, const Tensor& b) {
  Tensor out = tanh(mm(x, w) + b);
  Tensor diff = out - target;
  Tensor loss = sum(diff * diff);
  loss.backward();
  {
    NoGradGuard no_grad;
    w.add_(w.grad(), -0.1);
    b.add_(b.grad(), -0.1);
  }
  w.zero_grad_();
  b.zero_grad_();
  return loss;
}

struct Model {
  Tensor x, target, w, b;
};

Model make_model(Device device) {
  Generator g(7);
  Model m{randn({4, 3}, g, DType::Float64), randn({4, 2}, g, DType::Float64),
          randn({3, 2}, g, DType::Float64), randn({2}, g, DType::Float64)};
  m.x = m.x.to(device);
  m.target = m.target.to(device);
  m.w = m.w.to(device).requires_grad_();
  m.b = m.b.to(device).requires_grad_();
  return m;
}

TEST(LazyAutograd, BackwardTracesWithoutExecuting) {
  mark_step();
  metrics::Counter& syncs = metrics::counter("exec.sync");
  const int64_t before = syncs.value();
  Tensor w = tensor<double>({1.0, 2.0}, std::nullopt, std::nullopt, kLazy).requires_grad_();
  Tensor loss = sum(exp(w) * w);
  loss.backward();
  ASSERT_TRUE(w.grad().defined());
  EXPECT_TRUE(w.grad().device().is_lazy());
  EXPECT_TRUE(lazy::lazy_state(w.grad()).pending());
  EXPECT_EQ(syncs.value(), before);
  mark_step();
  EXPECT_EQ(syncs.value(), before + 1);  // forward and backward: one graph
  const double e1 = std::exp(1.0), e2 = std::exp(2.0);
  expect_near(values_of(w.grad()), {e1 * 2.0, e2 * 3.0});  // d(w e^w) = e^w (1 + w)
}

TEST(LazyAutograd, DetachSharesThePendingValue) {
  Tensor x = tensor<double>({1.0}, std::nullopt, std::nullopt, kLazy).requires_grad_();
  Tensor y = x * 2.0;
  Tensor d = y.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_EQ(d.impl()->lazy_state(), y.impl()->lazy_state());
  EXPECT_EQ(values_of(d), std::vector<double>{2.0});
  mark_step();
}

TEST(LazyAutograd, TrainingStepsMatchEagerAndReuseOneCompiledGraph) {
  mark_step();
  Model eager = make_model(kCPU);
  Model lazy = make_model(kLazy);
  metrics::Counter& hits = metrics::counter("computation_cache.hit");
  metrics::Counter& syncs = metrics::counter("exec.sync");
  int64_t hits_before = 0, syncs_before = 0;
  for (int step = 0; step < 4; ++step) {
    if (step == 2) hits_before = hits.value(), syncs_before = syncs.value();
    Tensor eager_loss = train_step(eager.x, eager.target, eager.w, eager.b);
    Tensor lazy_loss = train_step(lazy.x, lazy.target, lazy.w, lazy.b);
    mark_step();
    EXPECT_NEAR(lazy_loss.item<double>(), eager_loss.item<double>(), 1e-12) << "step " << step;
  }
  expect_near(values_of(lazy.w), values_of(eager.w));
  expect_near(values_of(lazy.b), values_of(eager.b));
  EXPECT_EQ(syncs.value() - syncs_before, 2);  // one graph per step ...
  EXPECT_EQ(hits.value() - hits_before, 2);    // ... compiled once
}

}  // namespace
}  // namespace lazygen
