// The views, indexing ops, clamp, masked_fill and matmul through the op API
// (lazygen/generated/ops.h, lazygen/composite.h) on the lazy device (fused cpu backend) against
// the same calls on cpu tensors; shape errors at trace time, index errors at the sync point; and
// in-place updates through cpu views reaching their base.
#include <gtest/gtest.h>

#include <functional>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/bmm.h"
#include "lazygen/generated/ops/clamp.h"
#include "lazygen/generated/ops/flatten.h"
#include "lazygen/generated/ops/gather.h"
#include "lazygen/generated/ops/index_add.h"
#include "lazygen/generated/ops/index_select.h"
#include "lazygen/generated/ops/masked_fill.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/scatter_add.h"
#include "lazygen/generated/ops/slice_backward.h"
#include "lazygen/lazy.h"
#include "lazygen/nn/functional.h"
#include "lazygen/operators.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen {
namespace {

using testing::values;
using Inputs = std::vector<Tensor>;
using Fn = std::function<Tensor(const Inputs&)>;

class LazyConsistency : public ::testing::Test {
 protected:
  void SetUp() override { mark_step(); }
};

// fn on cpu inputs and on their lazy copies: the same sizes, dtype and values.
void expect_lazy_matches_eager(const Fn& fn, const Inputs& inputs, double tol = 0) {
  const Tensor eager = fn(inputs);
  Inputs lazy_inputs;
  for (const Tensor& t : inputs) lazy_inputs.push_back(t.to(kLazy));
  const Tensor lazy = fn(lazy_inputs);
  ASSERT_TRUE(lazy.device().is_lazy());
  EXPECT_EQ(lazy.sizes(), eager.sizes());
  EXPECT_EQ(lazy.dtype(), eager.dtype());
  const auto want = values<double>(eager), got = values<double>(lazy);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << i;
}

Tensor iota(const IntList& sizes, DType dtype = DType::Float32) {
  return arange(0, checked_numel("iota", sizes), 1).to(dtype).view(sizes);
}
Tensor idx(const std::vector<int64_t>& v, std::optional<IntList> sizes = std::nullopt) {
  return tensor<int64_t>(v, sizes);
}

TEST_F(LazyConsistency, ReshapeAsViewAndAsCopy) {
  const Inputs x = {iota({2, 3, 4})};
  expect_lazy_matches_eager([](const Inputs& in) { return in[0].reshape({6, -1}) + 1; }, x);
  expect_lazy_matches_eager([](const Inputs& in) { return (in[0] * 2).reshape({4, 6}); }, x);
  // No view fits a transposed pair: the fused backend runs it as a copying library op.
  expect_lazy_matches_eager([](const Inputs& in) { return in[0].transpose(0, 2).reshape({-1}); },
                            x);
  expect_lazy_matches_eager(
      [](const Inputs& in) {
        return (in[0].transpose(1, 2).reshape({2, 12}) - 3).reshape({24});
      },
      x);
  expect_lazy_matches_eager(
      [](const Inputs& in) {
        return in[0].reshape({0, 5});
      },
      {zeros({5, 0})});
}

TEST_F(LazyConsistency, FlattenAndNarrow) {
  const Inputs x = {iota({2, 3, 4, 5})};
  expect_lazy_matches_eager([](const Inputs& in) { return flatten(in[0]); }, x);
  expect_lazy_matches_eager([](const Inputs& in) { return in[0].flatten(1, 2) * 2; }, x);
  expect_lazy_matches_eager([](const Inputs& in) { return nn::functional::flatten(in[0]); }, x);
  expect_lazy_matches_eager(
      [](const Inputs& in) {
        return flatten(in[0].permute({3, 2, 1, 0}), 1);
      },
      x);
  expect_lazy_matches_eager([](const Inputs& in) { return narrow(in[0], 3, -2, 2) + 1; }, x);
  expect_lazy_matches_eager([](const Inputs& in) { return in[0].transpose(0, 3).narrow(0, 1, 3); },
                            x);
  expect_lazy_matches_eager(
      [](const Inputs& in) {
        return slice_backward(in[0], {2, 3, 4, 9}, -1, 2, 7, 1);
      },
      x);
}

TEST_F(LazyConsistency, IndexSelectAndIndexAdd) {
  const Inputs x = {iota({3, 4}), idx({2, 0, 2}), iota({3, 3}) + 1};
  expect_lazy_matches_eager([](const Inputs& in) { return index_select(in[0], 0, in[1]); }, x);
  expect_lazy_matches_eager([](const Inputs& in) { return in[0].t().index_select(-1, in[1]); }, x);
  expect_lazy_matches_eager([](const Inputs& in) { return index_add(in[0], 1, in[1], in[2], 0.5); },
                            x);
  expect_lazy_matches_eager(
      [](const Inputs& in) {
        return in[0].t().index_add(0, in[1], in[2].t().reshape({3, 3}).narrow(1, 0, 3));
      },
      {iota({3, 3}), idx({2, 0, 2}), iota({3, 3})});
}

TEST_F(LazyConsistency, GatherAndScatterAdd) {
  const Inputs x = {iota({3, 4}), idx({0, 3, 3, 1, 2, 0}, IntList{3, 2}), ones({3, 2})};
  expect_lazy_matches_eager([](const Inputs& in) { return gather(in[0], 1, in[1]); }, x);
  expect_lazy_matches_eager([](const Inputs& in) { return in[0].t().gather(0, in[1].t()); }, x);
  expect_lazy_matches_eager([](const Inputs& in) { return scatter_add(in[0], 1, in[1], in[2]); },
                            x);
  expect_lazy_matches_eager(
      [](const Inputs& in) { return in[0].scatter_add(1, in[1], in[2] * 3) * 2; }, x);
}

TEST_F(LazyConsistency, MaskedFillAndClamp) {
  const Inputs x = {iota({2, 3}) - 2, tensor<bool>({true, false, true})};
  expect_lazy_matches_eager([](const Inputs& in) { return masked_fill(in[0], in[1], -7.5); }, x);
  expect_lazy_matches_eager(
      [](const Inputs& in) {
        return in[0].t().masked_fill(in[1].view({3, 1}), 1) + in[0].t();
      },
      x);
  expect_lazy_matches_eager([](const Inputs& in) { return clamp(in[0], -1, 1.5); }, x);
  expect_lazy_matches_eager([](const Inputs& in) { return in[0].clamp(std::nullopt, 0) * 2; }, x);
  expect_lazy_matches_eager([](const Inputs& in) { return clamp(in[0], 0.5); },
                            {tensor<int64_t>({-1, 0, 1, 2})});
}

TEST_F(LazyConsistency, MatmulEveryRankCombination) {
  const std::vector<std::pair<IntList, IntList>> cases = {
      {{3}, {3}},          {{2, 3}, {3}},       {{3}, {3, 4}},
      {{2, 3}, {3, 4}},    {{2, 5, 3}, {3}},    {{2, 5, 3}, {3, 4}},
      {{3}, {2, 3, 4}},    {{5, 3}, {2, 3, 4}}, {{2, 1, 5, 3}, {3, 3, 4}},
      {{2, 0, 3}, {3, 4}},
  };
  Generator g(3);
  for (const auto& [sa, sb] : cases) {
    SCOPED_TRACE(sizes_str(sa) + " @ " + sizes_str(sb));
    expect_lazy_matches_eager([](const Inputs& in) { return matmul(in[0], in[1]); },
                              {randn(sa, g, DType::Float64), randn(sb, g, DType::Float64)}, 1e-12);
  }
  expect_lazy_matches_eager(
      [](const Inputs& in) { return in[0].transpose(0, 2).matmul(in[1].t()); },
      {randn({3, 5, 2}, g), randn({4, 3}, g)}, 1e-5);
  expect_lazy_matches_eager([](const Inputs& in) { return bmm(in[0], in[1]); },
                            {randn({2, 3, 4}, g), randn({2, 4, 5}, g)}, 1e-5);
}

TEST_F(LazyConsistency, ShapeErrorsAreRaisedAtTraceTime) {
  Tensor x = iota({2, 3}).to(kLazy);
  EXPECT_THROW(x.reshape({4, -1}), ShapeError);
  EXPECT_THROW(narrow(x, 1, 2, 2), ShapeError);
  EXPECT_THROW(flatten(x, 1, 0), ShapeError);
  EXPECT_THROW(index_select(x, 0, tensor<float>({0}).to(kLazy)), ShapeError);
  EXPECT_THROW(gather(x, 0, idx({0}).to(kLazy)), ShapeError);
  EXPECT_THROW(matmul(x, x), ShapeError);
  EXPECT_THROW(clamp(x), ShapeError);
}

TEST_F(LazyConsistency, IndexOutOfRangeIsRaisedAtTheSyncPoint) {
  std::string message;
  {
    Tensor x = iota({2, 3}).to(kLazy);
    Tensor picked = index_select(x, 1, idx({0, 3}).to(kLazy));  // traced: values are data
    EXPECT_EQ(picked.sizes(), (IntList{2, 2}));
    try {
      picked.cpu();
    } catch (const std::out_of_range& e) {
      message = e.what();
    }
  }
  EXPECT_EQ(message,
            "index_select: index 3 is out of bounds for dimension 1 with size 3 (self of shape "
            "[2, 3], index of shape [2])");
  mark_step();
  // The lazy device still works.
  EXPECT_EQ(values<float>(index_select(iota({2, 3}).to(kLazy), 1, idx({2}).to(kLazy))),
            (std::vector<float>{2, 5}));
}

TEST_F(LazyConsistency, InPlaceUpdatesThroughCpuViewsReachTheBase) {
  Tensor x = zeros({2, 6});
  x.narrow(1, 4, 2).fill_(1);
  x.reshape({3, 4}).select(0, 0).add_(ones({4}));
  x.flatten().narrow(0, 11, 1).mul_(tensor<float>({0}));
  EXPECT_EQ(values<float>(x), (std::vector<float>{1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0}));
}

}  // namespace
}  // namespace lazygen
