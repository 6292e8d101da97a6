// Numerical gradient checks of the `derivatives:` formulas the training ops use (conv2d,
// max_pool2d, _log_softmax, nll_loss, addmm, view, t, transpose): backward() against central
// differences in float64; and the whole tutorial-CNN chain's gradients on the lazy device
// against eager ones (the backward pass traced into the same graph).
#include <gtest/gtest.h>

#include <functional>

#include "lazygen/autograd.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/_dropout_mask.h"
#include "lazygen/generated/ops/_log_softmax.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/addmm.h"
#include "lazygen/generated/ops/conv2d.h"
#include "lazygen/generated/ops/max_pool2d.h"
#include "lazygen/generated/ops/nll_loss.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/operators.h"
#include "runtime/ops/training/training_reference.h"

namespace lazygen {
namespace {

using testing::values;
using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

// sum(f(inputs) * weights) for fixed random weights, so every output element matters.
double weighted_sum(const Fn& f, const std::vector<Tensor>& inputs, const Tensor& weights) {
  NoGradGuard no_grad;
  return sum(f(inputs) * weights).item<double>();
}

// Compares the gradient backward() gives each of inputs[k] (k in `check`) with central
// differences of weighted_sum.
void gradcheck(std::vector<Tensor> inputs, const std::vector<size_t>& check, const Fn& f) {
  Generator g(99);
  for (size_t k : check) inputs[k].requires_grad_();
  const Tensor out = f(inputs);
  const Tensor weights = randn(out.sizes(), g, DType::Float64);
  sum(out * weights).backward();
  constexpr double kEps = 1e-6;
  for (size_t k : check) {
    SCOPED_TRACE(::testing::Message() << "input " << k);
    ASSERT_TRUE(inputs[k].grad().defined());
    const auto analytic = values<double>(inputs[k].grad());
    std::vector<Tensor> probe = inputs;
    for (int64_t i = 0; i < inputs[k].numel(); ++i) {
      probe[k] = inputs[k].detach().clone();
      double* p = probe[k].data_ptr<double>() + i;
      *p += kEps;
      const double up = weighted_sum(f, probe, weights);
      *p -= 2 * kEps;
      const double down = weighted_sum(f, probe, weights);
      const double numeric = (up - down) / (2 * kEps);
      EXPECT_NEAR(analytic[i], numeric, 1e-6 * (1 + std::abs(numeric))) << "element " << i;
    }
  }
}

Tensor randn64(const std::vector<int64_t>& sizes, Generator& g) {
  return randn(sizes, g, DType::Float64);
}

TEST(TrainingDerivatives, Conv2dInputWeightAndBias) {
  Generator g(1);
  gradcheck({randn64({2, 2, 5, 6}, g), randn64({3, 2, 3, 2}, g), randn64({3}, g)}, {0, 1, 2},
            [](const std::vector<Tensor>& t) {
              return conv2d(t[0], t[1], t[2], {2, 1}, {1, 1}, {1, 2}, 1);
            });
  gradcheck({randn64({1, 4, 4, 4}, g), randn64({4, 2, 3, 3}, g)}, {0, 1},
            [](const std::vector<Tensor>& t) {
              return conv2d(t[0], t[1], std::nullopt, {1}, {1}, {1}, 2);
            });
}

TEST(TrainingDerivatives, MaxPool2d) {
  Generator g(2);
  gradcheck({randn64({2, 2, 6, 5}, g)}, {0}, [](const std::vector<Tensor>& t) {
    return max_pool2d(t[0], {3, 2}, {2, 1}, {1, 0}, {1, 1}, true);
  });
}

TEST(TrainingDerivatives, LogSoftmaxAndNllLoss) {
  Generator g(3);
  gradcheck({randn64({4, 5}, g)}, {0},
            [](const std::vector<Tensor>& t) { return _log_softmax(t[0], 1, false); });
  gradcheck({randn64({3, 4, 2}, g)}, {0},
            [](const std::vector<Tensor>& t) { return _log_softmax(t[0], 1, false); });
  Tensor target = tensor<int64_t>({1, 0, 4, 1, 3});
  gradcheck({randn64({5, 5}, g), target, rand({5}, g, DType::Float64)}, {0},
            [](const std::vector<Tensor>& t) { return nll_loss(t[0], t[1], t[2], 1, 4); });
  gradcheck({randn64({5, 5}, g), target}, {0},
            [](const std::vector<Tensor>& t) { return nll_loss(t[0], t[1], std::nullopt, 0); });
}

TEST(TrainingDerivatives, AddmmAndViews) {
  Generator g(4);
  gradcheck({randn64({4}, g), randn64({3, 5}, g), randn64({4, 5}, g)}, {0, 1, 2},
            [](const std::vector<Tensor>& t) { return addmm(t[0], t[1], t[2].t(), 0.5, 2.0); });
  gradcheck({randn64({2, 3, 4}, g)}, {0}, [](const std::vector<Tensor>& t) {
    return t[0].view({4, 6}).t().transpose(0, 1).view({2, 12});
  });
}

// conv -> relu -> conv -> relu -> max_pool -> dropout -> flatten -> linear -> log_softmax ->
// nll_loss, as train_cnn does it (shrunk).
Tensor small_cnn(const std::vector<Tensor>& p, const Tensor& x, const Tensor& target) {
  Tensor h = relu(conv2d(relu(conv2d(x, p[0], p[1])), p[2], p[3]));
  h = max_pool2d(h, {2});
  h = h * _dropout_mask(h, 0.25, 5);
  h = h.view({x.size(0), -1});
  Tensor logits = addmm(p[5], h, p[4].t());
  return nll_loss(_log_softmax(logits, 1, false), target);
}

TEST(TrainingDerivatives, LazyCnnGradientsMatchEager) {
  Generator g(5);
  std::vector<Tensor> params = {randn({4, 1, 3, 3}, g),          randn({4}, g),
                                randn({6, 4, 3, 3}, g),          randn({6}, g),
                                randn({10, 6 * 3 * 3}, g) * 0.1, randn({10}, g)};
  Tensor x = randn({3, 1, 10, 10}, g), target = randint(0, 10, {3}, g);
  std::vector<Tensor> lazy_params;
  for (Tensor& p : params) {
    lazy_params.push_back(p.to(kLazy).requires_grad_());
    p.requires_grad_();
  }
  const Tensor eager_loss = small_cnn(params, x, target);
  eager_loss.backward();
  const Tensor lazy_loss = small_cnn(lazy_params, x.to(kLazy), target.to(kLazy));
  lazy_loss.backward();
  mark_step();
  EXPECT_NEAR(lazy_loss.item<float>(), eager_loss.item<float>(), 1e-5);
  for (size_t i = 0; i < params.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_TRUE(lazy_params[i].grad().device().is_lazy());
    testing::expect_near_all(lazy_params[i].grad(), values<double>(params[i].grad()), 1e-4);
  }
}

}  // namespace
}  // namespace lazygen
