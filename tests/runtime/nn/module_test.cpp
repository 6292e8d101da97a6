// Tests for nn::Module, the layers (Linear, Conv2d, Dropout, BatchNorm2d, LayerNorm, Embedding)
// and nn::functional: registration,
// modes, moving to the lazy device, PyTorch's initialization bounds, and forward results against
// the ops they compose.
#include <gtest/gtest.h>

#include <cmath>

#include "lazygen/autograd.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/add.h"
#include "lazygen/generated/ops/conv2d.h"
#include "lazygen/generated/ops/flatten.h"
#include "lazygen/generated/ops/max_pool2d.h"
#include "lazygen/generated/ops/mm.h"
#include "lazygen/generated/ops/nll_loss.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/sqrt.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/lazy.h"
#include "lazygen/nn/functional.h"
#include "lazygen/nn/layers.h"
#include "lazygen/operators.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen::nn {
namespace {

using testing::values;
namespace F = functional;

class TwoLayer : public Module {
 public:
  explicit TwoLayer(Generator* g = nullptr)
      : fc1_(std::make_shared<Linear>(4, 3, true, g)),
        drop_(std::make_shared<Dropout>(0.5, g)),
        fc2_(std::make_shared<Linear>(3, 2, false, g)) {
    register_module("fc1", fc1_);
    register_module("drop", drop_);
    register_module("fc2", fc2_);
  }
  Tensor forward(const Tensor& x) const { return fc2_->forward(drop_->forward(fc1_->forward(x))); }
  const Dropout& drop() const { return *drop_; }

 private:
  std::shared_ptr<Linear> fc1_;
  std::shared_ptr<Dropout> drop_;
  std::shared_ptr<Linear> fc2_;
};

TEST(Module, ListsParametersOfTheTreeInRegistrationOrder) {
  TwoLayer net;
  std::vector<std::string> names;
  for (const auto& [name, t] : net.named_parameters()) {
    names.push_back(name);
    EXPECT_TRUE(t.requires_grad()) << name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"fc1.weight", "fc1.bias", "fc2.weight"}));
  EXPECT_EQ(net.parameter_count(), 4 * 3 + 3 + 3 * 2);
  EXPECT_EQ(net.parameters()[0].sizes(), (IntList{3, 4}));
}

TEST(Module, TrainAndEvalReachEverySubModule) {
  TwoLayer net;
  EXPECT_TRUE(net.drop().is_training());
  net.eval();
  EXPECT_FALSE(net.is_training());
  EXPECT_FALSE(net.drop().is_training());
  net.train();
  EXPECT_TRUE(net.drop().is_training());
}

TEST(Module, ToMovesParametersKeepingThemLeavesThatRequireGrad) {
  Generator g(3);
  TwoLayer net(&g);
  const auto before = values<float>(net.parameters()[0]);
  net.to(kLazy);
  for (const Tensor& p : net.parameters()) {
    EXPECT_TRUE(p.device().is_lazy());
    EXPECT_TRUE(p.requires_grad());
    EXPECT_EQ(p.grad_fn(), nullptr);
  }
  EXPECT_EQ(values<float>(net.parameters()[0]), before);
  net.eval();
  Tensor y = net.forward(ones({5, 4}, DType::Float32, kLazy));
  EXPECT_TRUE(y.device().is_lazy());
  EXPECT_EQ(y.sizes(), (IntList{5, 2}));
}

TEST(Layers, InitializeUniformlyWithinOneOverSqrtFanInPerSeed) {
  Generator a(7), b(7), c(8);
  Linear l1(100, 50, true, &a), l2(100, 50, true, &b), l3(100, 50, true, &c);
  EXPECT_EQ(values<float>(l1.weight()), values<float>(l2.weight()));
  EXPECT_NE(values<float>(l1.weight()), values<float>(l3.weight()));
  const auto w = values<double>(l1.weight());
  double sum_sq = 0;
  for (double v : w) {
    ASSERT_LE(std::abs(v), 0.1);  // 1 / sqrt(100)
    sum_sq += v * v;
  }
  EXPECT_NEAR(sum_sq / static_cast<double>(w.size()), 0.01 / 3, 0.0005);  // uniform variance
  for (double v : values<double>(l1.bias())) EXPECT_LE(std::abs(v), 0.1);
  Conv2d conv(8, 4, 3, {}, &a);  // fan_in = 8 * 3 * 3
  EXPECT_EQ(conv.weight().sizes(), (IntList{4, 8, 3, 3}));
  for (double v : values<double>(conv.weight())) EXPECT_LE(std::abs(v), 1 / std::sqrt(72.0));
}

TEST(Layers, LinearAndConv2dComputeTheirOps) {
  Generator g(4);
  Linear fc(6, 3, true, &g);
  Tensor x = randn({2, 6}, g);
  NoGradGuard no_grad;
  const auto want = values<float>(add(mm(x, fc.weight().t()), fc.bias()));
  const auto got = values<float>(fc(x));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5);
  Conv2d conv(2, 3, 3, {.stride = 2, .padding = 1}, &g);
  Tensor img = randn({1, 2, 7, 7}, g);
  EXPECT_EQ(values<float>(conv(img)),
            values<float>(conv2d(img, conv.weight(), conv.bias(), {2, 2}, {1, 1}, {1, 1}, 1)));
  EXPECT_EQ(conv(img).sizes(), (IntList{1, 3, 4, 4}));
}

TEST(Layers, DropoutMasksAndScalesInTrainingAndIsTheIdentityInEval) {
  Generator g(5);
  Dropout drop(0.5, &g);
  Tensor x = ones({1000});
  int64_t kept = 0;
  for (float v : values<float>(drop(x))) {
    ASSERT_TRUE(v == 0.0f || v == 2.0f) << v;
    kept += v != 0;
  }
  EXPECT_NEAR(kept, 500, 60);
  EXPECT_NE(values<float>(drop(x)), values<float>(drop(x)));  // a new mask per call
  drop.eval();
  EXPECT_TRUE(drop(x).is_same(x));
  EXPECT_THROW(Dropout(1.5), std::invalid_argument);
}

TEST(Functional, FlattenMergesTheGivenDims) {
  Tensor x = zeros({2, 3, 4, 5});
  EXPECT_EQ(F::flatten(x).sizes(), (IntList{2, 60}));
  EXPECT_EQ(F::flatten(x, 0).sizes(), (IntList{120}));
  EXPECT_EQ(F::flatten(x, 1, 2).sizes(), (IntList{2, 12, 5}));
  EXPECT_EQ(F::flatten(x, -2).sizes(), (IntList{2, 3, 20}));
  EXPECT_THROW(F::flatten(x, 2, 1), ShapeError);
}

TEST(Functional, LossAndActivationsMatchTheirDefinitions) {
  Tensor logits = tensor<float>({1, 2, 3, 1, 1, 1}, IntList{2, 3});
  Tensor target = tensor<int64_t>({2, 0});
  Tensor lp = F::log_softmax(logits, 1);
  const auto v = values<double>(lp);
  EXPECT_NEAR(F::nll_loss(lp, target).item<double>(), -(v[2] + v[3]) / 2, 1e-6);
  EXPECT_NEAR(F::nll_loss(lp, target, 0).item<double>(), -v[2], 1e-6);  // sample 2 ignored
  EXPECT_EQ(values<float>(F::relu(tensor<float>({-1, 2}))), (std::vector<float>{0, 2}));
  EXPECT_EQ(F::max_pool2d(zeros({1, 1, 4, 6}), 2).sizes(), (IntList{1, 1, 2, 3}));
  EXPECT_EQ(F::max_pool2d(zeros({1, 1, 5, 5}), 3, 1, 1).sizes(), (IntList{1, 1, 5, 5}));
  EXPECT_TRUE(F::dropout(logits, 0.5, false).is_same(logits));
  EXPECT_EQ(F::linear(ones({2, 3}), ones({4, 3})).sizes(), (IntList{2, 4}));
}

TEST(Layers, BatchNormUpdatesItsRunningStatisticsInTrainingAndUsesThemInEval) {
  BatchNorm2d bn(2, 1e-5, 0.5);
  ASSERT_EQ(bn.named_buffers().size(), 2u);
  EXPECT_EQ(bn.named_buffers()[0].first, "running_mean");
  bn.to(kLazy);
  EXPECT_TRUE(bn.running_mean().device().is_lazy());
  // channel 0 holds 1, 3 (mean 2, unbiased var 2); channel 1 holds 0, 0.
  const Tensor x = tensor<float>({1, 0, 3, 0}, IntList{2, 2, 1, 1}).to(kLazy);
  const Tensor y = bn(x);
  mark_step();
  EXPECT_NEAR(values<float>(y.cpu())[0], -1.0, 1e-4);
  EXPECT_EQ(values<float>(bn.running_mean().cpu()), (std::vector<float>{1.0f, 0.0f}));  // 0.5 * 0 + 0.5 * 2
  EXPECT_EQ(values<float>(bn.running_var().cpu()), (std::vector<float>{1.5f, 0.5f}));   // 0.5 * 1 + 0.5 * 2
  bn.eval();
  EXPECT_NEAR(values<float>(bn(x).cpu())[0], 0.0, 1e-4);  // (1 - 1) / sqrt(1.5)
  EXPECT_EQ(values<float>(bn.running_mean().cpu()), (std::vector<float>{1.0f, 0.0f}));  // unchanged
}

TEST(Layers, LayerNormAndEmbeddingComputeTheirOps) {
  LayerNorm ln(3);
  EXPECT_EQ(ln.parameters().size(), 2u);
  const auto v = values<float>(ln(tensor<float>({1, 2, 3}, IntList{1, 3})));
  EXPECT_NEAR(v[0], -1.2247, 1e-3);
  EXPECT_NEAR(v[1], 0.0, 1e-6);
  Generator g(7);
  Embedding emb(5, 2, &g, 0.5);
  const Tensor rows = emb(tensor<int64_t>({4, 0, 4}, IntList{3, 1}));
  EXPECT_EQ(rows.sizes(), (IntList{3, 1, 2}));
  const auto w = values<float>(emb.weight());
  EXPECT_EQ(values<float>(rows)[0], w[8]);
  EXPECT_EQ(values<float>(rows)[2], w[0]);
  sum(rows).backward();
  EXPECT_EQ(values<float>(emb.weight().grad()), (std::vector<float>{1, 1, 0, 0, 0, 0, 0, 0, 2, 2}));
}

}  // namespace
}  // namespace lazygen::nn
