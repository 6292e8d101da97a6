// Tests for core/tensor/shape_rules.h.
#include "core/tensor/shape_rules.h"

#include <gtest/gtest.h>

namespace lazygen {
namespace {

using shape_rules::result_type;

const Shape kF32(DType::Float32, {2});
const Shape kF64(DType::Float64, {2});
const Shape kI32(DType::Int32, {2});
const Shape kI64(DType::Int64, {2});
const Shape kBool(DType::Bool, {2});
const Shape kF64Zero(DType::Float64, {});
const Shape kI64Zero(DType::Int64, {});
const Scalar kInt(2), kFloat(2.5), kTrue(true);

TEST(ResultType, DimensionedTensorsPromoteFully) {
  EXPECT_EQ(result_type({&kF32, &kF64}), DType::Float64);
  EXPECT_EQ(result_type({&kI32, &kI64}), DType::Int64);
  EXPECT_EQ(result_type({&kI64, &kF32}), DType::Float32);
  EXPECT_EQ(result_type({&kBool, &kI32}), DType::Int32);
}

TEST(ResultType, ScalarsOnlyRaiseTheCategory) {
  EXPECT_EQ(result_type({&kF32}, {&kInt}), DType::Float32);
  EXPECT_EQ(result_type({&kI32}, {&kInt}), DType::Int32);
  EXPECT_EQ(result_type({&kI64}, {&kFloat}), DType::Float32);
  EXPECT_EQ(result_type({&kF64}, {&kFloat}), DType::Float64);
  EXPECT_EQ(result_type({&kBool}, {&kInt}), DType::Int64);
  EXPECT_EQ(result_type({&kBool}, {&kTrue}), DType::Bool);
  EXPECT_EQ(result_type({&kBool}, {&kFloat}), DType::Float32);
}

TEST(ResultType, ZeroDimTensorsOnlyRaiseTheCategory) {
  EXPECT_EQ(result_type({&kF64Zero, &kF32}), DType::Float32);
  EXPECT_EQ(result_type({&kF64Zero, &kI32}), DType::Float64);
  EXPECT_EQ(result_type({&kI64Zero, &kI32}), DType::Int32);
  EXPECT_EQ(result_type({&kF64Zero}, {&kInt}), DType::Float64);
  EXPECT_EQ(result_type({&kI64Zero}, {&kFloat}), DType::Float32);
}

TEST(ResultType, SkipsAbsentTensorsAndDefaultsToFloat32) {
  EXPECT_EQ(result_type({nullptr, &kI32}), DType::Int32);
  EXPECT_EQ(result_type({}), DType::Float32);
  EXPECT_EQ(result_type({}, {&kInt}), DType::Int64);
}

TEST(BroadcastRule, BroadcastsAllTensors) {
  const Shape a(DType::Float32, {2, 1}), b(DType::Float32, {3}), c(DType::Float32, {1, 1, 1});
  EXPECT_EQ(shape_rules::broadcast("op", {&a, &b, &c}), (std::vector<int64_t>{1, 2, 3}));
}

TEST(BroadcastRule, ErrorNamesTheOpAndShapes) {
  const Shape a(DType::Float32, {2, 3}), b(DType::Float32, {4});
  try {
    shape_rules::broadcast("add.Tensor", {&a, &b});
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(), "add.Tensor: shapes [2, 3] and [4] cannot be broadcast (dim 1: 3 vs 4)");
  }
}

TEST(CheckInplace, RejectsAResultDtypeThatCannotCastToSelfs) {
  const Shape ints(DType::Int64, {3}), flags(DType::Bool, {3}), floats(DType::Float32, {3});
  shape_rules::check_inplace("mul_.Tensor", floats, {3}, DType::Float64);  // narrowing floats: ok
  shape_rules::check_inplace("mul_.Tensor", ints, {3}, DType::Bool);
  try {
    shape_rules::check_inplace("mul_.Tensor", ints, {3}, DType::Float32);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "mul_.Tensor: result type float32 can't be cast to the desired output type int64 "
                 "(output of shape [3])");
  }
  EXPECT_THROW(shape_rules::check_inplace("add_.Tensor", flags, {3}, DType::Int64), ShapeError);
}

TEST(CheckInplace, RejectsAResultLargerThanSelf) {
  const Shape self(DType::Float32, {3});
  shape_rules::check_inplace("add_.Tensor", self, {3}, DType::Float32);
  try {
    shape_rules::check_inplace("add_.Tensor", self, {2, 3}, DType::Float32);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "add_.Tensor: output with shape [3] doesn't match the broadcast shape [2, 3]");
  }
}

TEST(ReduceRule, ReducesGivenDimsWithAndWithoutKeepdim) {
  const Shape s(DType::Float32, {2, 3, 4});
  EXPECT_EQ(shape_rules::reduce("sum", s, std::vector<int64_t>{1}, false, DType::Float64),
            Shape(DType::Float64, {2, 4}));
  EXPECT_EQ(shape_rules::reduce("sum", s, std::vector<int64_t>{-1, 0}, true, DType::Float32),
            Shape(DType::Float32, {1, 3, 1}));
}

TEST(ReduceRule, NulloptOrEmptyDimsReduceEverything) {
  const Shape s(DType::Int32, {2, 3});
  EXPECT_EQ(shape_rules::reduce("sum", s, std::nullopt, false, DType::Int64),
            Shape(DType::Int64, {}));
  EXPECT_EQ(shape_rules::reduce("sum", s, std::vector<int64_t>{}, true, DType::Int64),
            Shape(DType::Int64, {1, 1}));
}

TEST(ReduceRule, RejectsDuplicateAndOutOfRangeDims) {
  const Shape s(DType::Float32, {2, 3});
  try {
    shape_rules::reduce("sum.dim_IntList", s, std::vector<int64_t>{1, -1}, false, s.dtype);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(), "sum.dim_IntList: dim 1 appears multiple times in the list of dims");
  }
  EXPECT_THROW(shape_rules::reduce("sum", s, std::vector<int64_t>{2}, false, s.dtype), ShapeError);
}

TEST(ReduceRule, ZeroDimTensorsAcceptDimZero) {
  const Shape s(DType::Float32, {});
  EXPECT_EQ(shape_rules::reduce("sum", s, std::vector<int64_t>{0}, true, s.dtype), s);
}

}  // namespace
}  // namespace lazygen
