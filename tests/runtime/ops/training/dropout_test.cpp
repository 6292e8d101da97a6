// Tests for _dropout_mask (ops/cpu/dropout.cpp): its values and keep rate, determinism per seed,
// agreement with rand() and between devices, and that a new seed each step does not recompile
// the lazy graph.
#include <gtest/gtest.h>

#include <cmath>

#include "lazygen/factory.h"
#include "lazygen/generated/ops/_dropout_mask.h"
#include "lazygen/metrics.h"
#include "lazygen/operators.h"
#include "ops/cpu/training_kernels.h"
#include "runtime/ops/training/training_reference.h"

namespace lazygen {
namespace {

using testing::values;

TEST(DropoutMask, HoldsZeroOrTheInverseKeepRateAtTheRightFrequency) {
  Tensor x = zeros({100, 1000});
  const auto v = values<float>(cpu::_dropout_mask(x, 0.3, 42));
  int64_t kept = 0;
  for (float m : v) {
    ASSERT_TRUE(m == 0.0f || m == static_cast<float>(1.0 / 0.7)) << m;
    kept += m != 0;
  }
  EXPECT_NEAR(static_cast<double>(kept) / static_cast<double>(v.size()), 0.7, 0.01);
}

TEST(DropoutMask, KeepsExactlyWhereRandDrawsAtLeastP) {
  Generator g(1234);
  const auto u = values<float>(rand({4099}, g));
  const auto m = values<float>(cpu::_dropout_mask(zeros({4099}), 0.5, 1234));
  for (size_t i = 0; i < u.size(); ++i) ASSERT_EQ(m[i] != 0, u[i] >= 0.5f) << i;
}

TEST(DropoutMask, IsAFunctionOfTheSeed) {
  Tensor x = zeros({257}, DType::Float64);
  EXPECT_EQ(values<double>(cpu::_dropout_mask(x, 0.5, 7)),
            values<double>(cpu::_dropout_mask(x, 0.5, 7)));
  EXPECT_NE(values<double>(cpu::_dropout_mask(x, 0.5, 7)),
            values<double>(cpu::_dropout_mask(x, 0.5, 8)));
}

TEST(DropoutMask, HandlesTheEdgeProbabilitiesAndRejectsOthers) {
  Tensor x = zeros({64});
  for (float m : values<float>(cpu::_dropout_mask(x, 0.0, 3))) EXPECT_EQ(m, 1.0f);
  for (float m : values<float>(cpu::_dropout_mask(x, 1.0, 3))) EXPECT_EQ(m, 0.0f);
  EXPECT_THROW(cpu::_dropout_mask(x, 1.5, 3), ShapeError);
  EXPECT_THROW(cpu::_dropout_mask(x, -0.1, 3), ShapeError);
  EXPECT_THROW(cpu::_dropout_mask(zeros({4}, DType::Int64), 0.5, 3), ShapeError);
  EXPECT_THROW(_dropout_mask(x.to(kLazy), 2.0, 3), ShapeError);  // at call time on lazy too
}

TEST(DropoutMask, LazyMatchesEagerAndANewSeedDoesNotRecompile) {
  mark_step();
  Tensor x = randn({33, 17});
  Tensor lx = x.to(kLazy);
  const int64_t misses = metrics::counter_value("computation_cache.miss");
  for (int64_t seed = 100; seed < 104; ++seed) {
    Tensor lazy = lx * _dropout_mask(lx, 0.25, seed);
    mark_step();
    EXPECT_EQ(values<float>(lazy), values<float>(x * cpu::_dropout_mask(x, 0.25, seed)));
  }
  EXPECT_EQ(metrics::counter_value("computation_cache.miss"), misses + 1);
}

}  // namespace
}  // namespace lazygen
