// Dynamic shapes on the fused backend (Note [Dynamic shapes] in backend/graph.h, Note
// [Specializing a fusion plan] in specialize.h): a new size of a graph's structure reuses the
// structure's fusion plan; results equal eager at every size.
#include "fusion/specialize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "exec/graph_executor.h"
#include "lazygen/generated/ops/add_.h"
#include "lazygen/generated/ops/isnan.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/mm.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/slice.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/generated/ops/tanh.h"
#include "lazygen/generated/ops/transpose.h"
#include "lazygen/generated/ops/view.h"
#include "lazygen/generated/ops/zero_.h"
#include "runtime/fusion/fusion_test_util.h"

namespace lazygen::fusion {
namespace {

using lazygen::testing::close_to;
using lazygen::testing::graph_of;
using Ts = std::vector<Tensor>;

class SpecializeTest : public lazygen::testing::FusionTest {
 protected:
  void SetUp() override {
    FusionTest::SetUp();
    exec::GraphExecutor::global().clear_cache();
  }
  void TearDown() override {
    exec::GraphExecutor::global().set_dynamic(true);
    FusionTest::TearDown();
  }
  struct Counts {
    int64_t compiles, specializations, hits, groups;
  };
  static Counts counts() {
    return {metrics::counter_value("computation_cache.miss"),
            metrics::counter_value("computation_cache.specialize"),
            metrics::counter_value("computation_cache.hit"),
            metrics::counter_value("fusion.groups")};
  }
};

// A layer's forward and a few reductions over a [batch, 6, 4] input: a view to [batch, 24], a
// library mm, a broadcast bias, pointwise chains, a trailing and a leading reduction.
Ts layer(const Ts& in) {
  const Tensor x = in[0].view({in[0].size(0), 24});
  const Tensor h = relu(mm(x, in[1]) + in[2]) * 0.5;
  return {h, sum(h * h, std::vector<int64_t>{1}), sum(tanh(h), std::vector<int64_t>{0}),
          mean(x, std::vector<int64_t>{0, 1})};
}

Ts run_layer(int64_t batch, Device device, uint64_t seed) {
  Generator gen(seed);
  Ts in = {randn({batch, 6, 4}, gen), randn({24, 8}, gen), randn({8}, gen)};
  for (Tensor& t : in) t = t.to(device);
  Ts out = layer(in);
  if (device.is_lazy()) mark_step();
  return out;
}

void expect_layer_matches_eager(int64_t batch, uint64_t seed) {
  const Ts eager = run_layer(batch, kCPU, seed), lazy = run_layer(batch, kLazy, seed);
  for (size_t i = 0; i < eager.size(); ++i) {
    if (lazy[i].numel() == 1 && std::isnan(lazy[i].cpu().item<float>())) {  // mean of nothing
      EXPECT_TRUE(std::isnan(eager[i].item<float>()));
      continue;
    }
    EXPECT_TRUE(close_to(lazy[i], eager[i], 1e-5)) << "batch " << batch << ", output " << i;
  }
}

TEST_F(SpecializeTest, NewBatchSizesReuseThePlanAndMatchEager) {
  const Counts before = counts();
  for (int64_t batch : {32, 64, 32, 17, 1, 64, 200}) expect_layer_matches_eager(batch, 7 + batch);
  const Counts after = counts();
  EXPECT_EQ(after.compiles - before.compiles, 1);
  EXPECT_EQ(after.specializations - before.specializations, 4);  // 64, 17, 1, 200
  EXPECT_EQ(after.hits - before.hits, 2);                        // 32 and 64 again
  const Counts planned = counts();
  expect_layer_matches_eager(3, 1);
  EXPECT_EQ(counts().groups, planned.groups);  // a specialization plans nothing
}

// PyTorch's zero_grad() then backward: each gradient is zeroed in place and accumulated into,
// so the group owning zero_ loses its only member to the add_ that recomputes it. The plan
// keeps that group off its schedule, and a new batch size specializes the plan (it compiled every
// size while the rebind refused the empty group).
TEST_F(SpecializeTest, AGradientZeroedThenAccumulatedSpecializes) {
  Tensor grad = zeros({4, 3}).to(kLazy), grad_cpu = zeros({4, 3});
  mark_step();
  const Counts before = counts();
  for (int64_t batch : {5, 7, 9, 2}) {
    Generator gen(static_cast<uint64_t>(batch));
    const Tensor x = randn({batch, 4}, gen), y = randn({batch, 3}, gen);
    add_(zero_(grad), mm(t(x.to(kLazy)), y.to(kLazy)));
    add_(zero_(grad_cpu), mm(t(x), y));
    const FusionPlan plan = plan_fusion(graph_of({grad}));
    EXPECT_EQ(std::count_if(plan.schedule.begin(), plan.schedule.end(),
                            [&](const Step& s) {
                              return s.kind == Step::Kind::Group && !runs(plan.groups[s.index]);
                            }),
              0);
    mark_step();
    EXPECT_TRUE(close_to(grad, grad_cpu, 1e-5)) << "batch " << batch;
  }
  const Counts after = counts();
  EXPECT_EQ(after.compiles - before.compiles, 1);
  EXPECT_EQ(after.specializations - before.specializations, 3);
}

TEST_F(SpecializeTest, ABatchOfOneOrEqualToAnotherDimSpecializes) {
  const Counts before = counts();
  expect_layer_matches_eager(8, 1);   // the batch equals the layer's 8 features
  expect_layer_matches_eager(24, 2);  // ... its 24 inputs
  expect_layer_matches_eager(1, 3);   // size-1 dims everywhere
  expect_layer_matches_eager(5, 4);
  const Counts after = counts();
  EXPECT_EQ(after.compiles - before.compiles, 1);
  EXPECT_EQ(after.specializations - before.specializations, 3);
}

TEST_F(SpecializeTest, APlanMadeForABatchOfOneServesItAndTheFirstLargerOneCompiles) {
  const Counts before = counts();
  expect_layer_matches_eager(1, 1);  // sum(0) of [1, 8] folds as a trailing reduction here
  expect_layer_matches_eager(6, 2);  // ... and does not at 6: compiles; both plans are kept
  expect_layer_matches_eager(9, 3);  // from the batch-6 plan
  expect_layer_matches_eager(1, 4);  // seen: a hit
  const Counts after = counts();
  EXPECT_EQ(after.compiles - before.compiles, 2);
  EXPECT_EQ(after.specializations - before.specializations, 1);
}

TEST_F(SpecializeTest, AnEmptyBatchCompilesApart) {
  const Counts before = counts();
  expect_layer_matches_eager(4, 1);
  expect_layer_matches_eager(0, 2);  // empty reductions run eagerly: another plan
  expect_layer_matches_eager(6, 3);  // from the batch-4 plan, still the structure's
  const Counts after = counts();
  EXPECT_EQ(after.compiles - before.compiles, 2);
  EXPECT_EQ(after.specializations - before.specializations, 1);
}

TEST_F(SpecializeTest, AViewThatNoLongerResolvesFailsTheRebind) {
  // view(-1) of a transpose is an index map while a dim is 1, and no view at all otherwise.
  auto graph = [](int64_t n) {
    const Tensor x = randn({3, n}).to(kLazy);
    return graph_of({view(transpose(x, 0, 1), {-1}) * 2.0});
  };
  const exec::Graph one = graph(1), many = graph(4);
  const FusionPlan plan = plan_fusion(one);
  EXPECT_TRUE(rebind_plan(plan, graph(1)).has_value());
  EXPECT_FALSE(rebind_plan(plan, many).has_value());
  mark_step();
}

TEST_F(SpecializeTest, ShapeErrorsStillRaiseAtTheCallWithConcreteSizes) {
  expect_layer_matches_eager(16, 1);  // the structure is compiled
  const Tensor x = randn({9, 6, 4}).to(kLazy), w = randn({25, 8}).to(kLazy),
               b = randn({8}).to(kLazy);
  try {
    layer({x, w, b});
    ADD_FAILURE() << "mm of [9, 24] and [25, 8] traced";
  } catch (const ShapeError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("mm"), std::string::npos) << message;
    EXPECT_NE(message.find("9x24 and 25x8"), std::string::npos) << message;  // PyTorch's words
  }
  mark_step();
}

TEST_F(SpecializeTest, WithDynamicShapesOffEverySizeCompiles) {
  exec::GraphExecutor::global().set_dynamic(false);
  const Counts before = counts();
  for (int64_t batch : {5, 6, 7}) expect_layer_matches_eager(batch, 1);
  const Counts after = counts();
  EXPECT_EQ(after.compiles - before.compiles, 3);
  EXPECT_EQ(after.specializations, before.specializations);
}

TEST_F(SpecializeTest, SizeClassesKeepZerosAndNodeKinds) {
  auto graph = [](std::vector<int64_t> a, bool sub) {
    const Tensor x = randn(a).to(kLazy), y = randn(a).to(kLazy);
    return graph_of({sub ? relu(x) - y : relu(x) + y});
  };
  const SizeClasses classes(graph({4, 3}, false));
  EXPECT_TRUE(classes.admits(graph({9, 5}, false)));
  EXPECT_TRUE(classes.admits(graph({1, 1}, false)));
  EXPECT_FALSE(classes.admits(graph({0, 5}, false)));  // empty: the plan differs
  EXPECT_FALSE(classes.admits(graph({4, 3}, true)));   // another op
  mark_step();
}

TEST_F(SpecializeTest, AGroupOverItsInputBudgetFailsTheRebind) {
  // Sixteen slices of one input at offsets that coincide at one size and part at another.
  auto graph = [](int64_t n) {
    const Tensor x = randn({n, 2}).to(kLazy);
    Tensor acc = zeros({1, 2}).to(kLazy);
    for (int64_t i = 0; i < 17; ++i) acc = acc + slice(x, 0, i % n, i % n + 1);
    return graph_of({acc});
  };
  const exec::Graph small = graph(1), large = graph(17);
  const FusionPlan plan = plan_fusion(small);
  ASSERT_EQ(plan.groups.size(), 1u);  // every slice of one row is the same input
  EXPECT_FALSE(rebind_plan(plan, large).has_value());
  mark_step();
}

}  // namespace
}  // namespace lazygen::fusion
