// Tests for lazygen/kernels/pointwise_math.h.
#include "lazygen/kernels/pointwise_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <type_traits>

namespace lazygen::kernels {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Calls `fn` with `arity` arguments of type T (so the call must compile for T).
template <class T, int kArity, class F>
void call_with(F fn) {
  if constexpr (kArity == 1) (void)fn(T(1));
  if constexpr (kArity == 2) (void)fn(T(1), T(2));
  if constexpr (kArity == 3) (void)fn(T(1), T(2), T(3));
  static_assert(kArity >= 1 && kArity <= 3, "extend call_with");
}

// Every function of the generator's table (generated pointwise_functions.inc) has an
// implementation here, for the floating and integral types kernels compute in: a name without
// one fails this test's build (See Note [Pointwise functions]).
TEST(PointwiseMath, EveryFunctionOfTheGeneratorsTableIsImplemented) {
  int count = 0;
#define LAZYGEN_POINTWISE_FUNCTION(name, arity, expensive, chainable)              \
  {                                                                                \
    auto fn = [](auto... x) -> decltype(name(x...)) { return name(x...); };         \
    call_with<float, arity>(fn);                                                   \
    call_with<double, arity>(fn);                                                  \
    call_with<int64_t, arity>(fn);                                                 \
    ++count;                                                                       \
  }
#include "lazygen/generated/pointwise_functions.inc"
#undef LAZYGEN_POINTWISE_FUNCTION
  EXPECT_GE(count, 11);
}

TEST(PointwiseMath, TranscendentalsKeepFloatingTypesAndPromoteIntegers) {
  static_assert(std::is_same_v<decltype(exp(1.0f)), float>);
  static_assert(std::is_same_v<decltype(exp(1.0)), double>);
  static_assert(std::is_same_v<decltype(log(int64_t{1})), float>);
  EXPECT_FLOAT_EQ(exp(1.0f), std::exp(1.0f));
  EXPECT_FLOAT_EQ(log(4), std::log(4.0f));
  EXPECT_DOUBLE_EQ(sqrt(2.0), std::sqrt(2.0));
  EXPECT_FLOAT_EQ(rsqrt(4.0f), 0.5f);
  EXPECT_FLOAT_EQ(tanh(0.5f), std::tanh(0.5f));
  EXPECT_FLOAT_EQ(sigmoid(0.0f), 0.5f);
  EXPECT_NEAR(sigmoid(-100.0), 0.0, 1e-40);
}

TEST(PointwiseMath, AbsKeepsTheTypeAndClearsTheSignOfZero) {
  static_assert(std::is_same_v<decltype(abs(int32_t{-3})), int32_t>);
  EXPECT_EQ(abs(int32_t{-3}), 3);
  EXPECT_EQ(abs(true), true);
  EXPECT_FALSE(std::signbit(abs(-0.0f)));
  EXPECT_EQ(abs(-2.5), 2.5);
}

TEST(PointwiseMath, MaxAndMinTakeMixedTypesInTheirCommonType) {
  static_assert(std::is_same_v<decltype(max(1.0f, 0)), float>);
  static_assert(std::is_same_v<decltype(max(int64_t{1}, 0)), int64_t>);
  EXPECT_EQ(max(-1.5f, 0), 0.0f);
  EXPECT_EQ(max(2.5f, 0), 2.5f);
  EXPECT_EQ(min(int32_t{3}, int32_t{-4}), -4);
  EXPECT_EQ(max(true, false), true);
}

TEST(PointwiseMath, MaxAndMinPropagateNaN) {
  EXPECT_TRUE(std::isnan(max(kNaN, 1.0f)));
  EXPECT_TRUE(std::isnan(max(1.0f, kNaN)));
  EXPECT_TRUE(std::isnan(min(kNaN, 1.0f)));
  EXPECT_TRUE(std::isnan(min(1.0f, kNaN)));
}

TEST(PointwiseMath, PowIsExactForIntegers) {
  static_assert(std::is_same_v<decltype(pow(2.0f, 3)), float>);
  EXPECT_FLOAT_EQ(pow(2.0f, 0.5f), std::sqrt(2.0f));
  EXPECT_EQ(pow(int64_t{3}, int64_t{4}), 81);
  EXPECT_EQ(pow(int64_t{3}, int64_t{-1}), 0);
  EXPECT_EQ(pow(int64_t{-1}, int64_t{-3}), -1);
  EXPECT_EQ(pow(int32_t{7}, int32_t{0}), 1);
}

TEST(PointwiseMath, WhereSelectsInTheCommonTypeOfItsBranches) {
  static_assert(std::is_same_v<decltype(where(true, 0, 1.5f)), float>);
  EXPECT_EQ(where(true, 0, 1.5f), 0.0f);
  EXPECT_EQ(where(0.0f, 0, 1.5f), 1.5f);
  EXPECT_EQ(where(2.0f <= 3.0f, 0, 7.0), 0.0);
}

}  // namespace
}  // namespace lazygen::kernels
