// Tests for mm, addmm and bmm (ops/cpu/matmul.cpp) against a naive loop, including transposed
// and otherwise strided operands.
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "core/tensor/strided_loop.h"
#include "lazygen/factory.h"
#include "ops/cpu/custom_kernels.h"
#include "runtime/core/tensor/tensor_testing.h"
#include "runtime/ops/cpu/reference.h"

namespace lazygen::cpu {
namespace {

using testing::values;
using V = std::vector<int64_t>;

void expect_close(const Tensor& got, const std::vector<double>& want, double tol = 1e-4) {
  const auto v = values<double>(got);
  ASSERT_EQ(v.size(), want.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[i], tol) << i;
}

std::vector<double> naive_mm(const Tensor& a, const Tensor& b) {
  return testing::matmul(values<double>(a), values<double>(b), a.size(0), a.size(1), b.size(1));
}

// An [r, c] operand in one of four layouts: contiguous, a transposed view, a column slice of a
// wider matrix (row stride > c), or a step-2 slice (no unit stride: BLAS needs a copy).
Tensor layout(const Tensor& contiguous, int which, Generator& g) {
  const int64_t r = contiguous.size(0), c = contiguous.size(1);
  switch (which) {
    case 1:
      return t(t(contiguous).contiguous());
    case 2: {
      Tensor wide = randn({r, c + 3}, g, contiguous.dtype());
      Tensor part = slice_tensor(wide, 1, 1, c + 1, 1);
      lazygen::detail::copy_into("copy_", part, contiguous);
      return part;
    }
    case 3: {
      Tensor sparse = zeros({r, 2 * c}, contiguous.dtype());
      Tensor part = slice_tensor(sparse, 1, 0, std::nullopt, 2);
      lazygen::detail::copy_into("copy_", part, contiguous);
      return part;
    }
  }
  return contiguous;
}

TEST(Matmul, MmMatchesNaiveLoopForEveryOperandLayout) {
  Generator g(31);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    Tensor a = randn({7, 5}, g, dtype), b = randn({5, 9}, g, dtype);
    for (int la = 0; la < 4; ++la) {
      for (int lb = 0; lb < 4; ++lb) {
        SCOPED_TRACE(std::to_string(la) + "/" + std::to_string(lb));
        Tensor av = layout(a, la, g), bv = layout(b, lb, g);
        Tensor c = mm(av, bv);
        EXPECT_EQ(c.sizes(), (V{7, 9}));
        EXPECT_EQ(c.dtype(), dtype);
        expect_close(c, naive_mm(a, b));
      }
    }
  }
}

// Products large enough to be split over the thread pool (blas_gemm.h, Note [One thread pool]),
// along n or m, with extents that are not multiples of the part alignment, in every operand
// layout: every row and column of the result must be computed.
TEST(Matmul, PoolSplitProductsCoverEveryRowAndColumn) {
  Generator g(33);
  const std::vector<std::array<int64_t, 3>> shapes = {
      {32, 1000, 40}, {200, 1000, 24}, {33, 700, 47}, {130, 300, 129}};
  for (const auto& [m, k, n] : shapes) {
    Tensor a = randn({m, k}, g, DType::Float64), b = randn({k, n}, g, DType::Float64);
    const auto want = naive_mm(a, b);
    for (int la : {0, 1}) {
      for (int lb : {0, 1}) {
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) +
                     " layouts " + std::to_string(la) + "/" + std::to_string(lb));
        expect_close(mm(layout(a, la, g), layout(b, lb, g)), want, 1e-9);
      }
    }
  }
}

TEST(Matmul, TransposedInputsAreReadInPlace) {
  // Not observable directly; the product of x.t() and x must equal the naive product.
  Generator g(32);
  Tensor x = randn({64, 33}, g);
  expect_close(mm(t(x), x), naive_mm(t(x).contiguous(), x), 1e-3);
  Tensor row = randn({1, 5}, g), col = randn({5, 1}, g);
  expect_close(mm(row, col), naive_mm(row, col));
  expect_close(mm(col, row), naive_mm(col, row));
}

TEST(Matmul, IntegerAndBoolProductsUseLoops) {
  Tensor a = tensor<int64_t>({1, 2, 3, 4, 5, 6}, IntList{2, 3});
  Tensor b = tensor<int64_t>({1, 0, 0, 1, 1, 1}, IntList{3, 2});
  EXPECT_EQ(values<int64_t>(mm(a, b)), (std::vector<int64_t>{4, 5, 10, 11}));
  EXPECT_EQ(values<int32_t>(mm(a.to(DType::Int32), t(t(b).to(DType::Int32).contiguous()))),
            (std::vector<int32_t>{4, 5, 10, 11}));
  Tensor p = tensor({true, false, false, false}, IntList{2, 2});
  EXPECT_EQ(values<bool>(mm(p, p)), (std::vector<bool>{true, false, false, false}));
}

TEST(Matmul, EmptyInnerDimensionGivesZeros) {
  EXPECT_EQ(values<float>(mm(empty({2, 0}), empty({0, 3}))), std::vector<float>(6, 0.f));
  EXPECT_EQ(mm(empty({0, 4}), empty({4, 3})).sizes(), (V{0, 3}));
}

TEST(Matmul, ShapeErrorsNameTheOpAndShapes) {
  try {
    mm(empty({2, 3}), empty({4, 5}));
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(), "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  }
  EXPECT_THROW(mm(empty({2, 3}), empty({3, 2}, DType::Float64)), ShapeError);
  EXPECT_THROW(mm(empty({3}), empty({3, 2})), ShapeError);
}

TEST(Matmul, AddmmScalesAndBroadcastsSelf) {
  Generator g(33);
  Tensor a = randn({4, 3}, g), b = randn({3, 5}, g), bias = randn({5}, g);
  const auto ab = naive_mm(a, b);
  const auto bv = values<double>(bias);
  std::vector<double> want(ab.size());
  for (size_t i = 0; i < want.size(); ++i) want[i] = 0.5 * bv[i % 5] + 2.0 * ab[i];
  expect_close(addmm(bias, a, b, 0.5, 2.0), want);
  expect_close(addmm(bias, t(t(a).contiguous()), b, 0.5, 2.0), want);
  Tensor ints = addmm(tensor<int64_t>({1}), tensor<int64_t>({2}, IntList{1, 1}),
                      tensor<int64_t>({3}, IntList{1, 1}), 10, 1);
  EXPECT_EQ(ints.item<int64_t>(), 16);
  EXPECT_THROW(addmm(randn({2, 5}, g), a, b, 1, 1), ShapeError);
}

TEST(Matmul, AddmmWithBetaZeroIgnoresSelf) {
  Tensor nan = full({2, 2}, NAN);
  Tensor eye = tensor({1.f, 0.f, 0.f, 1.f}, IntList{2, 2});
  EXPECT_EQ(values<float>(addmm(nan, eye, eye, 0, 1)), (std::vector<float>{1, 0, 0, 1}));
}

TEST(Matmul, BmmMatchesPerBatchProducts) {
  Generator g(34);
  Tensor a = randn({3, 4, 5}, g), b = randn({3, 5, 2}, g);
  Tensor bt = transpose_int(randn({3, 2, 5}, g), 1, 2);  // [3, 5, 2], transposed batches
  for (const Tensor& rhs : {b, bt}) {
    Tensor c = bmm(a, rhs);
    EXPECT_EQ(c.sizes(), (V{3, 4, 2}));
    for (int64_t i = 0; i < 3; ++i) {
      expect_close(select_int(c, 0, i), naive_mm(select_int(a, 0, i), select_int(rhs, 0, i)));
    }
  }
  EXPECT_THROW(bmm(a, randn({2, 5, 2}, g)), ShapeError);
  EXPECT_THROW(bmm(a, randn({3, 4, 2}, g)), ShapeError);
}

}  // namespace
}  // namespace lazygen::cpu
