// Tests of the public lazy API (lazygen/lazy.h) that need no kernels: sync and mark_step on a
// null backend, IR dumps of pending tensors, and the metrics report after a few steps.
#include "lazygen/lazy.h"

#include <gtest/gtest.h>

#include "backend/null/null_backend.h"
#include "core/ir/trie_cache.h"
#include "core/lazy/lazy_tensor.h"
#include "exec/graph_executor.h"
#include "lazygen/factory.h"
#include "test_nodes.h"

namespace lazygen {
namespace {

class LazyApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = exec::GraphExecutor::global().backend();
    exec::GraphExecutor::global().set_backend(backend_);
    ir::TrieCache::current().reset();
  }
  void TearDown() override {
    exec::GraphExecutor::global().set_backend(saved_);
    ir::TrieCache::current().reset();
  }
  static Tensor add(const Tensor& x, const Tensor& y, const Scalar& alpha) {
    return testing::trace_binary(x, y, alpha);
  }
  std::shared_ptr<exec::NullBackend> backend_ = std::make_shared<exec::NullBackend>();
  std::shared_ptr<exec::Backend> saved_;
};

TEST_F(LazyApiTest, SyncSkipsNonLazyAndMaterializedTensors) {
  Tensor x = zeros({2}).to(kLazy);
  Tensor y = add(x, x, 1.0);
  sync({zeros({2}), x, y, Tensor()});
  EXPECT_FALSE(lazy::lazy_state(y).pending());
  wait_device_ops();  // the execution may still be in flight (See Note [Asynchronous execution])
  EXPECT_EQ(backend_->executions().size(), 1u);
  EXPECT_EQ(backend_->executions()[0].input_shapes.size(), 2u);  // x's data and alpha
}

TEST_F(LazyApiTest, DumpsThePendingGraph) {
  Tensor x = zeros({2, 3}).to(kLazy);
  Tensor y = add(x, x, 0.5);
  EXPECT_EQ(ir_dump_text({y}),
            "IR {\n"
            "  %0 = DeviceData(device=cpu) : float32[2, 3]\n"
            "  %1 = ScalarParam(value=0.5) : float64[]\n"
            "  %2 = TestBinary(%0, %0, %1) : float32[2, 3]  # root 0\n"
            "}\n");
  EXPECT_NE(ir_dump_dot({y}).find("n0 -> n2"), std::string::npos);
  EXPECT_EQ(ir_dump_text({zeros({1})}), "IR {\n}\n");
  mark_step();
  EXPECT_EQ(ir_dump_text({y}), "IR {\n}\n");  // materialized and not used in this trace
}

TEST_F(LazyApiTest, TheMetricsReportShowsTracingCachingAndExecution) {
  wait_device_ops();  // an earlier test's launch finishing after the reset would count here
  metrics::reset();
  Tensor w = zeros({4}).to(kLazy);
  for (int step = 0; step < 3; ++step) {
    lazy::set_ir_value(w, lazy::ir_value(add(w, w, 0.1 * step)));
    mark_step();
  }
  wait_device_ops();
  std::string report = metrics_report();
  for (const char* name :
       {"computation_cache.hit", "computation_cache.miss", "exec.mark_step", "exec.sync",
        "ir.nodes_created", "lazy.op.test.binary", "lazy.tensor_created", "trie_cache.hit",
        "trie_cache.miss", "exec.compile_ms", "exec.execute_ms", "exec.build_graph_ms"}) {
    EXPECT_NE(report.find(name), std::string::npos) << name << " missing from\n" << report;
  }
  EXPECT_EQ(metrics::counter_value("computation_cache.miss"), 1);
  EXPECT_EQ(metrics::counter_value("computation_cache.hit"), 2);
  EXPECT_EQ(metrics::counter_value("lazy.op.test.binary"), 3);
  EXPECT_EQ(metrics::timed_stats("exec.execute_ms")->count, 3);
}

TEST_F(LazyApiTest, CacheCapacityIsConfigurable) {
  set_computation_cache_capacity(0);
  for (int step = 0; step < 2; ++step) {
    Tensor x = zeros({2}).to(kLazy);
    Tensor y = add(x, x, 1.0);
    mark_step();
  }
  EXPECT_EQ(backend_->compiles().size(), 2u);
  set_computation_cache_capacity(exec::GraphExecutor::kDefaultCacheCapacity);
}

}  // namespace
}  // namespace lazygen
