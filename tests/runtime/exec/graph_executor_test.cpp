// Tests of exec/graph_executor.h against the recording null backend: the computation cache
// (hit from the second step on, recompile on a shape change, not on a scalar change, failed
// compiles not cached, LRU eviction) and what syncing does to tensors.
#include "exec/graph_executor.h"

#include <gtest/gtest.h>

#include "backend/null/null_backend.h"
#include "core/ir/builtin_nodes.h"
#include "core/ir/trie_cache.h"
#include "core/lazy/lazy_tensor.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/factory.h"
#include "lazygen/metrics.h"
#include "test_nodes.h"

namespace lazygen::exec {
namespace {

using lazy::ir_value;
using lazy::lazy_state;
using testing::lazy_zeros;

class GraphExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override { ir::TrieCache::current().reset(); }
  void TearDown() override { ir::TrieCache::current().reset(); }

  static Tensor add(const Tensor& x, const Tensor& y, const Scalar& alpha) {
    return testing::trace_binary(x, y, alpha);
  }
  static void add_(const Tensor& x, const Tensor& y, const Scalar& alpha) {
    lazy::set_ir_value(x, ir_value(add(x, y, alpha)));
  }

  std::shared_ptr<NullBackend> backend_ = std::make_shared<NullBackend>();
  GraphExecutor executor_{backend_, 8};
};

TEST_F(GraphExecutorTest, TheSameTraceHitsTheCacheFromTheSecondStepOn) {
  int64_t hits = metrics::counter_value("computation_cache.hit");
  Tensor w = lazy_zeros({4}), g = lazy_zeros({4});
  for (int step = 0; step < 3; ++step) {
    add_(w, g, -0.1);
    executor_.mark_step();
  }
  EXPECT_EQ(backend_->compiles().size(), 1u);
  EXPECT_EQ(backend_->executions().size(), 3u);
  EXPECT_EQ(metrics::counter_value("computation_cache.hit"), hits + 2);
  EXPECT_EQ(executor_.cache_size(), 1u);
}

// Note [Syncing what the graph computes anyway]: syncing b also computes a, which b's graph
// computes on the way, but not c, which it does not.
TEST_F(GraphExecutorTest, ASyncAlsoComputesTheLiveTensorsItsGraphComputesAnyway) {
  Tensor x = lazy_zeros({4});
  Tensor a = add(x, x, 1.0);
  Tensor b = add(a, x, 2.0);
  Tensor c = add(x, x, 3.0);
  executor_.sync({b.impl()->lazy_state()});
  EXPECT_FALSE(lazy_state(a).pending());
  EXPECT_FALSE(lazy_state(b).pending());
  EXPECT_TRUE(lazy_state(c).pending());
  ASSERT_EQ(backend_->executions().size(), 1u);
  Tensor d = add(a, a, 1.0);  // traced on a's result: nothing of the first graph again
  executor_.sync({d.impl()->lazy_state()});
  ASSERT_EQ(backend_->compiles().size(), 2u);
  EXPECT_EQ(backend_->compiles()[1].num_nodes, 3u);  // a's data, the scalar, the add
}

// ... except those whose whole pending subgraph the backend recomputes cheaply (a pointwise chain
// on a fusing backend): making a an output would write it for nothing if it dies unread, as a C++
// temporary does. e, on a subgraph with a costly node (the unary), is still computed.
TEST_F(GraphExecutorTest, ASyncLeavesPendingWhatTheBackendRecomputesCheaply) {
  backend_->set_recomputes_cheaply({testing::TestBinary::kKind});
  Tensor x = lazy_zeros({4});
  Tensor a = add(x, x, 1.0);
  Tensor b = add(a, x, 2.0);
  Tensor costly = lazy::make_lazy_tensor(
      ir::cached_node<testing::TestUnary>(ir_value(b), std::vector<Shape>{b.shape()}), 0,
      x.device());
  Tensor e = add(costly, x, 3.0);
  Tensor f = add(e, x, 4.0);
  executor_.sync({f.impl()->lazy_state()});
  EXPECT_TRUE(lazy_state(a).pending());
  EXPECT_TRUE(lazy_state(b).pending());
  EXPECT_FALSE(lazy_state(costly).pending());
  EXPECT_FALSE(lazy_state(e).pending());
  EXPECT_FALSE(lazy_state(f).pending());
}

TEST_F(GraphExecutorTest, SyncingTheSameRootsAgainReusesTheGraphWithNewInputs) {
  int64_t memo_hits = metrics::counter_value("exec.graph_memo_hit");
  Tensor w = lazy_zeros({4}), g = lazy_zeros({4});
  for (int step = 0; step < 4; ++step) {
    add_(w, g, -0.5 * step);  // the same nodes every step, a new scalar value each time
    executor_.mark_step();
  }
  EXPECT_EQ(backend_->compiles().size(), 1u);
  EXPECT_EQ(metrics::counter_value("exec.graph_memo_hit"), memo_hits + 3);
  ASSERT_EQ(backend_->executions().size(), 4u);
  for (int step = 0; step < 4; ++step) {  // fed the value of its own step, not a remembered one
    ASSERT_EQ(backend_->executions()[step].scalars.size(), 1u);
    EXPECT_EQ(backend_->executions()[step].scalars[0].to<double>(), -0.5 * step);
  }
}

TEST_F(GraphExecutorTest, TheGraphMemoNeverOutlivesTheCacheEntry) {
  Tensor w = lazy_zeros({4}), g = lazy_zeros({4});
  add_(w, g, 1.0);
  executor_.mark_step();
  executor_.clear_cache();
  add_(w, g, 1.0);  // the same trie nodes as before: the memo would know them
  executor_.mark_step();
  EXPECT_EQ(backend_->compiles().size(), 2u);
}

TEST_F(GraphExecutorTest, AChangedInputShapeCompilesAnew) {
  for (int64_t n : {4, 4, 5, 5, 4}) {
    Tensor x = lazy_zeros({n});
    Tensor y = add(x, x, 1.0);
    executor_.mark_step();
  }
  ASSERT_EQ(backend_->compiles().size(), 2u);
  EXPECT_EQ(backend_->compiles()[1].input_shapes[0], Shape(DType::Float32, {5}));
}

TEST_F(GraphExecutorTest, AChangedScalarValueDoesNotRecompileAndIsFed) {
  Tensor w = lazy_zeros({4}), g = lazy_zeros({4});
  for (double lr : {0.1, 0.2, 0.3}) {
    add_(w, g, -lr);
    executor_.mark_step();
  }
  EXPECT_EQ(backend_->compiles().size(), 1u);
  std::vector<NullBackend::ExecuteRecord> runs = backend_->executions();
  ASSERT_EQ(runs.size(), 3u);
  ASSERT_EQ(runs[2].scalars.size(), 1u);
  EXPECT_EQ(runs[0].scalars[0].to<double>(), -0.1);
  EXPECT_EQ(runs[2].scalars[0].to<double>(), -0.3);
}

TEST_F(GraphExecutorTest, AScalarOfAnotherDTypeCategoryRecompiles) {
  Tensor w = lazy_zeros({4});
  add_(w, w, 1.0);
  executor_.mark_step();
  add_(w, w, int64_t{1});
  executor_.mark_step();
  EXPECT_EQ(backend_->compiles().size(), 2u);
}

TEST_F(GraphExecutorTest, AFailedCompileIsNotCached) {
  Tensor x = lazy_zeros({2});
  Tensor y = add(x, x, 1.0);
  backend_->fail_next_compile();
  EXPECT_THROW(executor_.mark_step(), CompileError);
  EXPECT_EQ(executor_.cache_size(), 0u);
  EXPECT_TRUE(lazy_state(y).pending());  // nothing was lost; a retry compiles
  executor_.mark_step();
  EXPECT_FALSE(lazy_state(y).pending());
  EXPECT_EQ(executor_.cache_size(), 1u);
}

TEST_F(GraphExecutorTest, TheCacheIsAnLruOfBoundedSize) {
  int64_t evictions = metrics::counter_value("computation_cache.evict");
  executor_.set_cache_capacity(1);
  for (int64_t n : {2, 3, 2}) {
    Tensor x = lazy_zeros({n});
    Tensor y = add(x, x, 1.0);
    executor_.mark_step();
  }
  EXPECT_EQ(backend_->compiles().size(), 3u);  // the first graph was evicted by the second
  EXPECT_EQ(metrics::counter_value("computation_cache.evict"), evictions + 2);
  EXPECT_EQ(executor_.cache_size(), 1u);
}

TEST_F(GraphExecutorTest, SyncedTensorsHoldTheirResultAndDropTheirIr) {
  Tensor x = lazy_zeros({2, 2});
  Tensor y = add(x, x, 1.0);
  executor_.mark_step();
  const lazy::LazyState& s = lazy_state(y);
  EXPECT_FALSE(s.pending());
  EXPECT_FALSE(s.value.present());
  EXPECT_EQ(s.data.shape(), y.shape());
  EXPECT_TRUE(s.data.device().is_cpu());
  EXPECT_EQ(ir_value(y).node->op(), ir::op_kind("device_data"));  // it feeds later graphs as data
}

TEST_F(GraphExecutorTest, SyncExecutesOnlyTheGivenTensorsAndKeepsTheTrace) {
  Tensor x = lazy_zeros({2});
  Tensor a = add(x, x, 1.0), b = add(x, x, 2.0);
  executor_.sync({a.impl()->lazy_state()});
  EXPECT_FALSE(lazy_state(a).pending());
  EXPECT_TRUE(lazy_state(b).pending());
  EXPECT_FALSE(ir::TrieCache::current().at_root());
  executor_.mark_step();
  EXPECT_FALSE(lazy_state(b).pending());
  EXPECT_EQ(backend_->executions().size(), 2u);
}

TEST_F(GraphExecutorTest, TensorsSharingAValueShareOneOutput) {
  Tensor x = lazy_zeros({2});
  Tensor a = add(x, x, 1.0);
  Tensor alias = lazy::make_lazy_tensor(ir_value(a).node, 0, kLazy);
  executor_.mark_step();
  EXPECT_EQ(backend_->compiles()[0].num_nodes, 3u);  // x, alpha, add: one output
  EXPECT_TRUE(lazy_state(a).data.is_same(lazy_state(alias).data));
}

TEST_F(GraphExecutorTest, TracesReuseTheSameNodesAcrossSteps) {
  Tensor w = lazy_zeros({4}), g = lazy_zeros({4});
  std::vector<ir::Node*> first;
  for (int step = 0; step < 3; ++step) {
    add_(w, g, -0.1);
    ir::Value v = lazy_state(w).value;
    std::vector<ir::Node*> nodes{v.node.get(), v.node->operands()[0].node.get(),
                                 v.node->operands()[1].node.get()};
    if (step == 0) first = nodes;
    EXPECT_EQ(nodes, first) << "step " << step;
    executor_.mark_step();
  }
}

TEST_F(GraphExecutorTest, InPlaceUpdatesRetainNoOldBuffers) {
  Tensor w = lazy_zeros({1024}), g = lazy_zeros({1024});
  for (int step = 0; step < 4; ++step) {
    Tensor before = lazy_state(w).data;
    add_(w, g, -0.1);
    executor_.mark_step();
    // The old buffer is referenced only by `before`: not by w, the trie or the cache.
    EXPECT_EQ(before.impl_ptr().use_count(), 1) << "step " << step;
  }
  EXPECT_EQ(ir::TrieCache::current().size(), 4u);  // w, g, alpha, add: no growth
}

TEST_F(GraphExecutorTest, MarkStepWithNothingPendingRunsNothing) {
  Tensor x = lazy_zeros({2});
  executor_.mark_step();
  EXPECT_TRUE(backend_->executions().empty());
}

}  // namespace
}  // namespace lazygen::exec
