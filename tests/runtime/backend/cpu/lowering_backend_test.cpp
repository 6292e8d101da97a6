// Tests of backend/cpu/lowering_backend.h with the test lowering table, and of the lazy device end
// to end through the global executor: item(), cpu(), printing and mark_step compute real values.
#include "backend/cpu/lowering_backend.h"

#include <gtest/gtest.h>

#include "core/ir/builtin_nodes.h"
#include "core/ir/trie_cache.h"
#include "core/lazy/lazy_tensor.h"
#include "exec/graph_executor.h"
#include "lazygen/factory.h"
#include "lazygen/lazy.h"
#include "test_nodes.h"

namespace lazygen::exec {
namespace {

using lazy::ir_value;
using testing::f32;
using testing::TestBinary;
using testing::TestLeaf;
using testing::TestOptional;
using testing::TestTwoOutputs;
using testing::TestUnary;

ir::Value data(std::vector<float> values) {
  Tensor t = tensor(values);
  return ir::Value{std::make_shared<ir::DeviceData>(t, std::vector<Shape>{t.shape()}), 0};
}
ir::Value scalar(const Scalar& s) {
  return ir::Value{std::make_shared<ir::ScalarParam>(s, ir::scalar_param_shapes(s)), 0};
}
template <class NodeT, class... Args>
ir::Value node(std::vector<Shape> shapes, uint32_t index, const Args&... args) {
  return ir::Value{std::make_shared<NodeT>(args..., std::move(shapes)), index};
}
std::vector<Input> inputs_of(const Graph& g) {
  std::vector<Input> out;
  for (uint32_t i : g.inputs()) {
    const ir::Node& n = g.node(i);
    if (n.op() == ir::op_kind("device_data")) {
      out.push_back({static_cast<const ir::DeviceData&>(n).data(), Scalar()});
    } else {
      out.push_back({Tensor(), static_cast<const ir::ScalarParam&>(n).value()});
    }
  }
  return out;
}
std::vector<float> values(const Tensor& t) {
  const float* p = t.data_ptr<float>();
  return std::vector<float>(p, p + t.numel());
}

TEST(LoweringBackend, RunsNodesInPostOrderThroughTheLoweringTable) {
  ir::Value x = data({1, 2, 3}), y = data({10, 20, 30});
  ir::Value sum = node<TestBinary>({f32({3})}, 0, x, y, scalar(0.5));
  ir::Value out = node<TestUnary>({f32({3})}, 0, sum);
  Graph g({out, sum});
  cpu::LoweringBackend backend(&testing::test_lowering);
  std::unique_ptr<Executable> exe = backend.compile(g);
  std::vector<Tensor> results = backend.execute(*exe, inputs_of(g));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(values(results[0]), (std::vector<float>{7, 13, 19}));
  EXPECT_EQ(values(results[1]), (std::vector<float>{6, 12, 18}));
}

TEST(LoweringBackend, PassesAbsentOperandsAsUndefinedAndHandlesMultipleOutputs) {
  ir::Value x = data({1, 2});
  ir::Value twice = node<TestTwoOutputs>({f32({2}), f32({2})}, 0, x);
  ir::Value thrice{twice.node, 1};
  ir::Value opt = node<TestOptional>({f32({2})}, 0, thrice, ir::Value{}, twice);  // 3x + 2*2x
  Graph g({opt, x});
  cpu::LoweringBackend backend(&testing::test_lowering);
  std::vector<Tensor> results = backend.execute(*backend.compile(g), inputs_of(g));
  EXPECT_EQ(values(results[0]), (std::vector<float>{7, 14}));
  EXPECT_EQ(values(results[1]), (std::vector<float>{1, 2}));  // an input returned as an output
}

TEST(LoweringBackend, AnOpWithoutLoweringFailsToCompile) {
  ir::Value leaf = node<TestLeaf>({f32({2})}, 0, int64_t{1});
  cpu::LoweringBackend backend(&testing::test_lowering);
  try {
    backend.compile(Graph({leaf}));
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("no lowering for op test.leaf"), std::string::npos);
  }
}

// The lazy device end to end: the global executor runs the test lowerings.
class LazyDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = GraphExecutor::global().backend();
    GraphExecutor::global().set_backend(
        std::make_shared<cpu::LoweringBackend>(&testing::test_lowering));
    ir::TrieCache::current().reset();
  }
  void TearDown() override {
    GraphExecutor::global().set_backend(saved_);
    ir::TrieCache::current().reset();
  }
  static Tensor add(const Tensor& x, const Tensor& y, const Scalar& alpha) {
    return testing::trace_binary(x, y, alpha);
  }
  std::shared_ptr<Backend> saved_;
};

TEST_F(LazyDeviceTest, ItemAndCpuExecuteWhatIsPending) {
  Tensor x = tensor<float>({1, 2}).to(kLazy);
  Tensor y = add(x, x, 2.0);  // 3x
  EXPECT_TRUE(lazy::lazy_state(y).pending());
  Tensor cpu = y.cpu();
  EXPECT_EQ(values(cpu), (std::vector<float>{3, 6}));
  EXPECT_FALSE(lazy::lazy_state(y).pending());
  EXPECT_EQ(values(add(x, y, 1.0).cpu()), (std::vector<float>{4, 8}));  // y feeds as data now
}

TEST_F(LazyDeviceTest, ATrainingLoopUpdatesInPlaceAndReusesOneGraph) {
  Tensor w = tensor<float>({1, 1}).to(kLazy);
  Tensor g = tensor<float>({1, 2}).to(kLazy);
  int64_t hits = metrics::counter_value("computation_cache.hit");
  for (int step = 0; step < 5; ++step) {
    lazy::set_ir_value(w, ir_value(add(w, g, -0.5)));
    mark_step();
  }
  EXPECT_EQ(values(w.cpu()), (std::vector<float>{-1.5, -4}));
  EXPECT_EQ(metrics::counter_value("computation_cache.hit"), hits + 4);
}

TEST_F(LazyDeviceTest, CopiesAtTheDeviceBoundary) {
  Tensor src = tensor<float>({1, 2});
  Tensor x = src.to(kLazy);
  src.data_ptr<float>()[0] = 100;  // writing the cpu tensor does not reach the lazy one
  Tensor back = x.cpu();
  back.data_ptr<float>()[1] = 200;  // nor does writing what cpu() returned
  EXPECT_EQ(values(x.cpu()), (std::vector<float>{1, 2}));
}

TEST_F(LazyDeviceTest, ItemPrintingAndClone) {
  Tensor x = tensor<float>({4}).to(kLazy);
  Tensor y = add(x, x, 1.0);
  Tensor c = y.clone();
  EXPECT_EQ(y.item<float>(), 8);
  EXPECT_EQ(c.item<float>(), 8);
  EXPECT_NE(y.str().find("8."), std::string::npos) << y.str();
}

}  // namespace
}  // namespace lazygen::exec
