// Lanes<T> (backend/cpu/fusion/lanes.h), for float and double: every lane operation (arithmetic
// with Lanes and integer operands, unary minus, comparisons through to_lanes, max, min, where,
// abs) and every chainable generated functor evaluated on Lanes compute, in each lane, exactly
// what the scalar code computes for that lane's values, bit for bit: signed zeros, infinities,
// denormals, NaN-ness, and a NaN's bits where the operation moves or selects values rather than
// computing them (See Note [Lane semantics] and NanBits). A bool result's scalar value is
// static_cast<T>(bool). Operands are every tuple of a set of special values, a different tuple
// in each lane. Also: splat, and load/store round trips.
#include "backend/cpu/fusion/lanes.h"

#include <gtest/gtest.h>

#include <array>
#include <climits>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

// The functors tested below, each from its own header (editing another op rebuilds nothing here).
#include "lazygen/generated/pointwise/abs.h"
#include "lazygen/generated/pointwise/add_tensor.h"
#include "lazygen/generated/pointwise/addcdiv_inplace.h"
#include "lazygen/generated/pointwise/addcmul_inplace.h"
#include "lazygen/generated/pointwise/copy_inplace.h"
#include "lazygen/generated/pointwise/div_tensor.h"
#include "lazygen/generated/pointwise/eq_tensor.h"
#include "lazygen/generated/pointwise/ge_tensor.h"
#include "lazygen/generated/pointwise/gt_scalar.h"
#include "lazygen/generated/pointwise/gt_tensor.h"
#include "lazygen/generated/pointwise/le_tensor.h"
#include "lazygen/generated/pointwise/lt_tensor.h"
#include "lazygen/generated/pointwise/masked_fill_scalar.h"
#include "lazygen/generated/pointwise/maximum.h"
#include "lazygen/generated/pointwise/minimum.h"
#include "lazygen/generated/pointwise/mul_scalar.h"
#include "lazygen/generated/pointwise/ne_tensor.h"
#include "lazygen/generated/pointwise/neg.h"
#include "lazygen/generated/pointwise/reciprocal.h"
#include "lazygen/generated/pointwise/relu.h"
#include "lazygen/generated/pointwise/sub_tensor.h"
#include "lazygen/generated/pointwise/threshold_backward.h"
#include "lazygen/generated/pointwise/where_self.h"

namespace lazygen::cpu::fusion {
namespace {

// As in the generated functors: unqualified calls find the scalar math here, and the lanes.h
// overloads by argument-dependent lookup when an argument is Lanes.
using kernels::abs;
using kernels::max;
using kernels::min;
using kernels::where;

template <class T>
using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

template <class T>
Bits<T> bits_of(T x) {
  Bits<T> b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// "value [0xbits]", e.g. "-nan [0xffc00000]".
template <class T>
std::string describe(T x) {
  std::ostringstream s;
  s << std::setprecision(std::numeric_limits<T>::max_digits10) << x << " [0x" << std::hex
    << bits_of(x) << "]";
  return s.str();
}

// x, hidden from the optimizer, so that neither side is constant-folded (folding may give a NaN
// a different sign than the hardware does).
template <class V>
V opaque(V x) {
  asm volatile("" : "+m"(x));
  return x;
}

template <class T>
std::vector<T> special_values() {
  using Limits = std::numeric_limits<T>;
  T large;
  if constexpr (std::is_same_v<T, float>) {
    large = 1e30f;
  } else {
    large = 1e300;
  }
  return {Limits::quiet_NaN(),
          -Limits::quiet_NaN(),
          T(0),
          -T(0),
          Limits::infinity(),
          -Limits::infinity(),
          Limits::denorm_min(),
          T(-1.5),
          T(1),
          T(2),
          T(3.25),
          large,
          Limits::max(),
          Limits::lowest()};
}

// How a NaN result must match. Arithmetic on two NaNs (also one made on the way, as inf - inf
// makes one) returns either of them: IEEE 754 leaves the choice open, and GCC commutes + and *
// in scalar and vector code alike, so which one a lane or the scalar code returns depends on
// register allocation; only NaN-ness is defined. Unary minus, abs, max, min, where and copies
// move or select values, so they must keep a NaN's sign and payload.
enum class NanBits { kAnyNan, kSame };

template <class T>
bool same_result(T got, T want, NanBits nans) {
  if (nans == NanBits::kAnyNan && want != want) return got != got;
  return bits_of(got) == bits_of(want);
}

// Whether fn (a generic callable, or a generated functor) of N Lanes<T> equals, in every lane,
// static_cast<T>(fn of that lane's N values of T), bit for bit (NaNs as kNans says), for every
// N-tuple of special values (to_lanes turns fn's Lanes result into Lanes<T>). Lane l of load c
// takes tuple c * kSize + l, so neighbouring lanes hold different operands. Reports the first
// mismatch.
template <class T, int N, NanBits kNans = NanBits::kSame, class Fn>
::testing::AssertionResult lanes_match_scalar(Fn fn) {
  constexpr int kW = Lanes<T>::kSize;
  const std::vector<T> values = special_values<T>();
  size_t tuples = 1;
  for (int j = 0; j < N; ++j) tuples *= values.size();
  for (size_t first = 0; first < tuples; first += kW) {
    std::array<std::array<T, kW>, N> in{};  // in[j][l]: operand j of lane l
    for (int l = 0; l < kW; ++l) {
      size_t rest = (first + static_cast<size_t>(l)) % tuples;
      for (int j = 0; j < N; ++j, rest /= values.size()) in[j][l] = values[rest % values.size()];
    }
    std::array<Lanes<T>, N> lanes{};
    for (int j = 0; j < N; ++j) lanes[j] = opaque(Lanes<T>::load(in[j].data()));
    T got[kW];
    to_lanes<T>(std::apply(fn, lanes)).store(got);
    for (int l = 0; l < kW; ++l) {
      std::array<T, N> args{};
      for (int j = 0; j < N; ++j) args[j] = opaque(in[j][l]);
      const T want = static_cast<T>(std::apply(fn, args));
      if (!same_result(got[l], want, kNans)) {
        auto failure = ::testing::AssertionFailure() << "lane " << l << " of (";
        for (int j = 0; j < N; ++j) failure << (j ? ", " : "") << describe(args[j]);
        return failure << "): lanes give " << describe(got[l]) << ", scalar code gives "
                       << describe(want);
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// A generated functor, its tensor and scalar parameters all taking special values.
template <class T, class Fn, NanBits kNans = NanBits::kSame>
::testing::AssertionResult functor_matches_scalar() {
  return lanes_match_scalar<T, Fn::kTensors + Fn::kScalars, kNans>(Fn{});
}

template <class T>
class LanesTest : public ::testing::Test {};
using LaneValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(LanesTest, LaneValueTypes);

TYPED_TEST(LanesTest, SplatFillsEveryLane) {
  using T = TypeParam;
  for (T x : special_values<T>()) {
    T got[Lanes<T>::kSize];
    opaque(Lanes<T>::splat(opaque(x))).store(got);
    for (int l = 0; l < Lanes<T>::kSize; ++l) {
      EXPECT_EQ(bits_of(got[l]), bits_of(x)) << "lane " << l << " of splat " << describe(x);
    }
  }
}

TYPED_TEST(LanesTest, LoadStoreRoundTripsEveryBitPattern) {
  using T = TypeParam;
  std::vector<T> values = special_values<T>();
  // A signalling NaN and a NaN with a payload: plain memory moves keep them as they are.
  Bits<T> nan_bits[] = {bits_of(std::numeric_limits<T>::signaling_NaN()),
                        static_cast<Bits<T>>(bits_of(-std::numeric_limits<T>::quiet_NaN()) | 5)};
  for (Bits<T> b : nan_bits) {
    T x;
    std::memcpy(&x, &b, sizeof x);
    values.push_back(x);
  }
  constexpr int kW = Lanes<T>::kSize;
  for (size_t first = 0; first < values.size(); ++first) {
    T in[kW], out[kW];
    for (int l = 0; l < kW; ++l) in[l] = values[(first + static_cast<size_t>(l)) % values.size()];
    opaque(Lanes<T>::load(in)).store(out);
    for (int l = 0; l < kW; ++l) {
      EXPECT_EQ(bits_of(out[l]), bits_of(in[l])) << "lane " << l << ", " << describe(in[l]);
    }
  }
}

TYPED_TEST(LanesTest, ArithmeticMatchesScalar) {
  using T = TypeParam;
  EXPECT_TRUE((lanes_match_scalar<T, 2, NanBits::kAnyNan>([](auto a, auto b) { return a + b; })));
  EXPECT_TRUE((lanes_match_scalar<T, 2, NanBits::kAnyNan>([](auto a, auto b) { return a - b; })));
  EXPECT_TRUE((lanes_match_scalar<T, 2, NanBits::kAnyNan>([](auto a, auto b) { return a * b; })));
  EXPECT_TRUE((lanes_match_scalar<T, 2, NanBits::kAnyNan>([](auto a, auto b) { return a / b; })));
  EXPECT_TRUE((lanes_match_scalar<T, 1>([](auto a) { return -a; })));
  EXPECT_TRUE((lanes_match_scalar<T, 2, NanBits::kAnyNan>(
      [](auto a, auto b) { return -(a - b) * a + b / -a; })));
}

TYPED_TEST(LanesTest, IntegerOperandsConvertAsTheScalarCodeDoes) {
  using T = TypeParam;
  // 16777217 and INT_MAX round when converted to float.
  for (int k : {0, 1, -1, 2, -3, 16777217, INT_MAX, INT_MIN}) {
    SCOPED_TRACE(k);
    EXPECT_TRUE((lanes_match_scalar<T, 1>([k](auto a) { return a + k; })));
    EXPECT_TRUE((lanes_match_scalar<T, 1>([k](auto a) { return k + a; })));
    EXPECT_TRUE((lanes_match_scalar<T, 1>([k](auto a) { return a - k; })));
    EXPECT_TRUE((lanes_match_scalar<T, 1>([k](auto a) { return k - a; })));
    EXPECT_TRUE((lanes_match_scalar<T, 1>([k](auto a) { return a * k; })));
    EXPECT_TRUE((lanes_match_scalar<T, 1>([k](auto a) { return k * a; })));
    EXPECT_TRUE((lanes_match_scalar<T, 1>([k](auto a) { return a / k; })));
    EXPECT_TRUE((lanes_match_scalar<T, 1>([k](auto a) { return k / a; })));
  }
}

TYPED_TEST(LanesTest, ComparisonsMatchScalar) {
  using T = TypeParam;
  EXPECT_TRUE((lanes_match_scalar<T, 2>([](auto a, auto b) { return a < b; })));
  EXPECT_TRUE((lanes_match_scalar<T, 2>([](auto a, auto b) { return a <= b; })));
  EXPECT_TRUE((lanes_match_scalar<T, 2>([](auto a, auto b) { return a > b; })));
  EXPECT_TRUE((lanes_match_scalar<T, 2>([](auto a, auto b) { return a >= b; })));
  EXPECT_TRUE((lanes_match_scalar<T, 2>([](auto a, auto b) { return a == b; })));
  EXPECT_TRUE((lanes_match_scalar<T, 2>([](auto a, auto b) { return a != b; })));
  EXPECT_TRUE((lanes_match_scalar<T, 1>([](auto a) { return a < 0; })));
  EXPECT_TRUE((lanes_match_scalar<T, 1>([](auto a) { return 0 >= a; })));
  EXPECT_TRUE((lanes_match_scalar<T, 1>([](auto a) { return a == 0; })));
  EXPECT_TRUE((lanes_match_scalar<T, 1>([](auto a) { return 1 != a; })));
}

TYPED_TEST(LanesTest, MaxMinMatchScalar) {
  using T = TypeParam;
  EXPECT_TRUE((lanes_match_scalar<T, 2>([](auto a, auto b) { return max(a, b); })));
  EXPECT_TRUE((lanes_match_scalar<T, 2>([](auto a, auto b) { return min(a, b); })));
  EXPECT_TRUE((lanes_match_scalar<T, 1>([](auto a) { return max(a, 0); })));
  EXPECT_TRUE((lanes_match_scalar<T, 1>([](auto a) { return max(0, a); })));
  EXPECT_TRUE((lanes_match_scalar<T, 1>([](auto a) { return min(a, -2); })));
  EXPECT_TRUE((lanes_match_scalar<T, 1>([](auto a) { return min(0, a); })));
  EXPECT_TRUE((lanes_match_scalar<T, 3>([](auto a, auto b, auto c) { return min(max(a, b), c); })));
}

TYPED_TEST(LanesTest, WhereMatchesScalar) {
  using T = TypeParam;
  // Masks from comparisons.
  EXPECT_TRUE((lanes_match_scalar<T, 2>([](auto a, auto b) { return where(a < b, a, b); })));
  EXPECT_TRUE((lanes_match_scalar<T, 2>([](auto a, auto b) { return where(a <= b, 0, a); })));
  EXPECT_TRUE((lanes_match_scalar<T, 2>([](auto a, auto b) { return where(a != b, b, 0); })));
  EXPECT_TRUE((lanes_match_scalar<T, 2>([](auto a, auto b) { return where(a > b, 1, 0); })));
  // Values tested for non-zero: NaN selects the first branch, -0 the second.
  EXPECT_TRUE((lanes_match_scalar<T, 3>([](auto c, auto a, auto b) { return where(c, a, b); })));
  EXPECT_TRUE((lanes_match_scalar<T, 2>([](auto c, auto a) { return where(c, 0, a); })));
  EXPECT_TRUE((lanes_match_scalar<T, 2>([](auto c, auto a) { return where(c, a, 0); })));
  EXPECT_TRUE((lanes_match_scalar<T, 1>([](auto c) { return where(c, -1, 2); })));
}

TYPED_TEST(LanesTest, AbsMatchesScalar) {
  using T = TypeParam;
  EXPECT_TRUE((lanes_match_scalar<T, 1>([](auto a) { return abs(a); })));
  EXPECT_TRUE((lanes_match_scalar<T, 1>([](auto a) { return abs(-a); })));
  EXPECT_TRUE(
      (lanes_match_scalar<T, 2, NanBits::kAnyNan>([](auto a, auto b) { return abs(a - b); })));
}

TYPED_TEST(LanesTest, GeneratedFunctorsMatchScalar) {
  using T = TypeParam;
  EXPECT_TRUE((functor_matches_scalar<T, kernels::AddTensor, NanBits::kAnyNan>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::SubTensor, NanBits::kAnyNan>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::DivTensor, NanBits::kAnyNan>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::MulScalar, NanBits::kAnyNan>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::AddcmulInplace, NanBits::kAnyNan>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::AddcdivInplace, NanBits::kAnyNan>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::Neg>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::Abs>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::Reciprocal>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::CopyInplace>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::Relu>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::Maximum>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::Minimum>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::ThresholdBackward>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::WhereSelf>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::MaskedFillScalar>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::EqTensor>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::NeTensor>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::LtTensor>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::LeTensor>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::GtTensor>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::GeTensor>()));
  EXPECT_TRUE((functor_matches_scalar<T, kernels::GtScalar>()));
}

}  // namespace
}  // namespace lazygen::cpu::fusion
