// Tests for the composite matmul (ops/composite/matmul.cpp) on cpu tensors against PyTorch's
// definition computed naively: every rank combination, broadcast batch dims, strided and empty
// operands, three dtypes, and the shape errors.
#include <gtest/gtest.h>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/broadcast.h"
#include "runtime/core/tensor/tensor_testing.h"
#include "runtime/ops/cpu/reference.h"

namespace lazygen {
namespace {

using testing::values;
using V = std::vector<int64_t>;

struct Reference {
  V sizes;
  std::vector<double> values;
};

// The offset of batch index `bi` (of the broadcast batch sizes) in an operand with batch sizes
// `own`, counted in matrices.
int64_t batch_offset(const V& own, const V& bi) {
  int64_t offset = 0;
  const size_t lead = bi.size() - own.size();
  for (size_t d = 0; d < own.size(); ++d)
    offset = offset * own[d] + (own[d] == 1 ? 0 : bi[lead + d]);
  return offset;
}

// torch.matmul by definition: 1-D operands promoted to matrices, batch dims broadcast, a naive
// product per batch, the promoted dims dropped again.
Reference naive_matmul(const Tensor& a, const Tensor& b) {
  V sa = a.sizes(), sb = b.sizes();
  const bool a_vec = sa.size() == 1, b_vec = sb.size() == 1;
  if (a_vec) sa.insert(sa.begin(), 1);
  if (b_vec) sb.push_back(1);
  const int64_t n = sa[sa.size() - 2], k = sa.back(), p = sb.back();
  const V ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
  const V batch = broadcast_sizes("reference", ba, bb);
  const auto va = values<double>(a), vb = values<double>(b);
  Reference r;
  testing::for_each_index(batch, [&](const V& bi) {
    const auto ma = va.begin() + batch_offset(ba, bi) * n * k;
    const auto mb = vb.begin() + batch_offset(bb, bi) * k * p;
    const std::vector<double> c = testing::matmul({ma, ma + n * k}, {mb, mb + k * p}, n, k, p);
    r.values.insert(r.values.end(), c.begin(), c.end());
  });
  r.sizes = batch;
  if (!a_vec) r.sizes.push_back(n);
  if (!b_vec) r.sizes.push_back(p);
  return r;
}

void expect_matches_reference(const Tensor& a, const Tensor& b, double tol = 1e-4) {
  SCOPED_TRACE(sizes_str(a.sizes()) + " @ " + sizes_str(b.sizes()));
  const Reference ref = naive_matmul(a, b);
  const Tensor got = matmul(a, b);
  EXPECT_EQ(got.sizes(), ref.sizes);
  EXPECT_EQ(got.dtype(), a.dtype());
  const auto v = values<double>(got);
  ASSERT_EQ(v.size(), ref.values.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], ref.values[i], tol) << i;
}

TEST(Matmul, EveryRankCombinationMatchesTheDefinition) {
  const std::vector<std::pair<V, V>> cases = {
      {{3}, {3}},
      {{2, 3}, {3}},
      {{3}, {3, 4}},
      {{2, 3}, {3, 4}},
      {{2, 5, 3}, {3}},
      {{2, 5, 3}, {3, 4}},
      {{2, 2, 5, 3}, {3, 4}},
      {{3}, {2, 3, 4}},
      {{5, 3}, {2, 3, 4}},
      {{2, 5, 3}, {2, 3, 4}},
      {{2, 1, 5, 3}, {3, 3, 4}},
      {{1, 5, 3}, {4, 3, 2}},
      {{3}, {2, 2, 3, 1}},
  };
  Generator g(5);
  for (const auto& [sa, sb] : cases) {
    expect_matches_reference(randn(sa, g), randn(sb, g));
    expect_matches_reference(randn(sa, g, DType::Float64), randn(sb, g, DType::Float64), 1e-10);
    expect_matches_reference(randint(-3, 4, sa, g), randint(-3, 4, sb, g), 0);
  }
}

TEST(Matmul, StridedOperands) {
  Generator g(6);
  Tensor a = randn({3, 5, 2}, g).permute({2, 1, 0});  // [2, 5, 3], no unit stride in the rows
  Tensor b = randn({4, 3}, g).t();                    // [3, 4], transposed
  expect_matches_reference(a, b);
  expect_matches_reference(a, randn({2, 4, 3}, g).transpose(1, 2));
  expect_matches_reference(randn({3, 4}, g).t(), randn({6}, g).slice(0, 0, 6, 2));
  expect_matches_reference(randn({1, 3}, g).expand({4, 3}), randn({2, 3, 2}, g));
}

TEST(Matmul, EmptyOperands) {
  expect_matches_reference(zeros({0, 3}), zeros({3, 4}));
  expect_matches_reference(zeros({2, 0, 3}), zeros({3, 4}));
  expect_matches_reference(zeros({0, 5, 3}), zeros({1, 3, 4}));
  Tensor k0 = matmul(zeros({2, 5, 0}), zeros({2, 0, 4}));  // an empty sum: zeros
  EXPECT_EQ(k0.sizes(), (V{2, 5, 4}));
  EXPECT_EQ(values<float>(k0), std::vector<float>(40, 0.0f));
  EXPECT_EQ(matmul(zeros({0}), zeros({0})).item<float>(), 0.0f);
}

TEST(Matmul, IsAMethodToo) {
  Tensor a = tensor<float>({1, 2, 3, 4}, IntList{2, 2});
  EXPECT_EQ(values<float>(a.matmul(tensor<float>({1, 1}))), (std::vector<float>{3, 7}));
}

TEST(Matmul, ShapeErrorsNameMatmulAndBothShapes) {
  auto message = [](const Tensor& a, const Tensor& b) -> std::string {
    try {
      matmul(a, b);
    } catch (const ShapeError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(message(scalar_tensor(1), zeros({3})),
            "matmul: both arguments need to be at least 1D, but they are 0D and 1D (self of "
            "shape [], other of shape [3])");
  EXPECT_EQ(message(zeros({2, 3}), zeros({4, 5})),
            "matmul: shapes cannot be multiplied (3 columns and 4 rows) (self of shape [2, 3], "
            "other of shape [4, 5])");
  EXPECT_EQ(message(zeros({3}), zeros({4})),
            "matmul: shapes cannot be multiplied (3 columns and 4 rows) (self of shape [3], other "
            "of shape [4])");
  EXPECT_EQ(message(zeros({2, 5, 3}), zeros({3, 3, 4})),
            "matmul: batch dimensions [2] and [3] cannot be broadcast (self of shape [2, 5, 3], "
            "other of shape [3, 3, 4])");
  EXPECT_EQ(message(zeros({2, 3}), zeros({3, 4}, DType::Float64)),
            "matmul: expected both operands to have the same dtype, but got float32 and float64 "
            "(self of shape [2, 3], other of shape [3, 4])");
}

}  // namespace
}  // namespace lazygen
