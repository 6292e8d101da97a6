// Tests of Note [Trie reuse across sizes] (core/ir/trie_cache.h), through the lazy device: a
// trace at new sizes takes the trie positions of the same ops at earlier sizes, with nodes built
// from the call's own arguments; a few alternating sizes reuse every node; the trie keeps one
// branch per structure; LAZYGEN_DYNAMIC=0 (set_reuse_across_sizes(false)) grows a branch per size.
#include <gtest/gtest.h>

#include "core/ir/trie_cache.h"
#include "lazygen/composite.h"
#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/broadcast.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/mm.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/round.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/operators.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen::ir {
namespace {

class TrieSizesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mark_step();
    TrieCache::current().reset();
  }
  void TearDown() override {
    mark_step();
    TrieCache::current().reset();
    TrieCache::set_reuse_across_sizes(true);
  }

  // One step over x = ones([rows, 3]): relu(x * 2 + 1) viewed as [rows * 3] (a size attribute
  // that changes with rows), summed. Returns the sum (9 per row).
  static double step(int64_t rows) {
    Tensor x = ones({rows, 3}).to(kLazy);
    Tensor y = relu(x * 2.0 + 1.0).view({rows * 3}).sum();
    mark_step();
    return y.item<double>();
  }
  static const TrieCache::Stats& stats() { return TrieCache::current().stats(); }
};

TEST_F(TrieSizesTest, NewSizesTakeThePositionsOfTheSameOps) {
  ASSERT_EQ(step(4), 36.0);
  const size_t one_trace = TrieCache::current().size();
  const TrieCache::Stats first = stats();
  for (int64_t rows = 5; rows <= 30; ++rows) ASSERT_EQ(step(rows), 9.0 * rows) << rows;
  EXPECT_EQ(stats().misses, first.misses) << "no new branch for a new size";
  EXPECT_GT(stats().resized, 0);
  EXPECT_LE(TrieCache::current().size(), TrieCache::kMaxVariants * one_trace);
}

TEST_F(TrieSizesTest, AFewAlternatingSizesReuseEveryNode) {
  for (int64_t rows : {4, 7, 9}) step(rows);
  const TrieCache::Stats warm = stats();
  for (int round = 0; round < 3; ++round) {
    for (int64_t rows : {9, 4, 7}) ASSERT_EQ(step(rows), 9.0 * rows);
  }
  EXPECT_EQ(stats().misses, warm.misses);
  EXPECT_EQ(stats().resized, warm.resized);
  EXPECT_GT(stats().hits, warm.hits);
}

TEST_F(TrieSizesTest, WithDynamicShapesOffEachSizeGrowsABranch) {
  TrieCache::set_reuse_across_sizes(false);
  step(4);
  const size_t one_trace = TrieCache::current().size();
  const TrieCache::Stats before = stats();
  EXPECT_EQ(step(5), 45.0);
  EXPECT_GT(stats().misses, before.misses);
  EXPECT_EQ(stats().resized, before.resized);
  EXPECT_GT(TrieCache::current().size(), one_trace);
}

// Up to kMaxVariants sizes, in any order, reuse every node once each was traced and the
// positions grew to keep them (one more node per variant reused: Note [Trie reuse across
// sizes]). Variants are found by operand key (Note [Operand keys]), including ops with a tensor
// list (cat) and two inputs of which only one changes size.
TEST_F(TrieSizesTest, ManySizesInAnyOrderReuseEveryNodeOnceEachWasTraced) {
  Tensor w = ones({3, 3}).to(kLazy);
  mark_step();
  auto trace = [&](int64_t rows) {
    Tensor x = ones({rows, 3}).to(kLazy);
    Tensor y = cat({mm(x, w), x * 2.0}, 1);
    Tensor z = relu(y - 1.0).sum();
    mark_step();
    return z.item<double>();  // per row: 3 * 2 + 3 * 1
  };
  constexpr int64_t kSizes = 20;
  static_assert(kSizes <= TrieCache::kMaxVariants);
  // Rounds over every size, each in another order, until one reuses every node.
  int round = 0;
  for (bool all_reused = false; !all_reused; ++round) {
    ASSERT_LT(round, 12) << "the positions did not grow to keep " << kSizes << " sizes";
    const TrieCache::Stats before = stats();
    for (int64_t k = 0; k < kSizes; ++k) {
      const int64_t rows = 1 + (k * (2 * round + 3)) % kSizes;
      ASSERT_EQ(trace(rows), 9.0 * rows) << rows;
    }
    all_reused = stats().resized == before.resized && stats().misses == before.misses;
  }
  EXPECT_GT(round, 1) << "the first round builds every size";
}

// More sizes than a position keeps: the least recently used go, and the trie stays within
// kMaxVariants nodes per position.
TEST_F(TrieSizesTest, MoreSizesThanAPositionKeepsDropTheLeastRecentlyUsed) {
  ASSERT_EQ(step(1), 9.0);
  const size_t one_trace = TrieCache::current().size();
  const int64_t sizes = TrieCache::kMaxVariants + 8;
  for (int64_t rows = 2; rows <= sizes; ++rows) ASSERT_EQ(step(rows), 9.0 * rows);
  EXPECT_LE(TrieCache::current().size(), TrieCache::kMaxVariants * one_trace);
  const TrieCache::Stats before = stats();
  ASSERT_EQ(step(sizes), 9.0 * sizes);  // the most recent size: kept
  EXPECT_EQ(stats().resized, before.resized);
  ASSERT_EQ(step(1), 9.0);  // the oldest: dropped, so built again
  EXPECT_GT(stats().resized, before.resized);
}

// Shapes are inferred at the call with the concrete sizes, so a shape error at a new size raises
// there, naming the op and both shapes, and leaves the trie as it was.
TEST_F(TrieSizesTest, AShapeErrorAtANewSizeRaisesAtTheCallWithItsSizes) {
  auto trace_add = [](int64_t a, int64_t b) {
    Tensor x = ones({a, 3}).to(kLazy), y = ones({b, 3}).to(kLazy);
    Tensor z = (x + y).sum();
    mark_step();
    return z.item<double>();
  };
  EXPECT_EQ(trace_add(4, 4), 24.0);
  try {
    trace_add(4, 5);
    FAIL() << "expected a shape error";
  } catch (const std::exception& e) {
    EXPECT_STREQ(e.what(),
                 "add.Tensor: shapes [4, 3] and [5, 3] cannot be broadcast (dim 0: 4 vs 5)");
  }
  mark_step();
  const int64_t misses = stats().misses;
  EXPECT_EQ(trace_add(4, 4), 24.0);
  EXPECT_EQ(trace_add(6, 6), 36.0);
  EXPECT_EQ(stats().misses, misses);
}

// Operands correspond by trie position: an op whose operand comes from another position than
// before is another structure, so it is not put in the place of the earlier node.
TEST_F(TrieSizesTest, AnOperandFromAnotherPositionIsAnotherStructure) {
  auto trace = [](int64_t rows, bool swap) {
    Tensor x = ones({rows, 3}).to(kLazy);
    Tensor a = x * 2.0, b = x * 3.0;
    Tensor z = (swap ? b - a : a - b).sum();
    mark_step();
    return z.item<double>();
  };
  EXPECT_EQ(trace(4, false), -12.0);
  const int64_t misses = stats().misses;
  EXPECT_EQ(trace(5, true), 15.0);
  EXPECT_GT(stats().misses, misses);  // sub(b, a) forks from sub(a, b)
  EXPECT_EQ(trace(6, false), -18.0);
  EXPECT_EQ(trace(7, true), 21.0);
}

}  // namespace
}  // namespace lazygen::ir
