// Tests for the hand-written shape functions (ops/shape/custom_shapes.h): they run without data,
// as lazy tracing calls them.
#include "ops/shape/custom_shapes.h"

#include <gtest/gtest.h>

namespace lazygen {
namespace {

using V = std::vector<int64_t>;
const Shape kMat(DType::Float32, {2, 3});

TEST(CustomShapes, MatrixProducts) {
  EXPECT_EQ(compute_shape_mm(kMat, Shape(DType::Float32, {3, 4}))[0],
            Shape(DType::Float32, {2, 4}));
  EXPECT_EQ(
      compute_shape_addmm(Shape(DType::Float32, {4}), kMat, Shape(DType::Float32, {3, 4}), 1, 1)[0],
      Shape(DType::Float32, {2, 4}));
  EXPECT_EQ(
      compute_shape_bmm(Shape(DType::Float64, {5, 2, 3}), Shape(DType::Float64, {5, 3, 1}))[0],
      Shape(DType::Float64, {5, 2, 1}));
  try {
    compute_shape_mm(kMat, Shape(DType::Float64, {3, 4}));
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "mm: expected both operands to have the same dtype, but got: float32 != "
                 "float64");
  }
}

TEST(CustomShapes, MaxDimHasValueAndIndexOutputs) {
  auto shapes = compute_shape_max_dim(Shape(DType::Int32, {4, 5}), -1, true);
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_EQ(shapes[0], Shape(DType::Int32, {4, 1}));
  EXPECT_EQ(shapes[1], Shape(DType::Int64, {4, 1}));
}

TEST(CustomShapes, Views) {
  EXPECT_EQ(compute_shape_view(kMat, {-1})[0].sizes, (V{6}));
  EXPECT_EQ(compute_shape_permute(kMat, {1, 0})[0].sizes, (V{3, 2}));
  EXPECT_EQ(compute_shape_transpose_int(kMat, 0, -1)[0].sizes, (V{3, 2}));
  EXPECT_EQ(compute_shape_t(Shape(DType::Float32, {5}))[0].sizes, (V{5}));
  EXPECT_EQ(compute_shape_expand(Shape(DType::Float32, {3, 1}), {2, -1, 4}, false)[0].sizes,
            (V{2, 3, 4}));
  EXPECT_EQ(compute_shape_slice_tensor(kMat, 1, 1, std::nullopt, 1)[0].sizes, (V{2, 2}));
  EXPECT_EQ(compute_shape_select_int(kMat, 1, -3)[0].sizes, (V{2}));
  EXPECT_EQ(compute_shape_squeeze_dim(Shape(DType::Float32, {1, 3}), 0)[0].sizes, (V{3}));
  EXPECT_EQ(compute_shape_unsqueeze(kMat, 2)[0].sizes, (V{2, 3, 1}));
}

TEST(CustomShapes, DimErrorsNameTheOp) {
  try {
    compute_shape_transpose_int(kMat, 0, 2);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "transpose.int: dim 2 is out of range for a tensor of rank 2 (expected "
                 "to be in range of [-2, 1])");
  }
}

TEST(CustomShapes, CatPromotesAndSums) {
  const std::vector<Shape> shapes = {Shape(DType::Int32, {2, 3}), Shape(DType::Float64, {4, 3})};
  EXPECT_EQ(compute_shape_cat(shapes, 0)[0], Shape(DType::Float64, {6, 3}));
}

TEST(CustomShapes, SliceRangeClampsLikePyTorch) {
  EXPECT_EQ(slice_range("op", 10, -100, 100, 1).start, 0);
  EXPECT_EQ(slice_range("op", 10, -100, 100, 1).length, 10);
  EXPECT_EQ(slice_range("op", 10, 3, -2, 2).length, 3);  // 3, 5, 7
  EXPECT_EQ(slice_range("op", 10, 8, 2, 1).length, 0);
}

}  // namespace
}  // namespace lazygen
