// Tests for lazygen/scalar.h: categories, conversion, bitwise identity and printing.
#include "lazygen/scalar.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace lazygen {
namespace {

TEST(Scalar, KindsFollowTheCppType) {
  EXPECT_TRUE(Scalar(true).is_bool());
  EXPECT_TRUE(Scalar(3).is_integral());
  EXPECT_TRUE(Scalar(int64_t{3}).is_integral());
  EXPECT_TRUE(Scalar(2.5f).is_floating());
  EXPECT_EQ(Scalar(2.5).dtype(), DType::Float64);
  EXPECT_EQ(Scalar().to<int64_t>(), 0);
}

TEST(Scalar, ConvertsToAnyDType) {
  EXPECT_EQ(Scalar(2.75).to<int32_t>(), 2);
  EXPECT_EQ(Scalar(7).to<double>(), 7.0);
  EXPECT_TRUE(Scalar(0.5).to<bool>());
}

TEST(Scalar, IdentityIsBitwise) {
  EXPECT_TRUE(Scalar(1.0).identical(Scalar(1.0)));
  EXPECT_FALSE(Scalar(0.0).identical(Scalar(-0.0)));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(Scalar(nan).identical(Scalar(nan)));
  EXPECT_FALSE(Scalar(1).identical(Scalar(1.0)));  // same value, different category
  EXPECT_FALSE(Scalar(1).identical(Scalar(true)));
  EXPECT_EQ(Scalar(3).bits(), 3u);
}

TEST(Scalar, PrintsReadably) {
  EXPECT_EQ(Scalar(3).str(), "3");
  EXPECT_EQ(Scalar(2.5).str(), "2.5");
  EXPECT_EQ(Scalar(1.0).str(), "1.0");
  EXPECT_EQ(Scalar(0.1).str(), "0.1");
  EXPECT_EQ(Scalar(true).str(), "true");
  EXPECT_EQ(Scalar(-std::numeric_limits<double>::infinity()).str(), "-inf");
}

}  // namespace
}  // namespace lazygen
