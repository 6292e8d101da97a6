// Tests for the cpu pointwise engine (ops/cpu/pointwise.h) on hand-written functors shaped
// like the generated ones (lazygen/generated/pointwise_ops.h).
#include "ops/cpu/pointwise.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/tensor/tensor_impl.h"
#include "lazygen/factory.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen::kernels {
namespace {

struct AddTensor {
  static constexpr int kTensors = 2;
  static constexpr int kScalars = 1;
  template <class T>
  LAZYGEN_HD auto operator()(T self, T other, T alpha) const {
    return self + alpha * other;
  }
};

struct Relu {
  static constexpr int kTensors = 1;
  static constexpr int kScalars = 0;
  template <class T>
  LAZYGEN_HD auto operator()(T self) const {
    return max(self, 0);
  }
};

struct Greater {
  static constexpr int kTensors = 2;
  static constexpr int kScalars = 0;
  template <class T>
  LAZYGEN_HD auto operator()(T self, T other) const {
    return self > other;
  }
};

struct Where {
  static constexpr int kTensors = 3;
  static constexpr int kScalars = 0;
  template <class T>
  LAZYGEN_HD auto operator()(T condition, T self, T other) const {
    return where(condition, self, other);
  }
};

struct Fill {
  static constexpr int kTensors = 0;
  static constexpr int kScalars = 1;
  template <class T>
  LAZYGEN_HD auto operator()(T value) const {
    return value;
  }
};

struct Zero {
  static constexpr int kTensors = 0;
  static constexpr int kScalars = 0;
  template <class T>
  LAZYGEN_HD auto operator()() const {
    return 0;
  }
};

}  // namespace
}  // namespace lazygen::kernels

namespace lazygen::cpu {
namespace {

using kernels::AddTensor;
using testing::values;

Tensor transposed(const Tensor& t) {
  return make_view(t, {t.size(1), t.size(0)}, {t.stride(1), t.stride(0)}, t.storage_offset());
}

TEST(Pointwise, ContiguousSameDType) {
  Tensor a = tensor({1.f, 2.f, 3.f}), b = tensor({10.f, 20.f, 30.f});
  Tensor out = empty({3});
  run_pointwise<AddTensor>("add.Tensor", out, {a, b}, {2}, DType::Float32);
  EXPECT_EQ(values<float>(out), (std::vector<float>{21, 42, 63}));
}

TEST(Pointwise, BroadcastsInputsWithStrideZero) {
  Tensor col = tensor({1.f, 2.f}, IntList{2, 1}), row = tensor({10.f, 20.f, 30.f});
  Tensor out = empty({2, 3});
  run_pointwise<AddTensor>("add.Tensor", out, {col, row}, {1}, DType::Float32);
  EXPECT_EQ(values<float>(out), (std::vector<float>{11, 21, 31, 12, 22, 32}));
  Tensor scalar = scalar_tensor(5.0);
  run_pointwise<AddTensor>("add.Tensor", out, {col, scalar}, {1}, DType::Float32);
  EXPECT_EQ(values<float>(out), (std::vector<float>{6, 6, 6, 7, 7, 7}));
}

TEST(Pointwise, ReadsTransposedInputsAndWritesTransposedOutputs) {
  Tensor a = tensor({0.f, 1.f, 2.f, 3.f, 4.f, 5.f}, IntList{2, 3});
  Tensor out = empty({3, 2});
  run_pointwise<AddTensor>("add.Tensor", out, {transposed(a), transposed(a)}, {1}, DType::Float32);
  EXPECT_EQ(values<float>(out), (std::vector<float>{0, 6, 2, 8, 4, 10}));
  Tensor base = zeros({2, 3});
  run_pointwise<AddTensor>("add.Tensor", transposed(base), {out, zeros({3, 2})}, {1},
                           DType::Float32);
  EXPECT_EQ(values<float>(base), (std::vector<float>{0, 2, 4, 6, 8, 10}));
}

TEST(Pointwise, ConvertsMixedDTypesOnLoadAndStore) {
  Tensor i = tensor<int32_t>({1, 2, 3}), d = tensor<double>({0.5, 0.5, 0.5});
  Tensor out = empty({3}, DType::Float64);
  run_pointwise<AddTensor>("add.Tensor", out, {i, d}, {1}, DType::Float64);
  EXPECT_EQ(values<double>(out), (std::vector<double>{1.5, 2.5, 3.5}));
  Tensor truncated = empty({3}, DType::Int64);
  run_pointwise<AddTensor>("add.Tensor", truncated, {i, d}, {3}, DType::Float32);
  EXPECT_EQ(values<int64_t>(truncated), (std::vector<int64_t>{2, 3, 4}));
}

TEST(Pointwise, ScalarsConvertToTheComputeType) {
  Tensor a = tensor<int32_t>({1, 2}), out = empty({2}, DType::Int32);
  run_pointwise<AddTensor>("add.Tensor", out, {a, a}, {2.7}, DType::Int32);  // alpha 2.7 -> 2
  EXPECT_EQ(values<int32_t>(out), (std::vector<int32_t>{3, 6}));
}

TEST(Pointwise, ComparisonsStoreBools) {
  Tensor a = tensor({1.f, 5.f, 3.f}), b = tensor<int64_t>({2, 2, 3});
  Tensor out = empty({3}, DType::Bool);
  run_pointwise<kernels::Greater>("gt.Tensor", out, {a, b}, {}, DType::Float32);
  EXPECT_EQ(values<bool>(out), (std::vector<bool>{false, true, false}));
}

TEST(Pointwise, InPlaceOutputMayBeAnInput) {
  Tensor x = tensor({1.f, 2.f, 3.f});
  run_pointwise<AddTensor>("add_.Tensor", x, {x, tensor({1.f})}, {1}, DType::Float32);
  EXPECT_EQ(values<float>(x), (std::vector<float>{2, 3, 4}));
  run_pointwise<kernels::Relu>("relu_", x, {x}, {}, DType::Float32);
  EXPECT_EQ(values<float>(x), (std::vector<float>{2, 3, 4}));
}

TEST(Pointwise, PartiallyOverlappingInputsReadOriginalValues) {
  Tensor x = arange(0, 6, 1, DType::Float32);
  Tensor head = make_view(x, {5}, {1}, 0), tail = make_view(x, {5}, {1}, 1);
  run_pointwise<AddTensor>("add_.Tensor", tail, {head, zeros({1})}, {1}, DType::Float32);
  EXPECT_EQ(values<float>(x), (std::vector<float>{0, 0, 1, 2, 3, 4}));
}

TEST(Pointwise, InPlaceWritesThroughAViewReachTheBase) {
  Tensor base = zeros({2, 3});
  Tensor row = make_view(base, {3}, {1}, 3);
  run_pointwise<AddTensor>("add_.Tensor", row, {row, tensor({1.f, 2.f, 3.f})}, {1}, DType::Float32);
  EXPECT_EQ(values<float>(base), (std::vector<float>{0, 0, 0, 1, 2, 3}));
}

TEST(Pointwise, ZeroSizedTensorsDoNothing) {
  Tensor out = empty({0, 3});
  run_pointwise<AddTensor>("add.Tensor", out, {empty({0, 3}), empty({3})}, {1}, DType::Float32);
  EXPECT_EQ(out.numel(), 0);
}

TEST(Pointwise, KernelsWithoutTensorInputsFill) {
  Tensor out = empty({2, 2}, DType::Int64);
  run_pointwise<kernels::Fill>("fill_.Scalar", out, {}, {7}, DType::Int64);
  EXPECT_EQ(values<int64_t>(out), (std::vector<int64_t>{7, 7, 7, 7}));
  run_pointwise<kernels::Zero>("zero_", transposed(out), {}, {}, DType::Int64);
  EXPECT_EQ(values<int64_t>(out), (std::vector<int64_t>{0, 0, 0, 0}));
}

TEST(Pointwise, ThreeInputsWithMixedBroadcast) {
  Tensor cond = tensor({true, false}, IntList{2, 1});
  Tensor out = empty({2, 2});
  run_pointwise<kernels::Where>("where.self", out, {cond, tensor({1.f, 2.f}), scalar_tensor(9.f)},
                                {}, DType::Float32);
  EXPECT_EQ(values<float>(out), (std::vector<float>{1, 2, 9, 9}));
}

TEST(Pointwise, LargeTensorsMatchAReferenceLoop) {
  const int64_t n = 1 << 20;
  Generator g(1);
  Tensor a = randn({n}, g), b = randn({n}, g);
  Tensor out = empty({n});
  run_pointwise<AddTensor>("add.Tensor", out, {a, b}, {0.5}, DType::Float32);
  const float* pa = a.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  const float* po = out.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(po[i], pa[i] + 0.5f * pb[i]) << i;
  // The strided path too: a transposed [1024, 1024] input.
  Tensor m = make_view(a, {1024, 1024}, {1, 1024}, 0);
  Tensor out2 = empty({1024, 1024});
  run_pointwise<kernels::Relu>("relu", out2, {m}, {}, DType::Float32);
  const float* p2 = out2.data_ptr<float>();
  for (int64_t i = 0; i < 1024; ++i) {
    for (int64_t j = 0; j < 1024; ++j) ASSERT_EQ(p2[i * 1024 + j], std::max(pa[j * 1024 + i], 0.f));
  }
}

TEST(Pointwise, TransposedMixedDTypeInputsGoThroughTiles) {
  // A transposed int32 input (gathered tile by tile), a broadcast float row, a float64 output.
  Tensor base = arange(0, 300 * 200, 1, DType::Int32);
  Tensor at = make_view(base, {200, 300}, {1, 200}, 0);  // at[i, j] == j * 200 + i
  Tensor row = arange(0, 300, 1, DType::Float32);
  Tensor out = empty({200, 300}, DType::Float64);
  run_pointwise<AddTensor>("add.Tensor", out, {at, row}, {2}, DType::Float64);
  const double* po = out.data_ptr<double>();
  for (int64_t i = 0; i < 200; ++i) {
    for (int64_t j = 0; j < 300; ++j)
      ASSERT_EQ(po[i * 300 + j], j * 200 + i + 2.0 * j) << i << "," << j;
  }
}

TEST(Pointwise, ErrorsNameTheOp) {
  Tensor out = empty({2});
  try {
    run_pointwise<AddTensor>("add.Tensor", out, {out}, {1}, DType::Float32);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "add.Tensor: the pointwise kernel takes 2 tensors and 1 scalars, got 1 and 1");
  }
  EXPECT_THROW(run_pointwise<AddTensor>("add.Tensor", out, {out, empty({3})}, {1}, DType::Float32),
               ShapeError);
  testing::FakeDevice fake(DeviceType::Lazy);
  EXPECT_THROW(
      run_pointwise<AddTensor>("add.Tensor", out, {out, out.to(kLazy)}, {1}, DType::Float32),
      ShapeError);
}

}  // namespace
}  // namespace lazygen::cpu
