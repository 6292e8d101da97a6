// Tests for the random factories and the Philox generator (core/tensor/random.cpp, philox.h).
#include <gtest/gtest.h>

#include <cmath>

#include "core/tensor/philox.h"
#include "lazygen/factory.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen {
namespace {

using testing::values;

TEST(Philox, MatchesRandom123KnownAnswers) {
  using detail::philox4x32_10;
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (detail::PhiloxCounter{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32_10({~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}),
            (detail::PhiloxCounter{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(
      philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
      (detail::PhiloxCounter{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(Random, SameSeedGivesSameTensors) {
  Generator a(42), b(42);
  EXPECT_EQ(values<float>(rand({100}, a)), values<float>(rand({100}, b)));
  EXPECT_EQ(values<double>(randn({7}, a, DType::Float64)),
            values<double>(randn({7}, b, DType::Float64)));
  EXPECT_EQ(values<int64_t>(randint(0, 10, {9}, a)), values<int64_t>(randint(0, 10, {9}, b)));
  EXPECT_EQ(a, b);
}

TEST(Random, ManualSeedRestartsTheDefaultStream) {
  manual_seed(7);
  const auto first = values<float>(randn({5}));
  const auto second = values<float>(randn({5}));
  EXPECT_NE(first, second);
  manual_seed(7);
  EXPECT_EQ(values<float>(randn({5})), first);
}

TEST(Random, DifferentSeedsDiffer) {
  Generator a(1), b(2);
  EXPECT_NE(values<float>(rand({16}, a)), values<float>(rand({16}, b)));
}

TEST(Random, DrawsAreSplitIndependentOfTensorBoundaries) {
  // Two draws of 4 floats consume one block each: the same as blocks 0 and 1 of one stream.
  Generator a(3), b(3);
  auto first = values<float>(rand({4}, a));
  auto second = values<float>(rand({4}, a));
  auto both = values<float>(rand({8}, b));
  first.insert(first.end(), second.begin(), second.end());
  EXPECT_EQ(first, both);
  EXPECT_EQ(a.offset(), 2u);
}

TEST(Random, UniformLiesInUnitIntervalWithMeanOneHalf) {
  Generator g(5);
  const auto v = values<double>(rand({100000}, g, DType::Float64));
  double sum = 0;
  for (double x : v) {
    ASSERT_GE(x, 0.0);
    ASSERT_LT(x, 1.0);
    sum += x;
  }
  EXPECT_NEAR(sum / v.size(), 0.5, 0.01);
}

TEST(Random, NormalHasZeroMeanAndUnitVariance) {
  Generator g(6);
  const auto v = values<float>(randn({100000}, g));
  double sum = 0, sq = 0;
  for (float x : v) {
    ASSERT_TRUE(std::isfinite(x));
    sum += x;
    sq += double(x) * x;
  }
  const double mean = sum / v.size();
  EXPECT_NEAR(mean, 0.0, 0.02);
  EXPECT_NEAR(sq / v.size() - mean * mean, 1.0, 0.02);
}

TEST(Random, RandintCoversExactlyTheHalfOpenRange) {
  Generator g(8);
  const auto v = values<int64_t>(randint(-3, 4, {10000}, g));
  std::vector<int> seen(7);
  for (int64_t x : v) {
    ASSERT_GE(x, -3);
    ASSERT_LT(x, 4);
    ++seen[static_cast<size_t>(x + 3)];
  }
  for (int count : seen) EXPECT_GT(count, 1200);
  EXPECT_EQ(randint(0, 5, {2}, g, DType::Float32).dtype(), DType::Float32);
  EXPECT_THROW(randint(3, 3, {1}), ShapeError);
}

TEST(Random, RejectsIntegerDTypesForRandAndRandn) {
  EXPECT_THROW(rand({2}, DType::Int64), ShapeError);
  EXPECT_THROW(randn({2}, DType::Bool), ShapeError);
}

}  // namespace
}  // namespace lazygen
