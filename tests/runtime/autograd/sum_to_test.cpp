// Tests of sum_to (runtime/autograd/sum_to.cpp): reducing broadcast gradients to input shapes.
#include "autograd/sum_to.h"

#include <gtest/gtest.h>

#include <vector>

#include "lazygen/factory.h"

namespace lazygen::autograd {
namespace {

std::vector<double> values_of(const Tensor& t) {
  Tensor c = t.cpu().contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

TEST(SumTo, ReturnsTheGradientItselfWhenShapesMatch) {
  Tensor g = ones({2, 3}, DType::Float64);
  EXPECT_TRUE(sum_to(g, {2, 3}).is_same(g));
}

TEST(SumTo, SumsLeadingDims) {
  Tensor g = arange(0, 6, 1, DType::Float64).view({2, 3});
  Tensor r = sum_to(g, {3});
  EXPECT_EQ(r.sizes(), (IntList{3}));
  EXPECT_EQ(values_of(r), (std::vector<double>{3.0, 5.0, 7.0}));
}

TEST(SumTo, SumsStretchedSizeOneDimsKeepingThem) {
  Tensor g = arange(0, 6, 1, DType::Float64).view({2, 3});
  Tensor r = sum_to(g, {2, 1});
  EXPECT_EQ(r.sizes(), (IntList{2, 1}));
  EXPECT_EQ(values_of(r), (std::vector<double>{3.0, 12.0}));
}

TEST(SumTo, SumsLeadingAndStretchedDimsTogether) {
  Tensor g = ones({4, 2, 3}, DType::Float64);
  Tensor r = sum_to(g, {1, 3});
  EXPECT_EQ(r.sizes(), (IntList{1, 3}));
  EXPECT_EQ(values_of(r), (std::vector<double>{8.0, 8.0, 8.0}));
}

TEST(SumTo, SumsEverythingToAZeroDimShape) {
  Tensor g = ones({2, 3}, DType::Float64);
  Tensor r = sum_to(g, {});
  EXPECT_EQ(r.dim(), 0);
  EXPECT_EQ(values_of(r), std::vector<double>{6.0});
}

TEST(SumTo, WorksOnTheLazyDevice) {
  Tensor g = ones({4, 3}, DType::Float64, kLazy);
  Tensor r = sum_to(g, {1, 3});
  EXPECT_TRUE(r.device().is_lazy());
  EXPECT_EQ(values_of(r), (std::vector<double>{4.0, 4.0, 4.0}));
}

TEST(SumTo, RejectsShapesThatDoNotBroadcast) {
  Tensor g = ones({2, 3}, DType::Float64);
  EXPECT_THROW(sum_to(g, {2}), std::invalid_argument);
  EXPECT_THROW(sum_to(g, {4, 2, 3}), std::invalid_argument);
}

}  // namespace
}  // namespace lazygen::autograd
