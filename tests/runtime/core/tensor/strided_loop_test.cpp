// Tests for core/tensor/strided_loop.h: plans, block walks and copies.
#include "core/tensor/strided_loop.h"

#include <gtest/gtest.h>

#include "core/tensor/tensor_impl.h"
#include "lazygen/factory.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen {
namespace {

using detail::copy_into;
using detail::make_strided_plan;
using testing::values;

Tensor view(const Tensor& t, std::vector<int64_t> sizes, std::vector<int64_t> strides,
            int64_t offset = 0) {
  return make_view(t, std::move(sizes), std::move(strides), offset);
}

TEST(StridedPlan, MergesContiguousDimsIntoOneDenseDim) {
  Tensor out = empty({2, 3, 4}), in = empty({2, 3, 4}, DType::Int32);
  const Tensor inputs[] = {in};
  auto plan = make_strided_plan("op", out, inputs);
  ASSERT_EQ(plan.ndim, 1);
  EXPECT_EQ(plan.sizes[0], 24);
  EXPECT_TRUE(plan.dense);
  EXPECT_EQ(plan.strides[1][0], 4);
}

TEST(StridedPlan, BroadcastDimsGetStrideZeroAndStayApart) {
  Tensor out = empty({2, 3}), row = empty({3});
  const Tensor inputs[] = {row};
  auto plan = make_strided_plan("op", out, inputs);
  ASSERT_EQ(plan.ndim, 2);
  EXPECT_EQ(plan.sizes[0], 2);
  EXPECT_EQ(plan.sizes[1], 3);
  EXPECT_EQ(plan.strides[1][0], 0);
  EXPECT_EQ(plan.strides[1][1], 4);
  EXPECT_FALSE(plan.dense);
  EXPECT_FALSE(plan.tiled);
}

TEST(StridedPlan, RejectsInputsThatDoNotBroadcast) {
  Tensor out = empty({2, 3}), bad = empty({2});
  const Tensor inputs[] = {bad};
  try {
    make_strided_plan("mul.Tensor", out, inputs);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "mul.Tensor: input shape [2] cannot be broadcast to output shape [2, 3]");
  }
}

// Repeated elements of an output are refused when the op reads a tensor; an op that reads
// none (fill_, zero_) writes one value everywhere, which PyTorch allows.
TEST(StridedPlan, RejectsOutputsWithRepeatedElementsUnlessItReadsNoTensor) {
  Tensor base = zeros({3});
  Tensor expanded = view(base, {2, 3}, {0, 1});
  const Tensor other = ones({2, 3});
  EXPECT_THROW(make_strided_plan("add_", expanded, std::span<const Tensor>(&other, 1)), ShapeError);
  EXPECT_NO_THROW(make_strided_plan("fill_", expanded, {}));
}

TEST(StridedPlan, BlocksCoverAnySubRangeInRowMajorOrder) {
  Tensor out = empty({3, 700}, DType::Int64);
  auto plan = make_strided_plan("op", out, {});
  auto* base = static_cast<char*>(out.raw_data());
  std::vector<int64_t> seen;
  auto record = [&](const detail::StridedBlock& b) {
    EXPECT_LE(b.n, detail::kBlockSize);
    for (int64_t i = 0; i < b.n; ++i) seen.push_back((b.data[0] + i * b.strides[0] - base) / 8);
  };
  detail::for_each_block(plan, 650, 1500, record);
  ASSERT_EQ(seen.size(), 850u);
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], 650 + static_cast<int64_t>(i));
}

TEST(StridedPlan, TransposedInputsAreWalkedInTiles) {
  Tensor base = arange(0, 100 * 70, 1, DType::Int64);
  Tensor transposed = view(base, {70, 100}, {1, 70});
  Tensor out = empty({70, 100}, DType::Int64);
  const Tensor inputs[] = {transposed};
  auto plan = make_strided_plan("op", out, inputs);
  EXPECT_TRUE(plan.tiled);
  // Every element is visited exactly once for any sub-range, partial rows included.
  for (auto [begin, end] :
       {std::pair<int64_t, int64_t>{0, 7000}, {5, 6999}, {130, 170}, {99, 101}}) {
    std::vector<int> hits(7000);
    auto* base_out = static_cast<char*>(out.raw_data());
    auto record = [&](const detail::StridedBlock& b) {
      EXPECT_LE(b.n * b.rows, detail::kMaxBlockElements);  // tiles inside, rows at the ends
      for (int64_t r = 0; r < b.rows; ++r) {
        for (int64_t i = 0; i < b.n; ++i) {
          ++hits[(b.data[0] + r * b.row_strides[0] + i * b.strides[0] - base_out) / 8];
        }
      }
    };
    detail::for_each_block(plan, begin, end, record);
    for (int64_t i = 0; i < 7000; ++i) ASSERT_EQ(hits[i], i >= begin && i < end ? 1 : 0) << i;
  }
  copy_into("copy_", out, transposed);
  const auto v = values<int64_t>(out);
  for (int64_t i = 0; i < 70; ++i) {
    for (int64_t j = 0; j < 100; ++j) ASSERT_EQ(v[i * 100 + j], j * 70 + i);
  }
}

TEST(StridedPlan, RejectsMoreThanMaxDims) {
  Tensor out = empty(std::vector<int64_t>(detail::kMaxDims + 1, 1));
  EXPECT_THROW(make_strided_plan("op", out, {}), ShapeError);
}

TEST(CopyInto, ConvertsDTypes) {
  Tensor dst = empty({3}, DType::Int32);
  copy_into("copy_", dst, tensor({1.9f, -1.9f, 7.f}));
  EXPECT_EQ(values<int32_t>(dst), (std::vector<int32_t>{1, -1, 7}));
}

TEST(CopyInto, BroadcastsTheSource) {
  Tensor dst = empty({2, 3}, DType::Float64);
  copy_into("copy_", dst, tensor({1.f, 2.f, 3.f}));
  EXPECT_EQ(values<double>(dst), (std::vector<double>{1, 2, 3, 1, 2, 3}));
}

TEST(CopyInto, WritesThroughTransposedDestinations) {
  Tensor base = zeros({2, 3}, DType::Int64);
  Tensor dst = view(base, {3, 2}, {1, 3});
  copy_into("copy_", dst, tensor<int64_t>({0, 1, 2, 3, 4, 5}, IntList{3, 2}));
  EXPECT_EQ(values<int64_t>(base), (std::vector<int64_t>{0, 2, 4, 1, 3, 5}));
}

TEST(CopyInto, PartialOverlapReadsTheOriginalValues) {
  // dst = x[1:], src = x[:-1]: a naive forward loop would smear x[0] everywhere.
  Tensor x = arange(0, 6, 1, DType::Int64);
  copy_into("copy_", view(x, {5}, {1}, 1), view(x, {5}, {1}, 0));
  EXPECT_EQ(values<int64_t>(x), (std::vector<int64_t>{0, 0, 1, 2, 3, 4}));
}

TEST(CopyInto, HandlesEmptyAndScalarTensors) {
  copy_into("copy_", empty({0, 3}), empty({0, 3}));
  Tensor s = empty({});
  copy_into("copy_", s, scalar_tensor(2.5, DType::Float64));
  EXPECT_EQ(s.item<float>(), 2.5f);
}

// Large enough that threads split the range (dense, strided rows and transposed tiles alike).
TEST(CopyInto, LargeCopiesSplitAcrossThreadsAndCoverEveryElement) {
  const int64_t rows = 700, cols = 600;
  Tensor src = arange(0, rows * cols, 1, DType::Int64);
  Tensor dense = empty({rows * cols}, DType::Int64);
  copy_into("copy_", dense, src);
  EXPECT_EQ(values<int64_t>(dense), values<int64_t>(src));
  // src seen as [cols, rows] transposed, written into a slice of a wider output (cat's case).
  Tensor out = zeros({rows, cols + 3}, DType::Float64);
  copy_into("cat", view(out, {rows, cols}, {cols + 3, 1}, 3), view(src, {rows, cols}, {1, rows}));
  const std::vector<double> got = values<double>(out);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols + 3; ++c) {
      const double want = c < 3 ? 0.0 : static_cast<double>((c - 3) * rows + r);
      ASSERT_EQ(got[static_cast<size_t>(r * (cols + 3) + c)], want) << r << ", " << c;
    }
  }
}

}  // namespace
}  // namespace lazygen
