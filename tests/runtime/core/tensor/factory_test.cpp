// Tests for the deterministic factories of lazygen/factory.h.
#include "lazygen/factory.h"

#include <gtest/gtest.h>

#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen {
namespace {

using testing::values;

TEST(Factory, EmptyIsContiguousWithRequestedMetadata) {
  Tensor t = empty({2, 3}, DType::Float64);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(t.dtype(), DType::Float64);
  EXPECT_EQ(t.device(), kCPU);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u);
}

TEST(Factory, RejectsNegativeSizes) {
  try {
    empty({2, -3});
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(), "empty: negative size in [2, -3]");
  }
}

TEST(Factory, ZerosOnesAndFullFillEveryDType) {
  EXPECT_EQ(values<double>(zeros({3}, DType::Float64)), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(values<int32_t>(ones({2}, DType::Int32)), (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(values<bool>(ones({2}, DType::Bool)), (std::vector<bool>{true, true}));
  EXPECT_EQ(values<float>(full({2, 2}, 2.5)), (std::vector<float>{2.5, 2.5, 2.5, 2.5}));
  EXPECT_EQ(values<int64_t>(full({1}, 2.9, DType::Int64)), (std::vector<int64_t>{2}));
  EXPECT_EQ(scalar_tensor(4).dim(), 0);
  EXPECT_EQ(scalar_tensor(4).item<float>(), 4.0f);
}

TEST(Factory, ArangeCountsLikeTorch) {
  EXPECT_EQ(values<int64_t>(arange(5)), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(arange(5).dtype(), DType::Int64);
  EXPECT_EQ(values<int64_t>(arange(1, 10, 3)), (std::vector<int64_t>{1, 4, 7}));
  EXPECT_EQ(values<int64_t>(arange(5, 0, -2)), (std::vector<int64_t>{5, 3, 1}));
  EXPECT_EQ(values<double>(arange(0, 1, 0.25, DType::Float64)),
            (std::vector<double>{0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(arange(3, 3, 1).numel(), 0);
  EXPECT_EQ(arange(5, 0, 1).numel(), 0);
  EXPECT_THROW(arange(0, 5, 0), ShapeError);
}

TEST(Factory, EmptyStridedUsesGivenStrides) {
  Tensor t = empty_strided({2, 3}, {1, 2});
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{1, 2}));
  EXPECT_FALSE(t.is_contiguous());
}

TEST(Factory, FromBlobAliasesCallerMemory) {
  float buffer[6] = {1, 2, 3, 4, 5, 6};
  Tensor t = from_blob(buffer, {2, 3});
  EXPECT_EQ(t.raw_data(), buffer);
  buffer[4] = 50;
  EXPECT_EQ(values<float>(t)[4], 50.0f);
  Tensor column = from_blob(buffer, {2}, {3}, DType::Float32);
  EXPECT_EQ(values<float>(column), (std::vector<float>{1, 4}));
}

TEST(Factory, TensorCopiesValuesWithSizesAndDType) {
  Tensor t = tensor({1.f, 2.f, 3.f, 4.f}, IntList{2, 2});
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(t.dtype(), DType::Float32);
  EXPECT_EQ(values<float>(t), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(tensor({true, false}).dtype(), DType::Bool);
  EXPECT_EQ(values<bool>(tensor(std::vector<bool>{true, false})), (std::vector<bool>{true, false}));
  EXPECT_EQ(tensor<int64_t>({1, 2}, std::nullopt, DType::Float64).dtype(), DType::Float64);
  EXPECT_THROW(tensor({1, 2, 3}, IntList{2, 2}), ShapeError);
}

TEST(Factory, LikeFactoriesCopyMetadataNotData) {
  Tensor base = full({2, 3}, 7, DType::Int32);
  EXPECT_EQ(zeros_like(base).sizes(), base.sizes());
  EXPECT_EQ(zeros_like(base).dtype(), DType::Int32);
  EXPECT_EQ(values<int32_t>(ones_like(base))[5], 1);
  EXPECT_EQ(empty_like(base, DType::Float64).dtype(), DType::Float64);
  EXPECT_EQ(values<float>(full_like(base, 1.5, DType::Float32))[0], 1.5f);
}

TEST(Factory, NonCpuDeviceWithoutHooksIsNotLinked) {
  const DeviceHooks previous = set_device_hooks(DeviceType::CUDA, DeviceHooks{});
  try {
    zeros({2}, DType::Float32, Device(DeviceType::CUDA));
    ADD_FAILURE();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "cuda device not linked");
  }
  set_device_hooks(DeviceType::CUDA, previous);
}

TEST(Factory, LazyFactoriesBuildOnCpuThenMoveThroughTheHook) {
  testing::FakeDevice fake(DeviceType::Lazy);
  Tensor t = arange(0, 4, 1, DType::Float32, kLazy);
  EXPECT_EQ(t.device(), kLazy);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{4}));
  EXPECT_THROW(t.raw_data(), std::runtime_error);
  EXPECT_EQ(values<float>(t), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(zeros_like(t).device(), kLazy);
}

}  // namespace
}  // namespace lazygen
