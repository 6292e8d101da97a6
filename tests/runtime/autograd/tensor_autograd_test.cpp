// Tests of the public autograd API (lazygen/autograd.h, Tensor's autograd methods) through the
// generated ops: what records history, grad mode, detach, gradient ownership and accumulation,
// non-differentiable inputs, and the errors PyTorch users expect.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "autograd/function.h"
#include "lazygen/autograd.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen {
namespace {

std::vector<double> values_of(const Tensor& t) {
  Tensor c = t.cpu().contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

using testing::error_of;

TEST(TensorAutograd, RecordsHistoryOnlyWhenAnInputRequiresGrad) {
  Tensor x = tensor<double>({1.0, 2.0});
  Tensor w = tensor<double>({3.0, 4.0}).requires_grad_();
  EXPECT_FALSE((x * x).requires_grad());
  Tensor y = x * w;
  EXPECT_TRUE(y.requires_grad());
  ASSERT_NE(y.grad_fn(), nullptr);
  EXPECT_STREQ(y.grad_fn()->name(), "MulTensorBackward");
  EXPECT_EQ(w.grad_fn(), nullptr);  // a leaf
}

TEST(TensorAutograd, NoGradGuardStopsRecordingAndRestoresTheMode) {
  Tensor w = tensor<double>({3.0}).requires_grad_();
  {
    NoGradGuard no_grad;
    EXPECT_FALSE(grad_mode_enabled());
    { NoGradGuard nested; }
    EXPECT_FALSE(grad_mode_enabled());
    EXPECT_FALSE((w * 2.0).requires_grad());
  }
  EXPECT_TRUE(grad_mode_enabled());
  EXPECT_TRUE((w * 2.0).requires_grad());
}

TEST(TensorAutograd, ComputesGradientsOfAChainOfGeneratedOps) {
  Tensor x = tensor<double>({1.0, 2.0}).requires_grad_();
  Tensor loss = sum(x * x * 3.0);  // d/dx = 6x
  loss.backward();
  EXPECT_EQ(values_of(x.grad()), (std::vector<double>{6.0, 12.0}));
}

TEST(TensorAutograd, DetachSharesDataWithoutHistory) {
  Tensor x = tensor<double>({1.0, 2.0}).requires_grad_();
  Tensor y = x * 2.0;
  Tensor d = y.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_EQ(d.grad_fn(), nullptr);
  EXPECT_EQ(d.raw_data(), y.raw_data());
  d.mul_(10.0);  // in place: seen through y
  EXPECT_EQ(values_of(y), (std::vector<double>{20.0, 40.0}));
  EXPECT_TRUE(y.requires_grad());
}

TEST(TensorAutograd, GradientsAreNotAliasedBetweenLeavesOrWithTheCallersGradient) {
  Tensor x = tensor<double>({1.0, 2.0}).requires_grad_();
  Tensor y = tensor<double>({3.0, 4.0}).requires_grad_();
  Tensor g = tensor<double>({1.0, 1.0});
  (x + y).backward(g);  // add's backward hands the same gradient to both inputs
  x.grad().mul_(5.0);
  EXPECT_EQ(values_of(y.grad()), (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(values_of(g), (std::vector<double>{1.0, 1.0}));
}

TEST(TensorAutograd, AccumulatesIntoGradInPlaceUntilZeroGrad) {
  Tensor x = tensor<double>({1.0, 2.0}).requires_grad_();
  sum(x * 2.0).backward();
  Tensor first = x.grad();
  sum(x * 3.0).backward();
  EXPECT_EQ(values_of(x.grad()), (std::vector<double>{5.0, 5.0}));
  EXPECT_TRUE(first.is_same(x.grad()));  // like PyTorch: the same grad tensor, updated
  x.zero_grad_();
  EXPECT_FALSE(x.grad().defined());
  sum(x).backward();
  EXPECT_EQ(values_of(x.grad()), (std::vector<double>{1.0, 1.0}));
}

TEST(TensorAutograd, ASumGradientIsStoredContiguous) {
  Tensor x = zeros({2, 3}, DType::Float64).requires_grad_();
  sum(x).backward();  // sum's backward expands a zero-dim gradient (stride 0)
  EXPECT_TRUE(x.grad().is_contiguous());
  EXPECT_EQ(values_of(x.grad()), std::vector<double>(6, 1.0));
}

TEST(TensorAutograd, SecondBackwardThroughAGeneratedGraphNamesTheFunction) {
  Tensor x = tensor<double>({1.0, 2.0}).requires_grad_();
  Tensor loss = sum(exp(x));
  loss.backward();
  std::string error = error_of([&] { loss.backward(); });
  EXPECT_NE(error.find("a second time"), std::string::npos) << error;
  EXPECT_NE(error.find("SumBackward"), std::string::npos) << error;
}

TEST(TensorAutograd, RetainGraphAllowsASecondBackward) {
  Tensor x = tensor<double>({1.0, 2.0}).requires_grad_();
  Tensor loss = sum(x * x);
  loss.backward({}, /*retain_graph=*/true);
  loss.backward();
  EXPECT_EQ(values_of(x.grad()), (std::vector<double>{4.0, 8.0}));
}

TEST(TensorAutograd, SkipsABoolConditionAndAnIntegerOperand) {
  Tensor cond = tensor<bool>({true, false});
  Tensor k = tensor<int64_t>({2, 3});
  Tensor x = tensor<double>({1.0, 2.0}).requires_grad_();
  Tensor y = tensor<double>({5.0, 6.0}).requires_grad_();
  sum(where(cond, x * k, y)).backward();
  EXPECT_EQ(values_of(x.grad()), (std::vector<double>{2.0, 0.0}));
  EXPECT_EQ(values_of(y.grad()), (std::vector<double>{0.0, 1.0}));
  EXPECT_FALSE(k.requires_grad());
  EXPECT_FALSE(cond.grad().defined());
}

TEST(TensorAutograd, OnlyFloatingPointTensorsCanRequireGrad) {
  Tensor k = tensor<int64_t>({1, 2});
  EXPECT_NE(error_of([&] {
              k.requires_grad_();
            }).find("only floating point tensors can require gradients"),
            std::string::npos);
  EXPECT_NO_THROW(k.requires_grad_(false));
  EXPECT_FALSE(k.requires_grad());
}

TEST(TensorAutograd, RequiresGradCanOnlyBeClearedOnLeaves) {
  Tensor x = tensor<double>({1.0}).requires_grad_();
  Tensor y = x * 2.0;
  EXPECT_NE(error_of([&] { y.requires_grad_(false); }).find("leaf"), std::string::npos);
  x.requires_grad_(false);
  EXPECT_FALSE(x.requires_grad());
  EXPECT_FALSE((x * 2.0).requires_grad());
}

TEST(TensorAutograd, InPlaceCheckRefusesTensorsThatRequireGradUnlessGradModeIsOff) {
  Tensor x = tensor<double>({1.0}).requires_grad_();
  Tensor y = x * 2.0;
  EXPECT_NE(error_of([&] { autograd::check_inplace(x, "add_.Tensor"); }).find("leaf"),
            std::string::npos);
  EXPECT_NE(error_of([&] { autograd::check_inplace(y, "mul_.Scalar"); }).find("MulScalarBackward"),
            std::string::npos);
  EXPECT_NO_THROW(autograd::check_inplace(tensor<double>({1.0}), "add_.Tensor"));
  NoGradGuard no_grad;
  EXPECT_NO_THROW(autograd::check_inplace(x, "add_.Tensor"));
}

TEST(TensorAutograd, MixedPrecisionGradientsTakeTheLeafDtype) {
  Tensor x = tensor<float>({1.0f, 2.0f}).requires_grad_();
  Tensor y = tensor<double>({3.0, 4.0});
  sum(x * y).backward();
  EXPECT_EQ(x.grad().dtype(), DType::Float32);
}

TEST(TensorAutograd, SavedTensorsDoNotKeepTheirOwnResultAlive) {
  // exp saves its result: the saved copy has no history, so no cycle holds the graph.
  std::weak_ptr<autograd::Function> fn;
  {
    Tensor x = tensor<double>({1.0}).requires_grad_();
    Tensor y = exp(x);
    fn = y.grad_fn();
    EXPECT_FALSE(fn.expired());
  }
  EXPECT_TRUE(fn.expired());
}

}  // namespace
}  // namespace lazygen
