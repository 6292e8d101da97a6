// Row bands (See Note [Row bands] in fusion/row_bands.h): which groups the planner
// bands together and over how many rows, and that a band computes bit for bit what its groups
// compute one after the other.
#include "fusion/row_bands.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/thread_pool.h"
#include "lazygen/composite.h"
#include "lazygen/generated/ops/_gelu_erf.h"
#include "lazygen/generated/ops/_gelu_erf_backward.h"
#include "lazygen/generated/ops/_log_softmax.h"
#include "lazygen/generated/ops/_log_softmax_backward_data.h"
#include "lazygen/generated/ops/_softmax.h"
#include "lazygen/generated/ops/_softmax_backward_data.h"
#include "lazygen/generated/ops/amax.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/silu.h"
#include "lazygen/generated/ops/silu_backward.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/metrics.h"
#include "runtime/fusion/fusion_test_util.h"

namespace lazygen::fusion {
namespace {

using lazygen::testing::bitwise_equal;
using Dims = std::vector<int64_t>;

class RowBandsTest : public lazygen::testing::PlanningTest {
 protected:
  void TearDown() override {
    set_row_bands_enabled(true);
    PlanningTest::TearDown();
  }
  // `program` on lazy copies of `inputs` with bands on, then off: the same bits, and on uses a
  // band.
  void expect_bands_change_no_bit(const lazygen::testing::Program& program,
                                  const std::vector<Tensor>& inputs) {
    const std::vector<Tensor> lazy = lazygen::testing::to_lazy(inputs);
    metrics::reset();
    const std::vector<Tensor> banded = program(lazy);
    sync(banded);
    wait_device_ops();  // sync launches; the counter is bumped when the band runs
    EXPECT_GE(metrics::counter_value("fusion.bands_run"), 1);
    set_row_bands_enabled(false);
    const std::vector<Tensor> plain = program(lazy);
    sync(plain);
    set_row_bands_enabled(true);
    const std::vector<Tensor> eager = program(inputs);
    ASSERT_EQ(banded.size(), plain.size());
    for (size_t k = 0; k < banded.size(); ++k) {
      EXPECT_TRUE(bitwise_equal(banded[k], plain[k])) << "output " << k;
      EXPECT_TRUE(lazygen::testing::close_to(banded[k], eager[k], 1e-5)) << "output " << k;
    }
    mark_step();
  }
};

Tensor norm(const Tensor& x, const Tensor& w, const Tensor& b) {
  return layer_norm(x, {x.size(-1)}, w, b);
}

// The example: layer_norm's forward reads x once per row block, not three times.
TEST_F(RowBandsTest, LayerNormPlansAsOneBandOfFourGroupsAndNoLoweredStep) {
  Tensor x = randn({4096, 1024}).to(kLazy), w = randn({1024}).to(kLazy),
         b = randn({1024}).to(kLazy);
  const FusionPlan p = plan({norm(x, w, b)});
  ASSERT_EQ(p.groups.size(), 4u);
  EXPECT_EQ(p.schedule.size(), 4u);  // the mean of x is a group too: no lowered step
  ASSERT_EQ(p.bands.size(), 1u);
  EXPECT_EQ(p.bands[0].first, 0u);
  EXPECT_EQ(p.bands[0].last, 3u);
  EXPECT_EQ(p.bands[0].rows, 4096);
  EXPECT_EQ(p.bands[0].rows_per_block, kBandBlockBytes / (1024 * 4));
  EXPECT_NE(dump_plan(*graph_, p).find("row band: the next 4 groups over 4096 rows"),
            std::string::npos)
      << dump_plan(*graph_, p);
}

// Backward: statistics, input gradient and the weight and bias gradients' sums over rows
// (Leading reductions, dealt out in their own row parts) all run in one band: no lowered step.
TEST_F(RowBandsTest, LayerNormBackwardIsOneBandWithItsSumsOverRows) {
  Tensor x = randn({2048, 512}).to(kLazy), w = randn({512}).to(kLazy), b = randn({512}).to(kLazy);
  Tensor g = randn({2048, 512}).to(kLazy);
  auto [y, mean, rstd] = native_layer_norm(x, {512}, w, b, 1e-5);
  auto [gx, gw, gb] = native_layer_norm_backward(g, x, {512}, mean, rstd, w, b, {true, true, true});
  const FusionPlan p = plan({gx, gw, gb});
  ASSERT_EQ(p.bands.size(), 1u) << dump_plan(*graph_, p);
  EXPECT_EQ(p.groups.size(), 7u) << dump_plan(*graph_, p);
  EXPECT_EQ(p.schedule.size(), 7u) << dump_plan(*graph_, p);
  EXPECT_EQ(p.bands[0].first, 0u);
  EXPECT_EQ(p.bands[0].last, 6u);
  EXPECT_EQ(p.bands[0].rows, 2048);
  int leading = 0;
  for (const Group& group : p.groups)
    leading += group.reduce_layout == ReduceLayout::Leading ? 1 : 0;
  EXPECT_EQ(leading, 2);  // the weight and bias gradients
}

TEST_F(RowBandsTest, LayerNormForwardAndBackwardGiveTheSameBitsWithBandsOnAndOff) {
  // Rows that leave a short last block, a leading dim folded into the rows, one thread and two.
  const int threads = cpu::num_threads();
  for (const std::vector<int64_t>& sizes : {std::vector<int64_t>{1000, 700}, {3, 333, 777}}) {
    cpu::set_num_threads(sizes.size() == 2 ? 1 : 2);
    const int64_t n = sizes.back();
    const std::vector<Tensor> in = {randn(sizes), randn({n}), randn({n}), randn(sizes)};
    expect_bands_change_no_bit(
        [&](const std::vector<Tensor>& t) {
          auto [y, mean, rstd] = native_layer_norm(t[0], {n}, t[1], t[2], 1e-5);
          auto [gx, gw, gb] = native_layer_norm_backward(t[3], t[0], {n}, mean, rstd, t[1], t[2],
                                                         {true, true, true});
          return std::vector<Tensor>{y, gx, gw, gb};
        },
        in);
  }
  cpu::set_num_threads(threads);
}

// A member that reads a band value through a reordering view (here a transpose) would read
// other rows than the block's: the band stops before it.
TEST_F(RowBandsTest, AReadOfOtherRowsEndsTheBand) {
  const Tensor cpu_x = randn({1024, 1024});
  auto program = [](const std::vector<Tensor>& t) {
    const Tensor centered = t[0] - mean(t[0], Dims{1}, true);
    return std::vector<Tensor>{centered.transpose(0, 1) * 2.0 + centered};
  };
  const std::vector<Tensor> outs = program({cpu_x.to(kLazy)});
  const FusionPlan p = plan(outs);
  ASSERT_EQ(p.bands.size(), 1u) << dump_plan(*graph_, p);
  EXPECT_EQ(p.bands[0].last, 1u) << dump_plan(*graph_, p);  // the mean and the centering
  ASSERT_GE(p.schedule.size(), 3u);
  mark_step();
  expect_bands_change_no_bit(program, {cpu_x});
}

TEST_F(RowBandsTest, SmallDataAndFullReductionsFormNoBand) {
  Tensor small = randn({64, 64}).to(kLazy), w = randn({64}).to(kLazy), b = randn({64}).to(kLazy);
  EXPECT_TRUE(plan({norm(small, w, b)}).bands.empty());
  mark_step();
  Tensor x = randn({2048, 512}).to(kLazy);
  const FusionPlan p = plan({sum(x * 2.0), (x - mean(x, Dims{1}, true)) * 3.0});
  for (const Band& band : p.bands) {
    for (uint32_t s = band.first; s <= band.last; ++s) {
      const Group& g = p.groups[p.schedule[s].index];
      const bool full =
          g.reduction != kNone && p.traits[g.reduction].reduced == std::vector<bool>{true, true};
      EXPECT_FALSE(full);
    }
  }
}

// Leading folds in a band add the row parts of their unbanded fold (fixed by the shape): the
// same bits on one thread and two, and as unbanded. A fold with one part (few rows, many
// columns) would leave the band one thread: it stays out.
TEST_F(RowBandsTest, LeadingReductionsInABandDoNotDependOnTheThreadCount) {
  const std::vector<Tensor> in = {randn({3000, 257}), randn({3000, 257})};
  auto program = [](const std::vector<Tensor>& t) {
    const Tensor centered = t[0] - mean(t[0], Dims{1}, true);
    return std::vector<Tensor>{sum(centered * t[1], Dims{0}), sum(t[1], Dims{0}), centered * 2.0};
  };
  const int threads = cpu::num_threads();
  std::vector<std::vector<Tensor>> runs;
  for (int n : {1, 2}) {
    cpu::set_num_threads(n);
    runs.push_back(program(lazygen::testing::to_lazy(in)));
    sync(runs.back());
    wait_device_ops();  // ran on n threads
  }
  cpu::set_num_threads(threads);
  const FusionPlan p = plan(program(lazygen::testing::to_lazy(in)));
  ASSERT_EQ(p.bands.size(), 1u) << dump_plan(*graph_, p);
  EXPECT_EQ(p.bands[0].last - p.bands[0].first + 1, p.schedule.size()) << dump_plan(*graph_, p);
  for (size_t k = 0; k < runs[0].size(); ++k)
    EXPECT_TRUE(bitwise_equal(runs[0][k], runs[1][k])) << k;
  mark_step();
  expect_bands_change_no_bit(program, in);
  const std::vector<Tensor> wide =
      lazygen::testing::to_lazy({randn({40, 9000}), randn({40, 9000})});
  const FusionPlan q = plan(program(wide));
  for (const Band& band : q.bands) {
    for (uint32_t s = band.first; s <= band.last; ++s) {
      EXPECT_NE(q.groups[q.schedule[s].index].reduce_layout, ReduceLayout::Leading)
          << dump_plan(*graph_, q);
    }
  }
}

// A new size specializes the plan (See Note [Specializing a fusion plan]); the band follows the
// new row count.
TEST_F(RowBandsTest, ANewRowCountSpecializesWithTheBandResized) {
  const Tensor w = randn({768}), b = randn({768});
  const Tensor lw = w.to(kLazy), lb = b.to(kLazy);
  for (int64_t rows : {2048, 1536}) {
    const Tensor x = randn({rows, 768});
    metrics::reset();
    Tensor y = norm(x.to(kLazy), lw, lb);
    sync({y});
    wait_device_ops();
    EXPECT_EQ(metrics::counter_value("fusion.bands_run"), 1) << rows;
    EXPECT_TRUE(lazygen::testing::close_to(y, norm(x, w, b), 1e-5)) << rows;
    if (rows == 1536) {
      EXPECT_EQ(metrics::counter_value("computation_cache.specialize"), 1);
    }
    mark_step();
  }
}

// The other row ops of a transformer: softmax and log_softmax, forward and backward, are one
// vectorized pass per row each (a library kernel, not a chain of groups), and gelu and silu with
// their backward ops are single groups.
TEST_F(RowBandsTest, SoftmaxAndActivationsPlanAsOneStepEach) {
  Tensor x = randn({512, 256}).to(kLazy), g = randn({512, 256}).to(kLazy);
  for (bool log : {false, true}) {
    const Tensor y = log ? _log_softmax(x, 1, false) : _softmax(x, 1, false);
    const Tensor gx = log ? _log_softmax_backward_data(g, y, 1, DType::Float32)
                          : _softmax_backward_data(g, y, 1, DType::Float32);
    const FusionPlan p = plan({y, gx});
    EXPECT_TRUE(p.groups.empty()) << dump_plan(*graph_, p);
    EXPECT_EQ(p.schedule.size(), 2u) << dump_plan(*graph_, p);
    mark_step();
  }
  const Tensor h = x * 0.5 + 1.0;
  const FusionPlan p =
      plan({_gelu_erf_backward(g, h) * silu_backward(g, h) + _gelu_erf(h) * silu(h)});
  EXPECT_EQ(p.groups.size(), 1u) << dump_plan(*graph_, p);
  EXPECT_EQ(p.schedule.size(), 1u) << dump_plan(*graph_, p);
}

TEST_F(RowBandsTest, ALoneReductionOfAnInputIsAGroupThatMatchesEager) {
  Tensor x = randn({512, 300});
  const Tensor lx = x.to(kLazy);
  const FusionPlan p = plan({amax(lx, Dims{1}), sum(lx, Dims{1})});
  EXPECT_EQ(p.groups.size(), 2u) << dump_plan(*graph_, p);
  for (const Group& g : p.groups) EXPECT_TRUE(g.members.empty());
  mark_step();
  lazygen::testing::expect_fused_matches_eager(
      [](const std::vector<Tensor>& t) {
        return std::vector<Tensor>{amax(t[0], Dims{1}), sum(t[0], Dims{1})};
      },
      {x}, 1e-6);
}

}  // namespace
}  // namespace lazygen::fusion
