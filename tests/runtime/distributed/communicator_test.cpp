// Tests of the collective ops (all_reduce, all_gather, broadcast) on the cpu and lazy devices,
// over the local communicator and FakePeers: values, trace-time errors, the fingerprint check
// (See Note [Collective fingerprints]), gradients and metrics.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "fake_peers.h"
#include "lazygen/autograd.h"
#include "lazygen/distributed.h"
#include "lazygen/factory.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/operators.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen::distributed {
namespace {

using lazygen::testing::error_of;
using lazygen::testing::values;
using testing::FakePeers;

class CollectiveTest : public ::testing::TestWithParam<Device> {
 protected:
  void TearDown() override { set_communicator(nullptr); }
  Device device() const { return GetParam(); }
  std::shared_ptr<FakePeers> peers(int world, int rank = 0) {
    auto p = std::make_shared<FakePeers>(world, rank);
    set_communicator(p);
    return p;
  }
  Tensor x() const { return tensor<float>({1, 2, 3, 4, 5, 6}, IntList{2, 3}).to(device()); }
};

TEST_P(CollectiveTest, RaisesAtTraceTimeWithoutAnEngine) {
  const Tensor t = x();
  const std::string message = error_of([&] { all_reduce(t); });
  EXPECT_NE(message.find("all_reduce: no distributed engine"), std::string::npos) << message;
  EXPECT_NE(message.find("distributed::init()"), std::string::npos) << message;
}

TEST_P(CollectiveTest, LocalWorldIsTheIdentity) {
  set_communicator(local_communicator());
  EXPECT_EQ(world_size(), 1);
  EXPECT_EQ(rank(), 0);
  EXPECT_EQ(values<float>(all_reduce(x())), values<float>(x()));
  EXPECT_EQ(values<float>(all_reduce(x(), "mean")), values<float>(x()));
  EXPECT_EQ(values<float>(all_gather(x())), values<float>(x()));
  EXPECT_EQ(values<float>(broadcast(x(), 0)), values<float>(x()));
}

TEST_P(CollectiveTest, SumAddsEveryRankAndMeanDivides) {
  peers(4);
  EXPECT_EQ(values<float>(all_reduce(x())), (std::vector<float>{4, 8, 12, 16, 20, 24}));
  EXPECT_EQ(values<float>(all_reduce(x(), "mean")), values<float>(x()));
  const Tensor ints = tensor<int64_t>({1, -2}).to(device());
  EXPECT_EQ(values<int64_t>(all_reduce(ints)), (std::vector<int64_t>{4, -8}));
}

TEST_P(CollectiveTest, AllGatherConcatenatesAlongDimZero) {
  peers(3);
  const Tensor g = all_gather(x());
  EXPECT_EQ(g.sizes(), (std::vector<int64_t>{6, 3}));
  EXPECT_EQ(values<float>(g)[9], 4.0f);
  EXPECT_EQ(all_gather(scalar_tensor(7.0, DType::Float32, device())).sizes(),
            (std::vector<int64_t>{3}));
}

TEST_P(CollectiveTest, BadCallsRaiseNamingTheOp) {
  peers(2);
  const Tensor flags = ones({2}, DType::Bool, device());
  EXPECT_NE(error_of([&] { all_reduce(flags); }).find("all_reduce: bool tensors"),
            std::string::npos);
  const Tensor ints = ones({2}, DType::Int32, device());
  EXPECT_NE(error_of([&] { all_reduce(ints, "mean"); }).find("needs a floating dtype, got int32"),
            std::string::npos);
  EXPECT_NE(error_of([&] { all_reduce(x(), "max"); }).find("'sum' or 'mean', got 'max'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { broadcast(x(), 2); }).find("src 2 is not a rank of a world of 2"),
            std::string::npos);
}

TEST_P(CollectiveTest, RanksThatDisagreeRaiseNamingTheField) {
  auto p = peers(2, 1);
  p->disagree(/*numel*/ 4, 1);
  const std::string message = error_of([&] { values<float>(all_reduce(x())); });
  EXPECT_NE(message.find("the ranks disagree about collective #0 (this is rank 1 of 2): the "
                         "number of elements ranges from 6 to 7 across ranks, here 6"),
            std::string::npos)
      << message;
  p->disagree(/*kind*/ 1, 1);
  const std::string kinds = error_of([&] { values<float>(all_reduce(x())); });
  EXPECT_NE(kinds.find("ranges from all_reduce(sum) to all_reduce(mean)"), std::string::npos)
      << kinds;
}

TEST_P(CollectiveTest, FingerprintCarriesTheGraphOnTheLazyDevice) {
  auto p = peers(2);
  values<float>(all_reduce(x() * 2));
  ASSERT_EQ(p->sent().size(), 1u);
  EXPECT_EQ(p->sent()[0][4], 6);  // element count
  if (device().is_lazy()) {
    EXPECT_NE(p->sent()[0][5], 0);  // the graph's structural hash
    p->disagree(/*graph*/ 5, 1);
    const std::string message = error_of([&] { values<float>(all_reduce(x() * 2)); });
    EXPECT_NE(message.find("the graph running it ranges from"), std::string::npos) << message;
  } else {
    EXPECT_EQ(p->sent()[0][5], 0);
  }
}

TEST_P(CollectiveTest, AllReduceIsDifferentiable) {
  peers(2);
  Tensor leaf = tensor<double>({1, 2, 3}).to(device()).requires_grad_();
  const Tensor& in = leaf;
  // y = sum over ranks of x: every rank's loss reads every rank's x, so x's gradient is the sum
  // of the ranks' output gradients (here 2 ranks sending 3 each).
  (all_reduce(in) * 3).sum().backward();
  EXPECT_EQ(values<double>(leaf.grad()), (std::vector<double>{6, 6, 6}));
  const Tensor needs = tensor<double>({1, 2}).to(device()).requires_grad_();
  EXPECT_NE(error_of([&] { all_gather(needs); })
                .find("the derivative for 'all_gather' is not implemented"),
            std::string::npos);
}

TEST_P(CollectiveTest, CountsBytesAndCalls) {
  peers(2);
  const int64_t bytes = metrics::counter("distributed.bytes").value();
  const int64_t calls = metrics::counter("distributed.collectives").value();
  values<float>(all_reduce(x()));
  values<float>(broadcast(x(), 1));
  EXPECT_EQ(metrics::counter("distributed.bytes").value() - bytes, 2 * 6 * 4);
  EXPECT_EQ(metrics::counter("distributed.collectives").value() - calls, 2);
}

INSTANTIATE_TEST_SUITE_P(Devices, CollectiveTest, ::testing::Values(kCPU, kLazy),
                         [](const auto& info) { return info.param.is_lazy() ? "lazy" : "cpu"; });

}  // namespace
}  // namespace lazygen::distributed
