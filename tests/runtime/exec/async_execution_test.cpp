// Tests of asynchronous execution (See Note [Asynchronous execution] in exec/graph_executor.h):
// mark_step returns while the graph runs, the next step is traced meanwhile (fed by the running
// launch's outputs), reads wait, and at most one launch waits in the queue.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "backend/cpu/lowering_backend.h"
#include "core/ir/builtin_nodes.h"
#include "core/ir/trie_cache.h"
#include "core/lazy/lazy_tensor.h"
#include "exec/graph_executor.h"
#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/factory.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/operators.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen::exec {
namespace {

// The cpu-lowering backend, with executions held at a gate until the test opens it.
class GatedBackend final : public Backend {
 public:
  std::string name() const override { return inner_.name(); }
  Device device() const override { return inner_.device(); }
  std::unique_ptr<Executable> compile(const Graph& graph) override { return inner_.compile(graph); }
  std::vector<Tensor> execute(const Executable& exe, const std::vector<Input>& inputs) override {
    std::unique_lock<std::mutex> lock(mutex_);
    ++started_;
    cv_.notify_all();
    cv_.wait(lock, [this] { return open_; });
    lock.unlock();
    return inner_.execute(exe, inputs);
  }
  void open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    cv_.notify_all();
  }
  void wait_started(int n) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return started_ >= n; });
  }

 private:
  cpu::LoweringBackend inner_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool open_ = false;
  int started_ = 0;
};

class AsyncExecutionTest : public ::testing::Test {
 protected:
  void SetUp() override { ir::TrieCache::current().reset(); }
  void TearDown() override {
    backend_->open();
    executor_.wait();
    ir::TrieCache::current().reset();
  }

  std::shared_ptr<GatedBackend> backend_ = std::make_shared<GatedBackend>();
  GraphExecutor executor_{backend_, 8, /*async=*/true};
};

TEST_F(AsyncExecutionTest, MarkStepReturnsWhileTheGraphRunsAndTheNextStepIsTracedMeanwhile) {
  Tensor w = zeros({4}, DType::Float32, kLazy), one = ones({4}, DType::Float32, kLazy);
  w.add_(one);
  executor_.mark_step();  // returns with the execution held at the gate
  backend_->wait_started(1);
  EXPECT_TRUE(lazy::lazy_state(w).in_flight());
  w.add_(one, 2.0);  // traced against step 1's launch: nothing waits
  const ir::Value& value = lazy::ir_value(w);
  const auto& fed = static_cast<const ir::DeviceData&>(*value.node->operands()[0].node);
  EXPECT_NE(fed.launch(), nullptr);
  EXPECT_EQ(executor_.queued(), 1u);
  backend_->open();
  executor_.mark_step();
  Tensor got = lazy::lazy_state(w).materialized();  // waits for step 2
  EXPECT_EQ(got.data_ptr<float>()[3], 3.0f);
}

TEST_F(AsyncExecutionTest, ALaunchFedGraphHitsTheGraphCompiledForData) {
  backend_->open();
  const int64_t misses = metrics::counter_value("computation_cache.miss");
  Tensor w = zeros({8}, DType::Float32, kLazy), g = ones({8}, DType::Float32, kLazy);
  for (int step = 0; step < 5; ++step) {
    w.mul_(Scalar(0.5)).add_(g);
    executor_.mark_step();
  }
  EXPECT_EQ(metrics::counter_value("computation_cache.miss") - misses, 1);
  // w = 0.5 w + 1 five times from 0: 1, 1.5, 1.75, 1.875, 1.9375
  EXPECT_EQ(lazy::lazy_state(w).materialized().data_ptr<float>()[0], 1.9375f);
}

TEST_F(AsyncExecutionTest, AtMostOneLaunchWaitsInTheQueue) {
  Tensor w = zeros({4}, DType::Float32, kLazy), one = ones({4}, DType::Float32, kLazy);
  w.add_(one);
  executor_.mark_step();
  backend_->wait_started(1);
  w.add_(one);
  std::thread opener([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    backend_->open();
  });
  const auto start = std::chrono::steady_clock::now();
  executor_.mark_step();  // waits for step 1 to leave the queue
  const auto waited = std::chrono::steady_clock::now() - start;
  opener.join();
  EXPECT_GE(waited, std::chrono::milliseconds(40));
  EXPECT_LE(executor_.queued(), 1u);
  EXPECT_EQ(lazy::lazy_state(w).materialized().data_ptr<float>()[0], 2.0f);
}

TEST_F(AsyncExecutionTest, TurningItOffWaitsAndExecutesAtEachSync) {
  Tensor w = zeros({4}, DType::Float32, kLazy), one = ones({4}, DType::Float32, kLazy);
  w.add_(one);
  executor_.mark_step();
  backend_->open();
  executor_.set_async(false);  // waits for the queued launch
  EXPECT_EQ(executor_.queued(), 0u);
  w.add_(one);
  executor_.mark_step();
  EXPECT_FALSE(lazy::lazy_state(w).in_flight());  // materialized before mark_step returned
  EXPECT_EQ(lazy::lazy_state(w).data.data_ptr<float>()[0], 2.0f);
}

}  // namespace
}  // namespace lazygen::exec
