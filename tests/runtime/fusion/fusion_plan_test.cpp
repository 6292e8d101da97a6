// The fusion planner on graphs traced from real ops: which nodes form groups, why each group
// ends, what is materialized or recomputed, and that views are index maps rather than copies.
#include "fusion/fusion_plan.h"

#include <gtest/gtest.h>

#include "lazygen/generated/ops/amax.h"
#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/mm.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/slice.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/generated/ops/where.h"
#include "runtime/fusion/fusion_test_util.h"

namespace lazygen::fusion {
namespace {

class FusionPlanTest : public lazygen::testing::PlanningTest {
 protected:
  std::vector<std::string> ops(const std::vector<uint32_t>& nodes) const {
    std::vector<std::string> names;
    for (uint32_t n : nodes) names.push_back(ir::op_kind_name(graph_->node(n).op()));
    return names;
  }
  std::vector<EndReason> ends(const FusionPlan& p) const {
    std::vector<EndReason> r;
    for (const Group& g : p.groups) r.push_back(g.end);
    return r;
  }
  size_t lowered(const FusionPlan& p) const {
    return static_cast<size_t>(
        std::count_if(p.schedule.begin(), p.schedule.end(),
                      [](const Step& s) { return s.kind == Step::Kind::Lower; }));
  }
  uint32_t position_of(const Tensor& t) const {
    const ir::Node* n = lazy::lazy_state(t).value.node.get();
    for (uint32_t i = 0; i < graph_->nodes().size(); ++i) {
      if (&graph_->node(i) == n) return i;
    }
    return kNone;
  }
};

using Strings = std::vector<std::string>;

TEST_F(FusionPlanTest, AChainOfPointwiseOpsIsOneGroupStoringOnlyItsResult) {
  Tensor x = randn({64}).to(kLazy);
  Tensor a = x * 2.0, b = a + 1.0, c = relu(b), y = c - 0.5;
  FusionPlan p = plan({y});
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(ops(p.groups[0].members), (Strings{"mul.Scalar", "add.Scalar", "relu", "sub.Scalar"}));
  EXPECT_EQ(ends(p), std::vector<EndReason>{EndReason::EndOfGraph});
  EXPECT_EQ(lowered(p), 0u);
  EXPECT_EQ(p.storage[position_of(a)], Materialization::None);
  EXPECT_EQ(p.storage[position_of(c)], Materialization::None);
  EXPECT_EQ(p.storage[position_of(y)], Materialization::Tensor);
}

TEST_F(FusionPlanTest, SeveralMembersMayBeOutputs) {
  Tensor x = randn({8}).to(kLazy);
  Tensor a = x * 2.0, b = exp(a);
  FusionPlan p = plan({a, b});
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.storage[position_of(a)], Materialization::Tensor);
  EXPECT_EQ(p.storage[position_of(b)], Materialization::Tensor);
}

TEST_F(FusionPlanTest, ALastDimReductionIsFoldedAsTheLastStep) {
  Tensor x = randn({8, 16}).to(kLazy), y = randn({16}).to(kLazy);
  Tensor s = sum(exp(x) * y, std::vector<int64_t>{1});
  FusionPlan p = plan({s});
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(ops(p.groups[0].members), (Strings{"exp", "mul.Tensor"}));
  EXPECT_EQ(ops({p.groups[0].reduction}), Strings{"sum.dim_IntList"});
  EXPECT_EQ(ends(p), std::vector<EndReason>{EndReason::Reduction});
  EXPECT_EQ(p.storage[position_of(s)], Materialization::Tensor);
}

TEST_F(FusionPlanTest, AFullReductionIsFolded) {
  Tensor x = randn({8, 16}).to(kLazy);
  FusionPlan p = plan({amax(x * x)});
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(ops({p.groups[0].reduction}), Strings{"amax"});
}

// See Note [Folded reduction layouts].
TEST_F(FusionPlanTest, AReductionOverLeadingDimsIsFoldedWithItsOwnEndReason) {
  Tensor x = randn({8, 16}).to(kLazy), b = randn({16}).to(kLazy);
  Tensor s = sum(relu(x + b), std::vector<int64_t>{0});  // a bias gradient's shape
  FusionPlan p = plan({s});
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(ops(p.groups[0].members), (Strings{"add.Tensor", "relu"}));
  EXPECT_EQ(ops({p.groups[0].reduction}), Strings{"sum.dim_IntList"});
  EXPECT_EQ(p.groups[0].reduce_layout, ReduceLayout::Leading);
  EXPECT_EQ(ends(p), std::vector<EndReason>{EndReason::LeadingReduction});
  EXPECT_EQ(lowered(p), 0u);
  EXPECT_EQ(p.storage[position_of(s)], Materialization::Tensor);
  const std::string dump = dump_plan(*graph_, p);
  EXPECT_NE(dump.find("ended by leading_reduction"), std::string::npos) << dump;
  EXPECT_NE(dump.find("[reduction over leading dims]  -> tensor"), std::string::npos) << dump;
}

TEST_F(FusionPlanTest, LeadingDimsFoldWithKeepdimAndAroundSizeOneDims) {
  Tensor x = randn({4, 1, 3, 5}).to(kLazy);
  Tensor a = x * 2.0;
  for (const Tensor& r : {mean(a, std::vector<int64_t>{0, 2}, true),
                          sum(a, std::vector<int64_t>{0, 1, 2}), amax(a, {0}, false)}) {
    FusionPlan p = plan({r});
    ASSERT_EQ(p.groups.size(), 1u);
    EXPECT_EQ(ends(p), std::vector<EndReason>{EndReason::LeadingReduction});
  }
  // Only size-1 dims kept, or only size-1 dims reduced: a full or trailing reduction.
  EXPECT_EQ(ends(plan({sum(a, std::vector<int64_t>{0, 2, 3})})),
            std::vector<EndReason>{EndReason::Reduction});
  EXPECT_EQ(ends(plan({sum(a, std::vector<int64_t>{1})})),
            std::vector<EndReason>{EndReason::Reduction});
}

// See Note [Late folds]: a linear layer's backward, then an update reading its weight gradient.
TEST_F(FusionPlanTest, AReductionOfAnEndedGroupsMemberJoinsThatGroup) {
  Tensor g = randn({8, 16}).to(kLazy), h = randn({8, 16}).to(kLazy), x = randn({8, 4}).to(kLazy);
  Tensor d = relu(g * h);                      // relu's backward, say
  Tensor w = mm(t(x), d) * 0.5;                // a weight gradient, then its update
  Tensor b = sum(d, std::vector<int64_t>{0});  // the bias gradient comes last
  FusionPlan p = plan({w, b});
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(ends(p)[0], EndReason::LibraryConsumer);
  EXPECT_EQ(p.groups[0].reduction, position_of(b));
  EXPECT_EQ(p.groups[0].reduce_layout, ReduceLayout::Leading);
  EXPECT_TRUE(p.groups[0].late_fold);
  EXPECT_EQ(p.storage[position_of(d)], Materialization::Tensor);  // the mm reads it
  EXPECT_EQ(lowered(p), 2u);                                      // t(x) and the mm
  const std::string dump = dump_plan(*graph_, p);
  EXPECT_NE(dump.find("[reduction over leading dims, folded late]"), std::string::npos) << dump;
}

TEST_F(FusionPlanTest, ALateFoldLeavesGroupsStoringGraphOutputsAlone) {
  Tensor x = randn({8, 16}).to(kLazy), w = randn({16, 16}).to(kLazy);
  Tensor a = x * 2.0;
  Tensor m = mm(a, w);  // ends a's group
  FusionPlan p = plan({a, m, sum(a, std::vector<int64_t>{0})});
  EXPECT_EQ(p.groups[0].reduction, kNone);
  EXPECT_EQ(lowered(p), 2u);  // the mm and the sum
}

TEST_F(FusionPlanTest, AReductionKeepingAMiddleDimRunsAloneAfterTheGroup) {
  Tensor x = randn({2, 4, 3, 3}).to(kLazy);  // a conv bias gradient: [N, C, H, W] -> [C]
  Tensor a = x * 2.0;
  FusionPlan p = plan({sum(a, std::vector<int64_t>{0, 2, 3})});
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0].reduction, kNone);
  EXPECT_EQ(ends(p), std::vector<EndReason>{EndReason::LibraryConsumer});
  ASSERT_EQ(p.schedule.size(), 2u);
  EXPECT_EQ(p.schedule[1].kind, Step::Kind::Lower);
  EXPECT_EQ(p.storage[position_of(a)], Materialization::Tensor);
}

TEST_F(FusionPlanTest, ADTypeChangeEndsAGroup) {
  Tensor x = randn({64}).to(kLazy), d = randn({64}, DType::Float64).to(kLazy);
  Tensor a = x * 2.0;
  Tensor b = (a + d) * 3.0;  // float64
  FusionPlan p = plan({b});
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(ends(p), (std::vector<EndReason>{EndReason::DTypeChange, EndReason::EndOfGraph}));
  EXPECT_EQ(p.groups[1].dtype, DType::Float64);
  EXPECT_EQ(p.storage[position_of(a)], Materialization::Arena);  // only a group reads it
}

TEST_F(FusionPlanTest, AShapeChangeEndsAGroupAndTheNextReadsItsResultBroadcast) {
  Tensor x = randn({4, 8}).to(kLazy), z = randn({3, 4, 8}).to(kLazy);
  Tensor a = exp(x);
  Tensor c = a * z;
  FusionPlan p = plan({c});
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(ends(p)[0], EndReason::ShapeChange);
  const Group& second = p.groups[1];
  ASSERT_EQ(second.inputs.size(), 2u);
  EXPECT_EQ(broadcast_strides(second.inputs[0].layout, second.sizes),
            (std::vector<int64_t>{0, 8, 1}));
}

TEST_F(FusionPlanTest, ALibraryConsumerEndsAGroupAndItsInputBecomesATensor) {
  Tensor x = randn({4, 4}).to(kLazy), w = randn({4, 4}).to(kLazy);
  Tensor a = x * 2.0;
  Tensor m = mm(a, w);
  Tensor r = relu(m);
  FusionPlan p = plan({r});
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(ends(p)[0], EndReason::LibraryConsumer);
  ASSERT_EQ(p.schedule.size(), 3u);
  EXPECT_EQ(p.schedule[1].kind, Step::Kind::Lower);
  EXPECT_EQ(ops({p.schedule[1].index}), Strings{"mm"});
  EXPECT_EQ(p.storage[position_of(a)], Materialization::Tensor);
}

TEST_F(FusionPlanTest, ViewsOfInputsAreIndexMapsNotCopies) {
  Tensor x = randn({4, 8}).to(kLazy), row = randn({16}).to(kLazy);
  Tensor y = t(x) * 2.0 + slice(row, 0, 0, 16, 2).unsqueeze(1);
  FusionPlan p = plan({y});
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(lowered(p), 0u);
  const Group& g = p.groups[0];
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(broadcast_strides(g.inputs[0].layout, g.sizes), (std::vector<int64_t>{1, 8}));
  EXPECT_EQ(broadcast_strides(g.inputs[1].layout, g.sizes), (std::vector<int64_t>{2, 0}));
}

TEST_F(FusionPlanTest, AViewNeededAsATensorIsLoweredAndAliases) {
  Tensor x = randn({4, 8}).to(kLazy), w = randn({4, 3}).to(kLazy);
  Tensor m = mm(t(x * 2.0), w);
  FusionPlan p = plan({m});
  ASSERT_EQ(p.schedule.size(), 3u);  // group, t, mm
  EXPECT_EQ(ops({p.schedule[1].index}), Strings{"t"});
}

TEST_F(FusionPlanTest, AReorderingViewOfAMemberEndsTheGroup) {
  Tensor x = randn({4, 4}).to(kLazy);
  Tensor a = x * 2.0;
  Tensor b = t(a) + x;
  FusionPlan p = plan({b});
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(ends(p)[0], EndReason::ViewOfGroupValue);
  EXPECT_EQ(p.storage[position_of(a)], Materialization::Arena);
  EXPECT_EQ(lowered(p), 0u);
}

TEST_F(FusionPlanTest, TheNodeBudgetEndsGroups) {
  Tensor v = randn({16}).to(kLazy);
  for (int i = 0; i < 10; ++i) v = relu(v);
  Budgets b;
  b.max_nodes = 4;
  FusionPlan p = plan({v}, b);
  EXPECT_EQ(ends(p), (std::vector<EndReason>{EndReason::NodeBudget, EndReason::NodeBudget,
                                             EndReason::EndOfGraph}));
  EXPECT_EQ(p.groups[2].members.size(), 2u);
}

TEST_F(FusionPlanTest, TheScalarAndInputBudgetsEndGroups) {
  Tensor v = randn({16}).to(kLazy);
  for (int i = 0; i < 4; ++i) v = v * 1.5;  // one scalar each
  Budgets b;
  b.max_scalars = 3;
  EXPECT_EQ(ends(plan({v}, b))[0], EndReason::ScalarBudget);
  mark_step();
  std::vector<Tensor> xs;
  for (int i = 0; i < 4; ++i) xs.push_back(randn({16}).to(kLazy));
  Tensor s = xs[0] * xs[1] * xs[2] * xs[3];
  Budgets two;
  two.max_inputs = 2;
  FusionPlan p = plan({s}, two);
  EXPECT_EQ(ends(p)[0], EndReason::InputBudget);
  for (const Group& g : p.groups) EXPECT_LE(g.inputs.size(), 2u);
}

TEST_F(FusionPlanTest, ACheapNodeReadByALaterGroupIsRecomputedNotStored) {
  Tensor x = randn({8, 16}).to(kLazy);
  Tensor a = x * 2.0;
  Tensor m = amax(a, {1}, true);
  Tensor y = exp(a - m);  // softmax's numerator: a is read again after the reduction
  FusionPlan p = plan({y});
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(ends(p)[0], EndReason::Reduction);
  EXPECT_EQ(ops(p.groups[1].recomputed), Strings{"mul.Scalar"});
  EXPECT_EQ(p.storage[position_of(a)], Materialization::None);
  EXPECT_NE(dump_plan(*graph_, p).find("(recomputed)"), std::string::npos);
}

TEST_F(FusionPlanTest, AnExpensiveNodeReadByALaterGroupIsStored) {
  Tensor x = randn({8, 16}).to(kLazy);
  Tensor a = exp(x);
  Tensor s = sum(a, std::vector<int64_t>{1}, true);
  Tensor y = a / s;
  FusionPlan p = plan({y});
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_TRUE(p.groups[1].recomputed.empty());
  EXPECT_EQ(p.storage[position_of(a)], Materialization::Arena);
}

TEST_F(FusionPlanTest, ComparisonsJoinTheGroupOfTheirOperands) {
  Tensor x = randn({32}).to(kLazy);
  Tensor y = where(x * 2.0 > 0.5, x, x * 3.0);
  FusionPlan p = plan({y});
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(ops(p.groups[0].members),
            (Strings{"mul.Scalar", "gt.Scalar", "mul.Scalar", "where.self"}));
}

TEST_F(FusionPlanTest, TheDumpShowsStepsMembersInputsAndEndReasons) {
  Tensor x = randn({4, 4}).to(kLazy), w = randn({4, 4}).to(kLazy);
  Tensor m = mm(relu(x), w);
  FusionPlan p = plan({m * 2.0});
  const std::string dump = dump_plan(*graph_, p);
  EXPECT_NE(dump.find("fusion plan: 2 groups, 1 lowered steps"), std::string::npos) << dump;
  EXPECT_NE(dump.find("group 0: float32[4, 4], 1 nodes, ended by library_consumer"),
            std::string::npos)
      << dump;
  EXPECT_NE(dump.find("= relu(%0)  -> tensor"), std::string::npos) << dump;
  EXPECT_NE(dump.find("lower %"), std::string::npos) << dump;
  EXPECT_NE(dump.find("reads %0 in place"), std::string::npos) << dump;
  EXPECT_NE(fusion_plan_dump({m}).find("ended by library_consumer"), std::string::npos);
}

TEST_F(FusionPlanTest, CompilingCountsLeadingReductionsAndLateFoldsApart) {
  const int64_t leading = metrics::counter_value("fusion.end.leading_reduction");
  const int64_t trailing = metrics::counter_value("fusion.end.reduction");
  const int64_t late = metrics::counter_value("fusion.late_folds");
  Tensor x = randn({8, 16}).to(kLazy), w = randn({16, 4}).to(kLazy);
  Tensor s, m, r;
  {  // a and e die here: graph outputs would keep a late fold out of e's group
    Tensor a = x * 2.0, e = exp(x);
    s = sum(a, std::vector<int64_t>{0});
    m = mm(e, w);                         // ends e's group
    r = sum(e, std::vector<int64_t>{1});  // joins it late
  }
  mark_step();
  EXPECT_EQ(metrics::counter_value("fusion.end.leading_reduction"), leading + 1);
  EXPECT_EQ(metrics::counter_value("fusion.end.reduction"), trailing);
  EXPECT_EQ(metrics::counter_value("fusion.late_folds"), late + 1);
}

TEST_F(FusionPlanTest, CompilingRecordsGroupMetrics) {
  const int64_t groups = metrics::counter_value("fusion.groups");
  const int64_t reductions = metrics::counter_value("fusion.end.reduction");
  Tensor x = randn({8, 16}).to(kLazy);
  Tensor s = sum(x * 2.0, std::vector<int64_t>{1});
  mark_step();
  EXPECT_EQ(metrics::counter_value("fusion.groups"), groups + 1);
  EXPECT_EQ(metrics::counter_value("fusion.end.reduction"), reductions + 1);
  EXPECT_GE(metrics::counter_value("fusion.group_nodes"), 2);
  EXPECT_NE(metrics_report().find("fusion.end.reduction"), std::string::npos);
}

}  // namespace
}  // namespace lazygen::fusion
