// Tests of core/ir/hash.h: hashes are repeatable, bitwise for floats, and tell apart every
// attribute type the generator emits (each integer width, bool, dtype, scalar, optional, vector).
#include "core/ir/hash.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace lazygen::ir {
namespace {

TEST(Hash, IsRepeatableAndIndependentOfTheProcess) {
  EXPECT_EQ(hash_all(int64_t{3}, true, 2.5, DType::Float32),
            hash_all(int64_t{3}, true, 2.5, DType::Float32));
  // Pinned: hashes may key on-disk caches, so they must not depend on the process or the build.
  EXPECT_EQ(hash_value(std::string_view("lazygen")), hash_value(std::string("lazygen")));
  EXPECT_EQ(hash_value(int64_t{42}), hash_combine(8, 42));
}

TEST(Hash, DistinguishesIntegerWidths) {
  EXPECT_NE(hash_value(int8_t{5}), hash_value(int16_t{5}));
  EXPECT_NE(hash_value(int16_t{5}), hash_value(int32_t{5}));
  EXPECT_NE(hash_value(int32_t{5}), hash_value(int64_t{5}));
  EXPECT_NE(hash_value(int64_t{5}), hash_value(int64_t{6}));
}

TEST(Hash, DistinguishesBoolFromIntegers) {
  EXPECT_NE(hash_value(true), hash_value(false));
  EXPECT_NE(hash_value(true), hash_value(int64_t{1}));
  EXPECT_NE(hash_value(false), hash_value(int64_t{0}));
}

TEST(Hash, ComparesDoublesBitwise) {
  EXPECT_NE(hash_value(0.0), hash_value(-0.0));
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(hash_value(nan), hash_value(nan));
  EXPECT_NE(hash_value(1.0), hash_value(std::nextafter(1.0, 2.0)));
}

TEST(Hash, DistinguishesDTypesAndScalars) {
  EXPECT_NE(hash_value(DType::Float32), hash_value(DType::Float64));
  EXPECT_NE(hash_value(DType::Int32), hash_value(DType::Int64));
  EXPECT_NE(hash_value(Scalar(1)), hash_value(Scalar(1.0)));
  EXPECT_NE(hash_value(Scalar(1)), hash_value(Scalar(true)));
  EXPECT_NE(hash_value(Scalar(2.0)), hash_value(Scalar(3.0)));
  EXPECT_EQ(hash_value(Scalar(2.0)), hash_value(Scalar(2.0f)));
}

TEST(Hash, DistinguishesAbsentOptionalsFromEveryValue) {
  EXPECT_NE(hash_value(std::optional<int64_t>()), hash_value(std::optional<int64_t>(0)));
  EXPECT_NE(hash_value(std::optional<int64_t>(1)), hash_value(int64_t{1}));
  EXPECT_EQ(hash_value(std::optional<int64_t>(7)), hash_value(std::optional<int64_t>(7)));
  EXPECT_NE(hash_value(std::optional<std::vector<int64_t>>()),
            hash_value(std::optional<std::vector<int64_t>>(std::vector<int64_t>{})));
}

TEST(Hash, VectorsAreOrderAndLengthSensitive) {
  using V = std::vector<int64_t>;
  EXPECT_NE(hash_value(V{1, 2}), hash_value(V{2, 1}));
  EXPECT_NE(hash_value(V{1, 2}), hash_value(V{1, 2, 0}));
  EXPECT_NE(hash_value(V{}), hash_value(V{0}));
  EXPECT_EQ(hash_value(V{1, 2}), hash_value(V{1, 2}));
  EXPECT_NE(hash_value(std::vector<V>{{1}, {2}}), hash_value(std::vector<V>{{1, 2}}));
}

TEST(Hash, StringLiteralsHashAsStringsNotAsBool) {
  EXPECT_EQ(hash_value("mean"), hash_value(std::string_view("mean")));
  EXPECT_NE(hash_value("mean"), hash_value("sum"));
  EXPECT_NE(hash_value("x"), hash_value(true));
}

TEST(Hash, ShapesHashDTypeAndSizes) {
  EXPECT_NE(hash_value(Shape(DType::Float32, {2, 3})), hash_value(Shape(DType::Float64, {2, 3})));
  EXPECT_NE(hash_value(Shape(DType::Float32, {2, 3})), hash_value(Shape(DType::Float32, {3, 2})));
  EXPECT_NE(hash_value(Shape(DType::Float32, {})), hash_value(Shape(DType::Float32, {1})));
}

TEST(Hash, OtherAttributeTypes) {
  EXPECT_NE(hash_value(Device(DeviceType::CUDA, 0)), hash_value(Device(DeviceType::CUDA, 1)));
  EXPECT_NE(hash_value(kCPU), hash_value(kLazy));
  EXPECT_NE(hash_value(Stream{0}), hash_value(Stream{1}));
  EXPECT_NE(hash_value(Generator(1)), hash_value(Generator(2)));
  EXPECT_NE(hash_value(Layout::Strided), hash_value(Layout::Sparse));
}

TEST(Hash, HashAllIsOrderSensitive) {
  EXPECT_NE(hash_all(int64_t{1}, int64_t{2}), hash_all(int64_t{2}, int64_t{1}));
  EXPECT_NE(hash_all(), hash_all(int64_t{0}));
}

}  // namespace
}  // namespace lazygen::ir
