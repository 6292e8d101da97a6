// Compiled groups (runtime/backend/cpu/fusion/group_program.h): the tile length each kind of
// group gets (See Note [Streaming groups]).
#include "backend/cpu/fusion/group_program.h"

#include <gtest/gtest.h>

#include "fusion_test_util.h"

namespace lazygen::cpu::fusion {
namespace {

using testing::FusionTest;
using Ts = std::vector<Tensor>;

// The first group of the graph behind `outs` (traced, not run), compiled.
GroupProgram first_group(const Ts& outs) {
  const exec::Graph graph = testing::graph_of(outs);
  return compile_group(graph, plan_fusion(graph), 0);
}

class GroupProgramTest : public FusionTest {};

TEST_F(GroupProgramTest, StreamingElementwiseGroupsInterpretLongerTilesThanAotKernelsRun) {
  Tensor big = randn({2048, 1024}).to(kLazy);  // 8 MiB: streams
  const GroupProgram p = first_group({relu(big * 2.0) - 0.25});
  EXPECT_TRUE(p.prefetch);
  EXPECT_EQ(p.tile, 2 * kAotTile);
}

TEST_F(GroupProgramTest, ReducingAndCacheResidentGroupsKeepTheAotTile) {
  Tensor big = randn({2048, 1024}).to(kLazy), small = randn({64, 64}).to(kLazy);
  const GroupProgram reducing = first_group({sum(relu(big * 2.0), std::vector<int64_t>{1})});
  EXPECT_TRUE(reducing.prefetch);
  EXPECT_TRUE(reducing.has_reduction);
  EXPECT_EQ(reducing.tile, kAotTile);  // folds round per tile: both paths must fold alike
  const GroupProgram resident = first_group({relu(small * 2.0) - 0.25});
  EXPECT_FALSE(resident.prefetch);
  EXPECT_EQ(resident.tile, kAotTile);
}

}  // namespace
}  // namespace lazygen::cpu::fusion
