// Tests for lazygen/shape.h: Shape, ShapeError and the size helpers.
#include "lazygen/shape.h"

#include <gtest/gtest.h>

namespace lazygen {
namespace {

TEST(Shape, PrintsDTypeAndSizes) {
  EXPECT_EQ(Shape(DType::Float32, {2, 3}).str(), "float32[2, 3]");
  EXPECT_EQ(Shape(DType::Int64, {}).str(), "int64[]");
  EXPECT_EQ(sizes_str({}), "[]");
}

TEST(Shape, NumelIsTheProductAndOneForZeroDim) {
  EXPECT_EQ(Shape(DType::Float32, {2, 3, 4}).numel(), 24);
  EXPECT_EQ(Shape(DType::Float32, {}).numel(), 1);
  EXPECT_EQ(Shape(DType::Float32, {5, 0}).numel(), 0);
}

TEST(Shape, SetSizeChecksBoundsNamingDimAndRank) {
  Shape s(DType::Float32, {2, 3});
  s.set_size(1, 7);
  EXPECT_EQ(s.sizes, (std::vector<int64_t>{2, 7}));
  try {
    s.set_size(2, 1);
    FAIL();
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "Shape::set_size: dim 2 is out of range for a shape of rank 2");
  }
  EXPECT_THROW(s.set_size(-1, 1), std::out_of_range);
}

TEST(Shape, BroadcastErrorNamesOpShapesAndDim) {
  try {
    broadcast_sizes("add.Tensor", {2, 3}, {4});
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(), "add.Tensor: shapes [2, 3] and [4] cannot be broadcast (dim 1: 3 vs 4)");
  }
}

TEST(Shape, BroadcastAlignsFromTheRight) {
  EXPECT_EQ(broadcast_sizes("op", {2, 1, 3}, {4, 1}), (std::vector<int64_t>{2, 4, 3}));
  EXPECT_EQ(broadcast_sizes("op", {}, {5}), (std::vector<int64_t>{5}));
  EXPECT_EQ(broadcast_sizes("op", {0, 1}, {1, 3}), (std::vector<int64_t>{0, 3}));
}

TEST(Shape, WrapDimAcceptsNegativeDimsAndScalars) {
  EXPECT_EQ(wrap_dim("op", -1, 3), 2);
  EXPECT_EQ(wrap_dim("op", 0, 0), 0);
  EXPECT_EQ(wrap_dim("op", -1, 0), 0);
  try {
    wrap_dim("sum", 3, 2);
    FAIL();
  } catch (const DimError& e) {  // a ShapeError that keeps the dim and the range
    EXPECT_STREQ(e.what(),
                 "sum: dim 3 is out of range for a tensor of rank 2 (expected to be in range of "
                 "[-2, 1])");
    EXPECT_EQ(e.dim(), 3);
    EXPECT_EQ(e.low(), -2);
    EXPECT_EQ(e.high(), 1);
  }
  try {
    wrap_dim("sum", -2, 0);
    FAIL();
  } catch (const DimError& e) {  // a 0-dim tensor takes 0 and -1
    EXPECT_EQ(e.low(), -1);
    EXPECT_EQ(e.high(), 0);
  }
  EXPECT_THROW(wrap_dim("sum", 1, 0), ShapeError);
}

TEST(Shape, CheckedNumelRejectsNegativeSizes) {
  EXPECT_EQ(checked_numel("empty", {2, 3}), 6);
  EXPECT_THROW(checked_numel("empty", {2, -1}), ShapeError);
}

}  // namespace
}  // namespace lazygen
