// Tests for cat (ops/cpu/cat.cpp) and its shape function.
#include <gtest/gtest.h>

#include "lazygen/factory.h"
#include "ops/cpu/custom_kernels.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen::cpu {
namespace {

using testing::values;
using V = std::vector<int64_t>;

TEST(Cat, JoinsAlongAnyDim) {
  Tensor a = tensor<int64_t>({1, 2, 3, 4}, IntList{2, 2});
  Tensor b = tensor<int64_t>({5, 6}, IntList{2, 1});
  Tensor c = cat({a, b}, 1);
  EXPECT_EQ(c.sizes(), (V{2, 3}));
  EXPECT_EQ(values<int64_t>(c), (std::vector<int64_t>{1, 2, 5, 3, 4, 6}));
  Tensor d = cat({a, t(a)}, -2);
  EXPECT_EQ(values<int64_t>(d), (std::vector<int64_t>{1, 2, 3, 4, 1, 3, 2, 4}));
}

TEST(Cat, PromotesDTypes) {
  Tensor c = cat({tensor<int32_t>({1}), tensor({2.5f}), tensor({true})}, 0);
  EXPECT_EQ(c.dtype(), DType::Float32);
  EXPECT_EQ(values<float>(c), (std::vector<float>{1, 2.5, 1}));
}

TEST(Cat, SkipsLegacyEmptyVectors) {
  Tensor c = cat({empty({0}), tensor<int64_t>({1, 2}, IntList{1, 2})}, 0);
  EXPECT_EQ(c.sizes(), (V{1, 2}));
  EXPECT_EQ(cat({empty({0}), empty({0})}, 0).sizes(), (V{0}));
}

TEST(Cat, ErrorsNameTheMismatch) {
  try {
    cat({empty({2, 3}), empty({2, 4})}, 0);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "cat: sizes of tensors must match except in dimension 0. Expected size 3 "
                 "but got size 4 for tensor number 1 in the list");
  }
  EXPECT_THROW(cat({}, 0), ShapeError);
  EXPECT_THROW(cat({scalar_tensor(1)}, 0), ShapeError);
  EXPECT_THROW(cat({empty({2, 3}), empty({3})}, 0), ShapeError);
  EXPECT_THROW(cat({empty({2, 3})}, 2), ShapeError);
}

}  // namespace
}  // namespace lazygen::cpu
