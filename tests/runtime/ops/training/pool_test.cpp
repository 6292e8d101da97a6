// Tests for max_pool2d_with_indices, max_pool2d and their backward ops (ops/cpu/pool.cpp) against
// a scan of each window: strides, padding, dilation, ceil_mode, ties and NaN; output sizes and
// errors; lazy against eager.
#include <gtest/gtest.h>

#include <cmath>

#include "lazygen/factory.h"
#include "lazygen/generated/ops/isnan.h"
#include "lazygen/generated/ops/max_pool2d.h"
#include "lazygen/generated/ops/max_pool2d_backward.h"
#include "lazygen/generated/ops/max_pool2d_with_indices.h"
#include "lazygen/generated/ops/max_pool2d_with_indices_backward.h"
#include "ops/cpu/training_kernels.h"
#include "runtime/ops/training/training_reference.h"

namespace lazygen {
namespace {

using testing::expect_near_all;
using testing::PoolArgs;
using testing::values;

struct PoolCase {
  std::vector<int64_t> x;
  PoolArgs a;
  bool ceil_mode = false;
};

std::vector<PoolCase> cases() {
  return {
      {{2, 3, 6, 6}, {2, 2, 2, 2, 0, 0, 1, 1, 3, 3}},
      {{1, 2, 7, 5}, {3, 2, 2, 1, 1, 1, 1, 1, 4, 6}},
      {{2, 2, 8, 8}, {2, 2, 2, 2, 1, 0, 2, 2, 4, 3}},
      {{1, 1, 5, 5}, {2, 2, 2, 2, 0, 0, 1, 1, 3, 3}, true},  // ceil_mode adds a partial window
      {{3, 7, 7}, {3, 3, 2, 2, 1, 1, 1, 1, 4, 4}},           // unbatched [c, h, w]
      {{2, 64, 24, 24}, {2, 2, 2, 2, 0, 0, 1, 1, 12, 12}},   // the tutorial CNN's pool
      {{2, 3, 7, 9}, {2, 2, 2, 2, 0, 0, 1, 1, 3, 4}},         // 2x2 fast path, odd edges unread
  };
}

std::vector<int64_t> pair(int64_t a, int64_t b) {
  return {a, b};
}

int64_t planes(const std::vector<int64_t>& x) {
  return x.size() == 4 ? x[0] * x[1] : x[0];
}

TEST(MaxPool2d, MatchesAWindowScan) {
  Generator g(5);
  for (const PoolCase& c : cases()) {
    SCOPED_TRACE(sizes_str(c.x));
    const PoolArgs& a = c.a;
    Tensor x = randn(c.x, g);
    const auto ref = testing::naive_max_pool(values<double>(x), planes(c.x), c.x[c.x.size() - 2],
                                             c.x.back(), {}, a);
    auto [y, idx] = cpu::max_pool2d_with_indices(x, pair(a.kh, a.kw), pair(a.sh, a.sw),
                                                 pair(a.ph, a.pw), pair(a.dh, a.dw), c.ceil_mode);
    EXPECT_EQ(y.size(-2), a.oh);
    EXPECT_EQ(y.size(-1), a.ow);
    EXPECT_EQ(idx.dtype(), DType::Int64);
    expect_near_all(y, ref.y, 0);
    EXPECT_EQ(values<int64_t>(idx), ref.indices);
    expect_near_all(cpu::max_pool2d(x, pair(a.kh, a.kw), pair(a.sh, a.sw), pair(a.ph, a.pw),
                                    pair(a.dh, a.dw), c.ceil_mode),
                    ref.y, 0);
  }
}

TEST(MaxPool2d, BackwardOpsScatterToEachWindowsMaximum) {
  Generator g(6);
  for (const PoolCase& c : cases()) {
    SCOPED_TRACE(sizes_str(c.x));
    const PoolArgs& a = c.a;
    Tensor x = randn(c.x, g, DType::Float64);
    auto [y, idx] = cpu::max_pool2d_with_indices(x, pair(a.kh, a.kw), pair(a.sh, a.sw),
                                                 pair(a.ph, a.pw), pair(a.dh, a.dw), c.ceil_mode);
    Tensor dy = randn(y.sizes(), g, DType::Float64);
    const auto ref = testing::naive_max_pool(values<double>(x), planes(c.x), c.x[c.x.size() - 2],
                                             c.x.back(), values<double>(dy), a);
    expect_near_all(
        cpu::max_pool2d_with_indices_backward(dy, x, pair(a.kh, a.kw), pair(a.sh, a.sw),
                                              pair(a.ph, a.pw), pair(a.dh, a.dw), c.ceil_mode, idx),
        ref.dx, 1e-12);
    expect_near_all(cpu::max_pool2d_backward(dy, x, pair(a.kh, a.kw), pair(a.sh, a.sw),
                                             pair(a.ph, a.pw), pair(a.dh, a.dw), c.ceil_mode),
                    ref.dx, 1e-12);
  }
}

TEST(MaxPool2d, TakesTheFirstOfTiesAndPropagatesNaN) {
  Tensor x = tensor<float>({1, 3, 3, 0, NAN, 2, 5, 5, 1}, IntList{1, 3, 3});
  auto [y, idx] = cpu::max_pool2d_with_indices(x, {2}, {1}, {0}, {1}, false);
  // Windows: {1,3,0,nan} {3,3,nan,2} {0,nan,5,5} {nan,2,5,1}: NaN wins everywhere.
  EXPECT_EQ(values<int64_t>(idx), (std::vector<int64_t>{4, 4, 4, 4}));
  EXPECT_TRUE(std::isnan(values<float>(y)[0]));
  Tensor ties = tensor<float>({7, 7, 7, 7}, IntList{1, 2, 2});
  EXPECT_EQ(
      values<int64_t>(std::get<1>(cpu::max_pool2d_with_indices(ties, {2}, {}, {0}, {1}, false))),
      std::vector<int64_t>{0});
}

// The 2x2, stride-2 windows (a path of their own) follow the same rules.
TEST(MaxPool2d, TwoByTwoWindowsTakeTheFirstOfTiesTheLastNaNAndMinusInfinity) {
  const float inf = INFINITY;
  // Windows (row-major taps): {2,2,2,2} {-inf x4} {1,nan,nan,0} {nan,5,9,1}.
  Tensor x = tensor<float>({2, 2, -inf, -inf, 1, NAN, NAN, 5,  //
                            2, 2, -inf, -inf, NAN, 0, 9, 1},
                           IntList{1, 2, 8});
  auto [y, idx] = cpu::max_pool2d_with_indices(x, {2}, {2}, {0}, {1}, false);
  EXPECT_EQ(values<int64_t>(idx), (std::vector<int64_t>{0, 2, 12, 6}));
  const auto v = values<float>(y);
  EXPECT_EQ(v[0], 2.f);
  EXPECT_EQ(v[1], -inf);
  EXPECT_TRUE(std::isnan(v[2]));
  EXPECT_TRUE(std::isnan(v[3]));
}

TEST(MaxPool2d, RejectsBadArgumentsNamingTheOp) {
  Tensor x = zeros({1, 1, 4, 4});
  EXPECT_THROW(cpu::max_pool2d(zeros({4, 4}), {2}, {}, {0}, {1}, false), ShapeError);
  EXPECT_THROW(cpu::max_pool2d(x, {2}, {}, {2}, {1}, false), ShapeError);  // pad > kernel / 2
  EXPECT_THROW(cpu::max_pool2d(x, {5}, {}, {0}, {1}, false), ShapeError);  // empty output
  EXPECT_THROW(cpu::max_pool2d(x, {0}, {}, {0}, {1}, false), ShapeError);
  EXPECT_THROW(cpu::max_pool2d(x, {2, 2, 2}, {}, {0}, {1}, false), ShapeError);
  EXPECT_THROW(cpu::max_pool2d(x.to(DType::Int64), {2}, {}, {0}, {1}, false), ShapeError);
  Tensor dy = zeros({1, 1, 2, 2});
  EXPECT_THROW(cpu::max_pool2d_backward(zeros({1, 1, 3, 3}), x, {2}, {}, {0}, {1}, false),
               ShapeError);
  EXPECT_THROW(cpu::max_pool2d_with_indices_backward(dy, x, {2}, {}, {0}, {1}, false,
                                                     full({1, 1, 2, 2}, 99, DType::Int64)),
               std::out_of_range);
}

TEST(MaxPool2d, LazyMatchesEager) {
  Generator g(7);
  Tensor x = randn({2, 3, 9, 8}, g);
  testing::expect_lazy_matches_eager({x}, [](const std::vector<Tensor>& t) {
    return max_pool2d(t[0], {3, 2}, {2, 2}, {1, 0}, {1, 1}, true);
  });
  testing::expect_lazy_matches_eager({x}, [](const std::vector<Tensor>& t) {
    return std::get<1>(max_pool2d_with_indices(t[0], {2}, {}, {0}, {1}, false));
  });
  Tensor dy = randn({2, 3, 4, 4}, g);
  testing::expect_lazy_matches_eager({dy, x}, [](const std::vector<Tensor>& t) {
    return max_pool2d_backward(t[0], t[1], {2}, {}, {0}, {1}, false);
  });
  testing::expect_lazy_matches_eager({dy, x}, [](const std::vector<Tensor>& t) {
    Tensor idx = std::get<1>(max_pool2d_with_indices(t[1], {2}, {}, {0}, {1}, false));
    return max_pool2d_with_indices_backward(t[0], t[1], {2}, {}, {0}, {1}, false, idx);
  });
}

}  // namespace
}  // namespace lazygen
