// Tests for nll_loss and nll_loss_backward (ops/cpu/loss.cpp) against
// direct loops: every reduction, class weights, ignore_index, unbatched inputs, bad targets, and
// lazy against eager.
#include <gtest/gtest.h>

#include <cmath>

#include "lazygen/factory.h"
#include "lazygen/generated/cpu/nll_loss.h"
#include "lazygen/generated/cpu/nll_loss_backward.h"
#include "lazygen/generated/ops/_log_softmax.h"
#include "lazygen/generated/ops/_log_softmax_backward_data.h"
#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/isnan.h"
#include "lazygen/generated/ops/nll_loss.h"
#include "lazygen/generated/ops/nll_loss_backward.h"
#include "lazygen/generated/ops/t.h"
#include "runtime/ops/training/training_reference.h"

namespace lazygen {
namespace {

using testing::expect_near_all;
using testing::values;

struct NllCase {
  int64_t reduction;
  bool weighted;
  int64_t ignore_index;
};

// The loss per sample (0 where ignored) and the weight each sample counts with.
void naive_nll(const Tensor& x, const Tensor& t, const Tensor& w, int64_t ignore,
               std::vector<double>& loss, std::vector<double>& weight) {
  const auto xv = values<double>(x), wv = w.defined() ? values<double>(w) : std::vector<double>();
  const auto tv = values<int64_t>(t);
  const int64_t classes = x.size(-1);
  for (size_t i = 0; i < tv.size(); ++i) {
    const bool counted = tv[i] != ignore;
    const double wi = counted ? (wv.empty() ? 1.0 : wv[tv[i]]) : 0.0;
    loss.push_back(counted ? -wi * xv[i * classes + tv[i]] : 0.0);
    weight.push_back(wi);
  }
}

TEST(NllLoss, MatchesDirectLoopsForEveryReduction) {
  Generator g(9);
  Tensor x = randn({6, 4}, g, DType::Float64), w = rand({4}, g, DType::Float64);
  Tensor t = tensor<int64_t>({0, 3, 1, 1, 2, 3});
  for (const NllCase& c : {NllCase{0, false, -100}, NllCase{1, false, -100}, NllCase{2, false, 1},
                           NllCase{1, true, 3}, NllCase{2, true, -100}, NllCase{0, true, 0}}) {
    SCOPED_TRACE(::testing::Message() << c.reduction << " " << c.weighted << " " << c.ignore_index);
    Tensor wt = c.weighted ? w : Tensor();
    std::vector<double> loss, weight;
    naive_nll(x, t, wt, c.ignore_index, loss, weight);
    double sum = 0, total = 0;
    for (size_t i = 0; i < loss.size(); ++i) sum += loss[i], total += weight[i];
    const std::vector<double> want = c.reduction == 0   ? loss
                                     : c.reduction == 1 ? std::vector<double>{sum / total}
                                                        : std::vector<double>{sum};
    const auto weight_arg = c.weighted ? std::optional(w) : std::nullopt;
    expect_near_all(cpu::nll_loss(x, t, weight_arg, c.reduction, c.ignore_index), want, 1e-12);
    // The gradient of sum(loss * dy): -w[t] * dy (/ total weight for the mean) at each target.
    Tensor dy = c.reduction == 0 ? randn({6}, g, DType::Float64) : full({}, 0.5, DType::Float64);
    const auto dyv = values<double>(dy);
    const auto tv = values<int64_t>(t);
    std::vector<double> dx(24, 0.0);
    for (size_t i = 0; i < tv.size(); ++i) {
      if (tv[i] == c.ignore_index) continue;
      dx[i * 4 + tv[i]] =
          -weight[i] * (c.reduction == 0 ? dyv[i] : dyv[0]) / (c.reduction == 1 ? total : 1.0);
    }
    expect_near_all(cpu::nll_loss_backward(dy, x, t, weight_arg, c.reduction, c.ignore_index), dx,
                    1e-12);
  }
}

TEST(NllLoss, TakesUnbatchedInputsAndAnUndefinedWeightAsNone) {
  Tensor x = tensor<float>({-1.0f, -2.0f, -0.5f});
  Tensor t = scalar_tensor(2, DType::Int64);
  EXPECT_FLOAT_EQ(cpu::nll_loss(x, t, std::nullopt, 1, -100).item<float>(), 0.5f);
  EXPECT_EQ(cpu::nll_loss(x, t, std::nullopt, 0, -100).dim(), 0);
  // Backward functions save an absent weight as an undefined tensor.
  EXPECT_FLOAT_EQ(cpu::nll_loss(x, t, Tensor(), 2, -100).item<float>(), 0.5f);
  Tensor dx = cpu::nll_loss_backward(scalar_tensor(1.0), x, t, Tensor(), 1, -100);
  EXPECT_EQ(values<float>(dx), (std::vector<float>{0, 0, -1}));
}

TEST(NllLoss, MeanOverOnlyIgnoredTargetsIsNaN) {
  Tensor x = zeros({2, 3}), t = tensor<int64_t>({-100, -100});
  EXPECT_TRUE(std::isnan(cpu::nll_loss(x, t, std::nullopt, 1, -100).item<float>()));
}

TEST(NllLoss, RejectsBadOperands) {
  Tensor x = zeros({2, 3});
  EXPECT_THROW(cpu::nll_loss(x, tensor<int64_t>({0, 3}), std::nullopt, 1, -100), std::out_of_range);
  EXPECT_THROW(cpu::nll_loss(x, tensor<int64_t>({0, 1, 2}), std::nullopt, 1, -100), ShapeError);
  EXPECT_THROW(cpu::nll_loss(x, tensor<float>({0, 1}), std::nullopt, 1, -100), ShapeError);
  EXPECT_THROW(cpu::nll_loss(x, tensor<int64_t>({0, 1}), zeros({2}), 1, -100), ShapeError);
  EXPECT_THROW(cpu::nll_loss(x, tensor<int64_t>({0, 1}), std::nullopt, 3, -100), ShapeError);
  EXPECT_THROW(cpu::nll_loss(zeros({2, 3, 4}), tensor<int64_t>({0, 1}), std::nullopt, 1, -100),
               ShapeError);
}

TEST(NllLoss, LazyMatchesEager) {
  Generator g(10);
  Tensor x = randn({5, 7}, g), t = randint(0, 7, {5}, g), w = rand({7}, g);
  testing::expect_lazy_matches_eager(
      {x, t, w}, [](const std::vector<Tensor>& v) { return nll_loss(v[0], v[1], v[2], 1, 3); });
  testing::expect_lazy_matches_eager(
      {x, t}, [](const std::vector<Tensor>& v) { return nll_loss(v[0], v[1]); });
  testing::expect_lazy_matches_eager({x, t}, [](const std::vector<Tensor>& v) {
    return nll_loss_backward(scalar_tensor(2.0, DType::Float32, v[0].device()), v[0], v[1],
                             std::nullopt, 1, -100);
  });
  Tensor dy = randn({5, 7}, g);
  testing::expect_lazy_matches_eager({dy, x}, [](const std::vector<Tensor>& v) {
    return _log_softmax_backward_data(v[0], _log_softmax(v[1], 1, false), 1, DType::Float32);
  });
}

}  // namespace
}  // namespace lazygen
