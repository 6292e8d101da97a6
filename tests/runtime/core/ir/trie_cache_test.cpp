// Tests of core/ir/trie_cache.h: reuse from the second trace on, forks, exact reuse rules
// (optional presence, bitwise attributes), input-node rebinding, reset and counters.
#include "core/ir/trie_cache.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <thread>

#include "core/ir/builtin_nodes.h"
#include "lazygen/lazy.h"
#include "test_nodes.h"

namespace lazygen::ir {
namespace {

using testing::f32;
using testing::TestBinary;
using testing::TestFloatAttr;
using testing::TestLeaf;
using testing::TestOptional;
using testing::TestUnary;

class TrieCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { TrieCache::current().reset(); }
  void TearDown() override {
    TrieCache::current().reset();
    TrieCache::set_capacity(TrieCache::kDefaultCapacity);
  }

  static Value leaf(int64_t id) {
    return Value{cached_node<TestLeaf>(id, std::vector<Shape>{f32({2})}), 0};
  }
  static Value unary(const Value& x) {
    return Value{cached_node<TestUnary>(x, std::vector<Shape>{x.shape()}), 0};
  }
  static Value scalar(const Scalar& s) {
    return Value{cached_node<ScalarParam>(s, scalar_param_shapes(s)), 0};
  }
  static Value binary(const Value& x, const Value& y, const Scalar& alpha) {
    Value a = scalar(alpha);
    return Value{cached_node<TestBinary>(x, y, a, std::vector<Shape>{x.shape()}), 0};
  }
  static const TrieCache::Stats& stats() { return TrieCache::current().stats(); }
  static void next_trace() { TrieCache::current().reset_position(); }
};

TEST_F(TrieCacheTest, ReturnsTheSameNodesFromTheSecondTraceOn) {
  std::vector<NodePtr> first, again;
  for (std::vector<NodePtr>* out : {&first, &again, &again}) {
    next_trace();
    out->clear();
    Value x = leaf(1);
    Value y = unary(x);
    Value z = binary(x, y, 2.0);
    *out = {x.node, y.node, z.node};
  }
  EXPECT_EQ(first, again);
  EXPECT_EQ(stats().misses, 4);  // leaf, unary, scalar, binary
  EXPECT_EQ(stats().hits, 8);
  EXPECT_EQ(stats().forks, 0);
  EXPECT_EQ(TrieCache::current().size(), 4u);
}

TEST_F(TrieCacheTest, ADivergentOpForksAndBothBranchesStayReusable) {
  auto trace = [&](bool branch) {
    next_trace();
    Value x = leaf(1);
    return branch ? unary(x).node : binary(x, x, 1).node;
  };
  NodePtr a = trace(true), b = trace(false);
  EXPECT_EQ(stats().forks, 1);
  int64_t misses = stats().misses;
  EXPECT_EQ(trace(true), a);
  EXPECT_EQ(trace(false), b);
  EXPECT_EQ(trace(true), a);
  EXPECT_EQ(stats().misses, misses);
  EXPECT_EQ(stats().forks, 1);
}

// PyTorch's trie matched f(x, w, None) for a later f(x, None, w) and returned the wrong node.
TEST_F(TrieCacheTest, DoesNotReuseWhenOptionalOperandPresenceDiffers) {
  auto f = [&](bool bias_present) {
    next_trace();
    Value x = leaf(1), w = leaf(2);
    Value bias = bias_present ? w : Value{}, weight = bias_present ? Value{} : w;
    return cached_node<TestOptional>(x, bias, weight, std::vector<Shape>{x.shape()});
  };
  NodePtr with_bias = f(true);
  NodePtr with_weight = f(false);
  EXPECT_NE(with_bias, with_weight);
  EXPECT_TRUE(with_weight->operands()[2].present());
  EXPECT_FALSE(with_weight->operands()[1].present());
  EXPECT_EQ(f(true), with_bias);
  EXPECT_EQ(f(false), with_weight);
}

TEST_F(TrieCacheTest, ComparesFloatAttributesBitwise) {
  auto f = [&](double v) {
    next_trace();
    Value x = leaf(1);
    return cached_node<TestFloatAttr>(x, v, std::vector<Shape>{x.shape()});
  };
  NodePtr zero = f(0.0);
  EXPECT_NE(f(-0.0), zero);
  double nan = std::numeric_limits<double>::quiet_NaN();
  NodePtr n = f(nan);
  EXPECT_EQ(f(nan), n);
}

TEST_F(TrieCacheTest, ScalarParamsAreReusedWithTheNewValue) {
  next_trace();
  NodePtr first = scalar(1.5).node;
  next_trace();
  NodePtr second = scalar(2.5).node;
  EXPECT_EQ(first, second);
  EXPECT_EQ(static_cast<const ScalarParam&>(*second).value().to<double>(), 2.5);
  next_trace();
  NodePtr integral = scalar(int64_t{2}).node;  // another dtype category: another node
  EXPECT_NE(integral, first);
  EXPECT_EQ(integral->shape(), Shape(DType::Int64, {}));
}

TEST_F(TrieCacheTest, ReuseKeepsTheHashesOfTheFirstNode) {
  next_trace();
  Value a = binary(leaf(1), leaf(2), 1.0);
  hash_t h = a.node->dag_hash();
  next_trace();
  Value b = binary(leaf(1), leaf(2), 3.0);  // a new scalar value is not part of the hash
  EXPECT_EQ(a.node, b.node);
  EXPECT_EQ(b.node->dag_hash(), h);
}

TEST_F(TrieCacheTest, ResetForgetsNodesButPendingGraphsKeepThem) {
  next_trace();
  Value y = unary(leaf(1));
  TrieCache::current().reset();
  EXPECT_EQ(TrieCache::current().size(), 0u);
  EXPECT_TRUE(TrieCache::current().at_root());
  Value again = unary(leaf(1));
  EXPECT_NE(again.node, y.node);
  EXPECT_EQ(y.node->operands()[0].node->op(), TestLeaf::kKind);  // still alive and intact
}

TEST_F(TrieCacheTest, InvokesAShapeFunctionOnlyOnAMiss) {
  int calls = 0;
  auto trace = [&] {
    next_trace();
    Value x = leaf(1);
    return cached_node<TestUnary>(x, [&] {
      ++calls;
      return std::vector<Shape>{x.shape()};
    });
  };
  NodePtr a = trace();
  EXPECT_EQ(trace(), a);
  EXPECT_EQ(calls, 1);
}

TEST_F(TrieCacheTest, PublishesMetrics) {
  int64_t hits = metrics::counter_value("trie_cache.hit");
  int64_t forks = metrics::counter_value("trie_cache.fork");
  int64_t ops = metrics::counter_value("lazy.op.test.unary");
  next_trace();
  unary(leaf(1));
  next_trace();
  unary(leaf(1));
  next_trace();
  unary(leaf(2));
  EXPECT_EQ(metrics::counter_value("trie_cache.hit"), hits + 2);
  EXPECT_EQ(metrics::counter_value("trie_cache.fork"), forks + 1);
  EXPECT_EQ(metrics::counter_value("lazy.op.test.unary"), ops + 3);
}

TEST_F(TrieCacheTest, EachThreadHasItsOwnCache) {
  TrieCache* here = &TrieCache::current();
  TrieCache* there = nullptr;
  std::thread([&] { there = &TrieCache::current(); }).join();
  EXPECT_NE(here, there);
}

// Traces leaf(id) -> unary: two nodes; returns them.
std::vector<NodePtr> two_node_trace(int64_t id) {
  TrieCache::current().reset_position();
  const Value x = Value{cached_node<TestLeaf>(id, std::vector<Shape>{f32({2})}), 0};
  const Value y = Value{cached_node<TestUnary>(x, std::vector<Shape>{x.shape()}), 0};
  return {x.node, y.node};
}

TEST_F(TrieCacheTest, EvictsTheLeastRecentlyTracedBranchesBeyondItsCapacity) {
  TrieCache::set_capacity(8);
  const int64_t evicted = metrics::counter_value("trie_cache.evict");
  const std::vector<NodePtr> recent = two_node_trace(0);
  for (int64_t id = 1; id <= 10; ++id) {
    two_node_trace(id);
    two_node_trace(0);  // keeps branch 0 recent
  }
  next_trace();
  EXPECT_LE(TrieCache::current().size(), 8u);
  EXPECT_GT(metrics::counter_value("trie_cache.evict"), evicted);
  const int64_t misses = stats().misses;
  EXPECT_EQ(two_node_trace(0), recent);  // the most recent branch is still reused
  EXPECT_EQ(stats().misses, misses);
  two_node_trace(1);  // an evicted branch is traced again: built anew
  EXPECT_EQ(stats().misses, misses + 2);
}

TEST_F(TrieCacheTest, KeepsTheLastTraceWhateverItsSize) {
  TrieCache::set_capacity(4);
  std::vector<NodePtr> first, again;
  for (std::vector<NodePtr>* out : {&first, &again}) {
    next_trace();
    Value v = leaf(1);
    for (int i = 0; i < 9; ++i) {
      v = unary(v);
      out->push_back(v.node);
    }
  }
  next_trace();
  EXPECT_EQ(first, again);
  EXPECT_EQ(TrieCache::current().size(), 10u);
}

TEST_F(TrieCacheTest, ResetTraceCachesEmptiesTheTrie) {
  two_node_trace(3);
  ASSERT_GT(TrieCache::current().size(), 0u);
  reset_trace_caches();
  EXPECT_EQ(TrieCache::current().size(), 0u);
}

TEST_F(TrieCacheTest, DestroysDeepTriesWithoutRecursion) {
  next_trace();
  Value v = leaf(0);
  for (int i = 0; i < 300000; ++i) v = unary(v);
  v = Value{};
  TrieCache::current().reset();
  SUCCEED();
}

}  // namespace
}  // namespace lazygen::ir
