// The arena placement of intermediate buffers and the index-map helpers it works with.
#include "fusion/memory_plan.h"

#include <gtest/gtest.h>

#include "fusion/index_map.h"

namespace lazygen::fusion {
namespace {

TEST(MemoryPlan, BuffersWithDisjointLifetimesShareBytes) {
  // a: steps 0-1, b: steps 1-2 (overlaps a), c: steps 2-3 (overlaps b only).
  MemoryPlan p = plan_memory({{1000, 0, 1}, {1000, 1, 2}, {1000, 2, 3}});
  EXPECT_EQ(p.offsets[0], p.offsets[2]);
  EXPECT_NE(p.offsets[0], p.offsets[1]);
  EXPECT_EQ(p.arena_bytes, 2 * 1024);  // 64-byte aligned
}

TEST(MemoryPlan, OverlappingLifetimesNeverOverlapInMemory) {
  std::vector<BufferRequest> requests;
  for (uint32_t i = 0; i < 20; ++i) requests.push_back({64 * (1 + i % 5), i % 7, i % 7 + i % 3});
  MemoryPlan p = plan_memory(requests);
  for (size_t a = 0; a < requests.size(); ++a) {
    for (size_t b = a + 1; b < requests.size(); ++b) {
      const bool live_together = requests[a].first_step <= requests[b].last_step &&
                                 requests[b].first_step <= requests[a].last_step;
      const bool share = p.offsets[a] < p.offsets[b] + requests[b].bytes &&
                         p.offsets[b] < p.offsets[a] + requests[a].bytes;
      EXPECT_FALSE(live_together && share) << a << " and " << b;
    }
  }
}

TEST(MemoryPlan, NothingToPlaceNeedsNoArena) {
  EXPECT_EQ(plan_memory({}).arena_bytes, 0);
}

TEST(IndexMap, BroadcastStridesAlignAtTheRight) {
  Layout col = contiguous_layout({4, 1});
  EXPECT_EQ(broadcast_strides(col, {3, 4, 5}), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_TRUE(is_identity(contiguous_layout({4, 5}), {4, 5}));
  EXPECT_TRUE(is_identity(contiguous_layout({1, 20}), {20}) == false);  // rank grows only
  EXPECT_FALSE(is_identity(col, {4, 5}));
}

TEST(IndexMap, CollapseMergesDimsEveryAccessAllows) {
  // A contiguous [2, 3, 4] access and a row broadcast [4]: the two outer dims merge.
  Collapsed c = collapse({2, 3, 4}, {{12, 4, 1}, {0, 0, 1}});
  EXPECT_EQ(c.sizes, (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(c.strides[1], (std::vector<int64_t>{0, 1}));
  // Size-1 dims disappear; a fully contiguous space is one dim.
  EXPECT_EQ(collapse({2, 1, 4}, {{4, 4, 1}}).sizes, std::vector<int64_t>{8});
}

}  // namespace
}  // namespace lazygen::fusion
