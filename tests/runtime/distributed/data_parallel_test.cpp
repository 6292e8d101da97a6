// Tests of lazygen::distributed's process-level API over the local engine and FakePeers:
// init's engines and errors, shard, and DistributedDataParallel's buckets, parameter broadcast
// and gradient means (See Note [Gradient buckets]). The MPI engine across real processes is
// tested by tests/distributed (mpirun).
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include "fake_peers.h"
#include "lazygen/autograd.h"
#include "lazygen/distributed.h"
#include "lazygen/factory.h"
#include "lazygen/lazy.h"
#include "lazygen/nn/layers.h"
#include "lazygen/operators.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen::distributed {
namespace {

using lazygen::testing::values;
using testing::FakePeers;

class ThreeLayers : public nn::Module {
 public:
  ThreeLayers() {
    register_module("a", a_);
    register_module("b", b_);
    register_module("c", c_);
  }
  Tensor forward(const Tensor& x) const { return c_->forward(b_->forward(a_->forward(x))); }

 private:
  std::shared_ptr<nn::Linear> a_ = std::make_shared<nn::Linear>(4, 8);  // 32 + 8 floats
  std::shared_ptr<nn::Linear> b_ = std::make_shared<nn::Linear>(8, 8);  // 64 + 8
  std::shared_ptr<nn::Linear> c_ = std::make_shared<nn::Linear>(8, 2);  // 16 + 2
};

class DistributedTest : public ::testing::Test {
 protected:
  void TearDown() override {
    set_communicator(nullptr);
    unsetenv("LAZYGEN_COLLECTIVE_TIMEOUT");
  }
};

TEST_F(DistributedTest, InitInstallsTheLocalEngineOnce) {
  init({.engine = "local"});
  EXPECT_TRUE(is_initialized());
  EXPECT_EQ(communicator().engine(), "local");
  EXPECT_THROW(init({.engine = "local"}), std::runtime_error);
  finalize();
  EXPECT_FALSE(is_initialized());
  finalize();  // a no-op
}

TEST_F(DistributedTest, InitRejectsUnknownEnginesAndBadTimeouts) {
  EXPECT_THROW(init({.engine = "carrier-pigeon"}), std::invalid_argument);
  setenv("LAZYGEN_COLLECTIVE_TIMEOUT", "soon", 1);
  EXPECT_THROW(init({.engine = "local"}), std::invalid_argument);
  EXPECT_FALSE(is_initialized());
}

TEST_F(DistributedTest, ShardTakesThisRanksRows) {
  set_communicator(std::make_shared<FakePeers>(2, 1));
  const Tensor batch = arange(8.0, DType::Float32).reshape({4, 2});
  EXPECT_EQ(values<float>(shard(batch)), (std::vector<float>{4, 5, 6, 7}));
  const Tensor odd = zeros({5, 2});
  try {
    shard(odd);
    FAIL() << "an uneven batch was split";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("a batch of 5 rows does not split evenly over 2 ranks"),
              std::string::npos);
  }
}

TEST_F(DistributedTest, BucketsFollowBackwardOrderWithinTheirSize) {
  set_communicator(local_communicator());
  ThreeLayers model;
  // parameters(): a.w a.b b.w b.b c.w c.b; 80 bytes: at most 20 floats per bucket, so each
  // parameter above 20 floats is a bucket of its own and the small ones pair up.
  DistributedDataParallel ddp(model, {.bucket_bytes = 80});
  const std::vector<std::vector<size_t>> expected = {{5, 4}, {3}, {2}, {1}, {0}};
  EXPECT_EQ(ddp.buckets(), expected);
  DistributedDataParallel one(model);
  EXPECT_EQ(one.buckets(), (std::vector<std::vector<size_t>>{{5, 4, 3, 2, 1, 0}}));
}

// Gradients after all_reduce_gradients on a world of 2 whose other rank has the same gradients:
// the mean equals this rank's own.
void check_mean_of_equal_gradients(Device device) {
  set_communicator(std::make_shared<FakePeers>(2, 0));
  manual_seed(3);
  ThreeLayers model;
  model.to(device);
  DistributedDataParallel ddp(model, {.bucket_bytes = 200});
  const Tensor x = randn({5, 4}).to(device);
  model.forward(x).pow(2).sum().backward();
  std::vector<std::vector<float>> before;
  for (const Tensor& p : model.parameters()) before.push_back(values<float>(p.grad()));
  ddp.all_reduce_gradients();
  if (device.is_lazy()) {
    const std::string ir = ir_dump_text({model.parameters()[0].grad()});
    EXPECT_NE(ir.find("AllReduce"), std::string::npos) << ir;  // traced into the step
    mark_step();
  }
  const std::vector<Tensor> params = model.parameters();
  for (size_t k = 0; k < params.size(); ++k) {
    const std::vector<float> after = values<float>(params[k].grad());
    ASSERT_EQ(after.size(), before[k].size());
    for (size_t i = 0; i < after.size(); ++i) EXPECT_FLOAT_EQ(after[i], before[k][i]);
  }
}

TEST_F(DistributedTest, AllReduceGradientsTakesTheMeanOnCpu) { check_mean_of_equal_gradients(kCPU); }
TEST_F(DistributedTest, AllReduceGradientsTakesTheMeanOnLazy) {
  check_mean_of_equal_gradients(kLazy);
}

TEST_F(DistributedTest, ParametersComeFromRankZeroAndGradientsMustExist) {
  auto peers = std::make_shared<FakePeers>(2, 1);
  set_communicator(peers);
  ThreeLayers model;
  DistributedDataParallel ddp(model);
  // One broadcast per parameter (6), each checked first.
  EXPECT_EQ(peers->sent().size(), 6u);
  EXPECT_EQ(peers->sent()[0][1], static_cast<int64_t>(CollectiveKind::Broadcast));
  try {
    ddp.all_reduce_gradients();
    FAIL() << "missing gradients were all-reduced";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("parameter 'c.bias' has no gradient on rank 1"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace lazygen::distributed
