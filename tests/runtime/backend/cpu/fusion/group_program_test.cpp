// Compiled groups (runtime/backend/cpu/fusion/group_program.h): the tile length each kind of
// group gets (See Note [Streaming groups]) and the register chains it finds (See Note [Register
// chains]).
#include "backend/cpu/fusion/group_program.h"

#include <gtest/gtest.h>

#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/sum.h"
#include "runtime/fusion/fusion_test_util.h"

namespace lazygen::cpu::fusion {
namespace {

using testing::FusionTest;
using Ts = std::vector<Tensor>;

// The first group of the graph behind `outs` (traced, not run), compiled.
GroupProgram first_group(const Ts& outs) {
  const exec::Graph graph = testing::graph_of(outs);
  return compile_group(graph, describe_group(graph, plan_fusion(graph), 0));
}

class GroupProgramTest : public FusionTest {};

TEST_F(GroupProgramTest, StreamingElementwiseGroupsInterpretLongerTilesThanAotKernelsRun) {
  Tensor big = randn({stream_bytes() / 4096, 1024}).to(kLazy);  // float32: streams
  const GroupProgram p = first_group({relu(big * 2.0) - 0.25});
  EXPECT_TRUE(p.prefetch);
  EXPECT_EQ(p.tile, 2 * kAotTile);
}

TEST_F(GroupProgramTest, ReducingAndCacheResidentGroupsKeepTheAotTile) {
  Tensor big = randn({stream_bytes() / 4096, 1024}).to(kLazy), small = randn({64, 64}).to(kLazy);
  const GroupProgram reducing = first_group({sum(relu(big * 2.0), std::vector<int64_t>{1})});
  EXPECT_TRUE(reducing.prefetch);
  EXPECT_TRUE(reducing.has_reduction);
  EXPECT_EQ(reducing.tile, kAotTile);  // folds round per tile: both paths must fold alike
  const GroupProgram resident = first_group({relu(small * 2.0) - 0.25});
  EXPECT_FALSE(resident.prefetch);
  EXPECT_EQ(resident.tile, kAotTile);
}

// [first, end) of each register chain of `p`.
std::vector<std::pair<int, int>> chains_of(const GroupProgram& p) {
  std::vector<std::pair<int, int>> chains;
  for (size_t k = 0; k < p.ops.size(); ++k) {
    if (p.ops[k].chain_end != 0) chains.emplace_back(static_cast<int>(k), p.ops[k].chain_end);
  }
  return chains;
}

using Chains = std::vector<std::pair<int, int>>;

TEST_F(GroupProgramTest, AChainOfPointwiseOpsIsOneRegisterChain) {
  Tensor x = randn({1000}).to(kLazy), y = randn({1000}).to(kLazy);
  const GroupProgram p = first_group({y - relu(x * 2.0 + y)});
  ASSERT_EQ(p.ops.size(), 4u);
  EXPECT_EQ(chains_of(p), (Chains{{0, 4}}));
  EXPECT_NE(p.chain, nullptr);
  EXPECT_EQ(p.ops[0].chain_slot, 0);
  EXPECT_EQ(p.ops[3].chain_slot, 1);  // y - (...): the chain value is the second operand
  EXPECT_TRUE(p.ops[0].chain_value_dead);
}

TEST_F(GroupProgramTest, OutputsValuesReadTwiceAndOpsThatLeaveTheVectorEndChains) {
  Tensor x = randn({1000}).to(kLazy);
  const Tensor a = x * 2.0 + 1.0;  // an output: stored, so the chain ends at it
  EXPECT_EQ(chains_of(first_group({a, relu(a) - 1.0})), (Chains{{0, 2}, {2, 4}}));
  const Tensor b = x + 1.0;  // read twice by b * b
  EXPECT_EQ(chains_of(first_group({b * b - 2.0})), (Chains{{1, 3}}));
  EXPECT_EQ(chains_of(first_group({exp(x * 2.0 + 1.0) * 3.0 - 1.0})), (Chains{{0, 2}, {3, 5}}));
}

TEST_F(GroupProgramTest, AChainWhoseValueIsReadLaterIsNotDead) {
  Tensor x = randn({1000}).to(kLazy);
  const Tensor a = relu(x * 2.0);
  const GroupProgram p = first_group({a, a + x});
  EXPECT_EQ(chains_of(p), (Chains{{0, 2}}));
  EXPECT_FALSE(p.ops[0].chain_value_dead);
}

TEST_F(GroupProgramTest, IntegerGroupsHaveNoChains) {
  Tensor x = randint(0, 9, {1000}).to(kLazy);
  const GroupProgram p = first_group({(x * 2 + 1) - 3});
  EXPECT_TRUE(chains_of(p).empty());
  EXPECT_EQ(p.chain, nullptr);
}

}  // namespace
}  // namespace lazygen::cpu::fusion
