// Tests for the Tensor handle (core/tensor/tensor.cpp): metadata, item(), conversions, copies.
#include "lazygen/tensor.h"

#include <gtest/gtest.h>

#include "core/tensor/tensor_impl.h"
#include "lazygen/factory.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen {
namespace {

using testing::values;

Tensor transposed(const Tensor& t) {  // a [2, 3] contiguous tensor viewed as [3, 2]
  return make_view(t, {t.size(1), t.size(0)}, {t.stride(1), t.stride(0)}, t.storage_offset());
}

TEST(Tensor, DefaultConstructedIsUndefined) {
  Tensor t;
  EXPECT_FALSE(t.defined());
  EXPECT_THROW(t.sizes(), std::logic_error);
  EXPECT_EQ(t.str(), "tensor(undefined)");
}

TEST(Tensor, SizeAcceptsNegativeDims) {
  Tensor t = empty({2, 3, 4});
  EXPECT_EQ(t.size(-1), 4);
  EXPECT_EQ(t.size(-3), 2);
  EXPECT_EQ(t.stride(-2), 4);
  EXPECT_EQ(t.dim(), 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.shape(), Shape(DType::Float32, {2, 3, 4}));
}

TEST(Tensor, SizeOutOfRangeNamesDimAndRank) {
  Tensor t = empty({2, 3});
  try {
    t.size(2);
    FAIL();
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(),
                 "size(): dim 2 is out of range for a tensor of rank 2 (expected to be in range "
                 "of [-2, 1])");
  }
  EXPECT_THROW(t.size(-3), std::out_of_range);
  EXPECT_THROW(scalar_tensor(1).size(0), std::out_of_range);
}

TEST(Tensor, ItemConvertsTheSingleValue) {
  EXPECT_EQ(scalar_tensor(2.5).item<float>(), 2.5f);
  EXPECT_EQ(scalar_tensor(2.5).item<int64_t>(), 2);
  EXPECT_EQ(full({1, 1}, 3, DType::Int32).item<double>(), 3.0);
  EXPECT_TRUE(ones({1}, DType::Bool).item<bool>());
}

TEST(Tensor, ItemOnSeveralElementsThrows) {
  try {
    zeros({2, 3}).item<float>();
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "item(): a tensor with 6 elements cannot be converted to a scalar");
  }
  EXPECT_THROW(zeros({0}).item<float>(), std::invalid_argument);
}

TEST(Tensor, DataPtrChecksTheDType) {
  Tensor t = zeros({2}, DType::Int64);
  EXPECT_EQ(t.data_ptr<int64_t>(), t.raw_data());
  try {
    t.data_ptr<float>();
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "data_ptr<float32>(): the tensor's dtype is int64");
  }
}

TEST(Tensor, ToDTypeConvertsAndSameDTypeAliases) {
  Tensor t = tensor({1.5f, -2.5f, 0.f});
  EXPECT_TRUE(t.to(DType::Float32).is_same(t));
  EXPECT_EQ(values<int64_t>(t.to(DType::Int64).to(DType::Int64)), (std::vector<int64_t>{1, -2, 0}));
  EXPECT_EQ(values<bool>(t.to(DType::Bool)), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(t.to(DType::Float64).dtype(), DType::Float64);
}

TEST(Tensor, ContiguousCopiesOnlyWhenNeeded) {
  Tensor t = tensor<int64_t>({0, 1, 2, 3, 4, 5}, IntList{2, 3});
  EXPECT_TRUE(t.contiguous().is_same(t));
  Tensor tt = transposed(t);
  EXPECT_FALSE(tt.is_contiguous());
  Tensor c = tt.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(values<int64_t>(c), (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
}

TEST(Tensor, CloneOwnsNewMemory) {
  Tensor t = tensor({1.f, 2.f});
  Tensor c = t.clone();
  EXPECT_NE(c.raw_data(), t.raw_data());
  t.data_ptr<float>()[0] = 9;
  EXPECT_EQ(values<float>(c), (std::vector<float>{1, 2}));
}

TEST(Tensor, ContiguityIgnoresSizeOneDimsAndEmptyTensors) {
  EXPECT_TRUE(is_contiguous_layout({1, 3}, {99, 1}));
  EXPECT_TRUE(is_contiguous_layout({0, 3}, {1, 7}));
  EXPECT_FALSE(is_contiguous_layout({2, 3}, {1, 2}));
  EXPECT_EQ(contiguous_strides({2, 0, 3}), (std::vector<int64_t>{3, 3, 1}));
}

TEST(Tensor, ToDeviceRoundTripsThroughHooks) {
  testing::FakeDevice fake(DeviceType::Lazy);
  Tensor cpu = tensor({1.f, 2.f, 3.f});
  Tensor lazy = cpu.to(kLazy);
  EXPECT_EQ(lazy.device(), kLazy);
  EXPECT_TRUE(lazy.to(kLazy).is_same(lazy));
  EXPECT_THROW(lazy.raw_data(), std::runtime_error);
  EXPECT_EQ(values<float>(lazy.cpu()), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(lazy.to(DType::Int32).device(), kLazy);
  EXPECT_EQ(values<int32_t>(lazy.to(DType::Int32)), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(lazy.clone().device(), kLazy);
  EXPECT_EQ(tensor({4.f}).to(kLazy).item<float>(), 4.f);
  EXPECT_TRUE(lazy.contiguous().is_same(lazy));
}

}  // namespace
}  // namespace lazygen
