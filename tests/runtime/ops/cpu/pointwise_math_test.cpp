// Tests for lazygen/kernels/pointwise_math.h.
#include "lazygen/kernels/pointwise_math.h"
#include "lazygen/generated/pointwise/_gelu_erf.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
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
  if constexpr (kArity == 4) (void)fn(T(1), T(2), T(3), T(4));
  static_assert(kArity >= 1 && kArity <= 4, "extend call_with");
}

// Calls `fn` for every type kernels compute in that its domain admits.
template <bool kIntegralOnly, int kArity, class F>
void call_with_each_type(F fn) {
  if constexpr (!kIntegralOnly) {
    call_with<float, kArity>(fn);
    call_with<double, kArity>(fn);
  }
  call_with<int32_t, kArity>(fn);
  call_with<int64_t, kArity>(fn);
}

// Every function of the generator's table (generated pointwise_functions.inc) has an
// implementation here, for the types kernels compute in (bool and integral ones only for
// integral-only functions): a name without one fails this test's build (See Note [Pointwise
// functions]).
TEST(PointwiseMath, EveryFunctionOfTheGeneratorsTableIsImplemented) {
  int count = 0;
#define LAZYGEN_POINTWISE_FUNCTION(name, arity, expensive, chainable, integral_only) \
  {                                                                                  \
    auto fn = [](auto... x) -> decltype(name(x...)) { return name(x...); };          \
    call_with_each_type<integral_only, arity>(fn);                                   \
    ++count;                                                                         \
  }
#include "lazygen/generated/pointwise_functions.inc"
#undef LAZYGEN_POINTWISE_FUNCTION
  EXPECT_GE(count, 58);
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

// gelu's expression holds double literals; the generator writes them as fp<T>(...), so its float
// kernel computes in float (as PyTorch's does) and reaches the vectorizable erf.
TEST(PointwiseMath, DoubleLiteralsTakeTheComputeType) {
  static_assert(std::is_same_v<fp<float>, float> && std::is_same_v<fp<double>, double>);
  static_assert(std::is_same_v<fp<int64_t>, float> && std::is_same_v<fp<bool>, float>);
  static_assert(std::is_same_v<decltype(UnderscoreGeluErf{}(1.0f)), float>);
  static_assert(std::is_same_v<decltype(UnderscoreGeluErf{}(1.0)), double>);
  const float x = 0.75f;
  EXPECT_EQ(UnderscoreGeluErf{}(x), x * 0.5f * (1 + detail::verf(x * 0.70710678f)));
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

TEST(PointwiseMath, TrigonometricAndSpecialFunctionsMatchTheCLibrary) {
  static_assert(std::is_same_v<decltype(sin(int32_t{1})), float>);
  static_assert(std::is_same_v<decltype(atan2(1.0, 2)), double>);
  EXPECT_FLOAT_EQ(sin(0.5f), std::sin(0.5f));
  EXPECT_DOUBLE_EQ(acosh(2.0), std::acosh(2.0));
  EXPECT_DOUBLE_EQ(atan2(1.0, -2.0), std::atan2(1.0, -2.0));
  EXPECT_DOUBLE_EQ(log1p(1e-10), std::log1p(1e-10));
  EXPECT_DOUBLE_EQ(exp2(10), 1024.0);
  EXPECT_DOUBLE_EQ(hypot(3.0, 4.0), 5.0);
  EXPECT_DOUBLE_EQ(copysign(2.0, -0.0), -2.0);
  EXPECT_DOUBLE_EQ(lgamma(-1.5), 0.86004701537648098);
  EXPECT_TRUE(std::isinf(lgamma(0.0)));
}

// Units in the last place of float between got and the float nearest want (normal results).
double ulps(float got, double want) {
  return std::fabs(got - want) / std::ldexp(1.0, std::ilogb(static_cast<float>(want)) - 23);
}

// Note [Vectorizable exp and erf]: every 997th float (so each exponent and a spread of
// mantissas), against double; and the IEEE special cases.
TEST(PointwiseMath, VectorizableExpAndErfStayWithinTheirUlpBounds) {
  double worst_exp = 0, worst_erf = 0;
  for (int64_t bits = 0; bits < (int64_t{1} << 32); bits += 997) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(bits));
    if (std::isnan(x)) continue;
    const double e = std::exp(static_cast<double>(x)), r = std::erf(static_cast<double>(x));
    if (std::fabs(static_cast<float>(e)) >= std::numeric_limits<float>::min() &&
        !std::isinf(static_cast<float>(e))) {
      worst_exp = std::max(worst_exp, ulps(exp(x), e));
    }
    if (std::fabs(static_cast<float>(r)) >= std::numeric_limits<float>::min()) {
      worst_erf = std::max(worst_erf, ulps(erf(x), r));
    }
  }
  EXPECT_LE(worst_exp, 1.2);
  EXPECT_LE(worst_erf, 2.8);
  constexpr float kInf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(std::isnan(exp(kNaN)));
  EXPECT_TRUE(std::isnan(erf(kNaN)));
  EXPECT_EQ(exp(kInf), kInf);
  EXPECT_EQ(exp(-kInf), 0.0f);
  EXPECT_EQ(exp(89.0f), kInf);
  EXPECT_EQ(exp(0.0f), 1.0f);
  EXPECT_FLOAT_EQ(exp(-100.0f), std::exp(-100.0f));  // subnormal
  EXPECT_EQ(erf(kInf), 1.0f);
  EXPECT_EQ(erf(-kInf), -1.0f);
  EXPECT_TRUE(std::signbit(erf(-0.0f)));
  EXPECT_EQ(erf(0.0f), 0.0f);
}

TEST(PointwiseMath, ErfinvInvertsErfToFullPrecision) {
  EXPECT_NEAR(erfinv(0.5), 0.47693627620446987, 1e-15);
  for (double y : {-0.999999, -0.9, -0.3, 0.0, 1e-12, 0.2, 0.7, 0.99, 0.9999999}) {
    EXPECT_NEAR(std::erf(erfinv(y)), y, 4e-16) << y;
    EXPECT_NEAR(std::erf(erfinv(static_cast<float>(y))), static_cast<float>(y), 2e-7) << y;
  }
  EXPECT_EQ(erfinv(1.0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(erfinv(-1.0f), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(erfinv(2.0f)));
  EXPECT_TRUE(std::isnan(erfinv(kNaN)));
}

TEST(PointwiseMath, DigammaMatchesPyTorchIncludingItsPoles) {
  EXPECT_NEAR(digamma(1.0), -0.57721566490153287, 1e-15);
  EXPECT_NEAR(digamma(-1.5), 0.70315664064524319, 1e-14);
  EXPECT_NEAR(digamma(30.0), 3.384438132685525, 1e-14);
  EXPECT_NEAR(digamma(1e-8) / -100000000.57721566, 1.0, 1e-15);
  EXPECT_NEAR(digamma(2.5f), 0.70315664f, 1e-6f);
  EXPECT_EQ(digamma(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(digamma(-0.0), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(digamma(-2.0)));
}

// PyTorch's values: trigamma (n = 1) by its own series, higher orders by the Hurwitz zeta.
TEST(PointwiseMath, PolygammaMatchesPyTorchIncludingItsPoles) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_NEAR(polygamma(1, 1.0), 1.6449340676383375, 1e-15);
  EXPECT_NEAR(polygamma(1, -0.5), 8.934802200117687, 1e-14);
  EXPECT_NEAR(polygamma(1, 100.0), 0.010050166663333571, 1e-17);
  EXPECT_NEAR(polygamma(1, 1e-3) / 1000001.6425331949, 1.0, 1e-15);
  EXPECT_NEAR(polygamma(2, 1.0), -2.404113806319188, 1e-14);
  EXPECT_NEAR(polygamma(2, 3.0), -0.15411380631918856, 1e-15);
  EXPECT_NEAR(polygamma(2, -1.5), -0.23620405164172825, 1e-14);
  EXPECT_NEAR(polygamma(3, 0.5), 97.40909103400242, 1e-12);
  EXPECT_NEAR(polygamma(4, 2.5), -0.3137559995067314, 1e-15);
  EXPECT_NEAR(polygamma(5, 30.0) / 1.072699493616162e-06, 1.0, 1e-14);
  EXPECT_NEAR(polygamma(3, 0.7f), 25.879150390625f, 2e-5f);
  EXPECT_EQ(polygamma(0, 1.0), digamma(1.0));
  EXPECT_EQ(polygamma(1, 0.0), inf);
  EXPECT_EQ(polygamma(2, 0.0), -inf);
  EXPECT_EQ(polygamma(2, -1.0), -inf);
  EXPECT_TRUE(std::isnan(polygamma(2, kNaN)));
}

TEST(PointwiseMath, RoundingKeepsTheTypeAndRoundsHalfToEven) {
  static_assert(std::is_same_v<decltype(floor(int64_t{3})), int64_t>);
  EXPECT_EQ(round(0.5f), 0.0f);
  EXPECT_EQ(round(1.5), 2.0);
  EXPECT_EQ(round(2.5), 2.0);
  EXPECT_EQ(round(-0.5), 0.0);
  EXPECT_TRUE(std::signbit(round(-0.5)));
  EXPECT_EQ(floor(-1.5), -2.0);
  EXPECT_EQ(ceil(-1.5f), -1.0f);
  EXPECT_EQ(trunc(-1.7), -1.0);
  EXPECT_EQ(floor(int32_t{-7}), -7);
  EXPECT_DOUBLE_EQ(frac(-2.5), -0.5);
  EXPECT_TRUE(std::isnan(frac(std::numeric_limits<double>::infinity())));
}

TEST(PointwiseMath, SignIsZeroForNaNAndKeepsBool) {
  EXPECT_EQ(sign(-2.5f), -1.0f);
  EXPECT_EQ(sign(kNaN), 0.0f);
  EXPECT_FALSE(std::signbit(sign(-0.0)));
  EXPECT_EQ(sign(int64_t{-9}), -1);
  EXPECT_EQ(sign(true), true);
  EXPECT_EQ(sgn(3.0), 1.0);
}

TEST(PointwiseMath, RemainderTakesTheDivisorsSignAndFmodTheDividends) {
  EXPECT_EQ(remainder(int64_t{5}, int64_t{-3}), -1);
  EXPECT_EQ(remainder(int64_t{-5}, int64_t{3}), 1);
  EXPECT_EQ(fmod(int64_t{-5}, int64_t{3}), -2);
  EXPECT_EQ(remainder(-5.0, 3.0), 1.0);
  EXPECT_EQ(fmod(-5.0f, 3.0f), -2.0f);
  EXPECT_TRUE(std::signbit(remainder(-0.0, 2.0)));
  EXPECT_EQ(remainder(-3.0, std::numeric_limits<double>::infinity()),
            std::numeric_limits<double>::infinity());
  // Integral division by zero has no value a kernel could raise: 0, and no trap.
  EXPECT_EQ(remainder(int32_t{5}, int32_t{0}), 0);
  EXPECT_EQ(fmod(std::numeric_limits<int64_t>::min(), int64_t{-1}), 0);
}

TEST(PointwiseMath, ClassificationAndNanToNum) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(isnan(kNaN));
  EXPECT_FALSE(isnan(int64_t{3}));
  EXPECT_TRUE(isinf(-kInf));
  EXPECT_FALSE(isinf(kNaN));
  EXPECT_FALSE(isfinite(kNaN));
  EXPECT_TRUE(isfinite(int32_t{7}));
  EXPECT_EQ(nan_to_num(std::nan(""), 0.0, 9.0, -9.0), 0.0);
  EXPECT_EQ(nan_to_num(kInf, 0.0, 9.0, -9.0), 9.0);
  EXPECT_EQ(nan_to_num(-kInf, 0.0, 9.0, -9.0), -9.0);
  EXPECT_EQ(nan_to_num(1.5, 0.0, 9.0, -9.0), 1.5);
}

TEST(PointwiseMath, LogicalFunctionsTreatNonZeroAndNaNAsTrue) {
  EXPECT_TRUE(logical_and(kNaN, 2));
  EXPECT_FALSE(logical_and(0.0, 1));
  EXPECT_TRUE(logical_or(0, int64_t{-1}));
  EXPECT_TRUE(logical_xor(true, 0.0f));
  EXPECT_TRUE(logical_not(0.0));
}

TEST(PointwiseMath, BitwiseFunctionsAndDefinedShifts) {
  static_assert(std::is_same_v<decltype(bitwise_and(true, false)), bool>);
  EXPECT_EQ(bitwise_and(int32_t{12}, int32_t{10}), 8);
  EXPECT_EQ(bitwise_or(int64_t{12}, int64_t{3}), 15);
  EXPECT_EQ(bitwise_xor(true, true), false);
  EXPECT_EQ(bitwise_not(int32_t{0}), -1);
  EXPECT_EQ(bitwise_not(true), false);
  EXPECT_EQ(bitwise_left_shift(int32_t{1}, int32_t{31}), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(bitwise_left_shift(int32_t{1}, int32_t{32}), 0);
  EXPECT_EQ(bitwise_left_shift(int64_t{3}, int64_t{-1}), 0);
  EXPECT_EQ(bitwise_right_shift(int32_t{-8}, int32_t{40}), -1);
  EXPECT_EQ(bitwise_right_shift(int32_t{8}, int32_t{40}), 0);
  EXPECT_EQ(bitwise_right_shift(int64_t{-8}, int64_t{2}), -2);
}

}  // namespace
}  // namespace lazygen::kernels
