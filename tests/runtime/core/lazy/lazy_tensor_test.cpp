// Tests of core/lazy/: lazy tensor states, IR values of tensors and scalars, in-place updates,
// the live registry and the end of a trace.
#include "core/lazy/lazy_tensor.h"

#include <gtest/gtest.h>

#include "core/ir/builtin_nodes.h"
#include "core/ir/trie_cache.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/factory.h"
#include "test_nodes.h"

namespace lazygen::lazy {
namespace {

using testing::lazy_zeros;
using testing::TestUnary;

class LazyTensorTest : public ::testing::Test {
 protected:
  void SetUp() override { ir::TrieCache::current().reset(); }
  void TearDown() override { ir::TrieCache::current().reset(); }

  static Tensor unary(const Tensor& x) {
    ir::Value v = ir_value(x);
    return make_lazy_tensor(ir::cached_node<TestUnary>(v, std::vector<Shape>{v.shape()}), 0,
                            x.device());
  }
};

TEST_F(LazyTensorTest, ATensorFromDataIsMaterialized) {
  Tensor x = lazy_zeros({2, 3});
  EXPECT_TRUE(x.device().is_lazy());
  EXPECT_EQ(x.shape(), Shape(DType::Float32, {2, 3}));
  EXPECT_FALSE(lazy_state(x).pending());
  EXPECT_FALSE(lazy_state(x).value.present());
}

TEST_F(LazyTensorTest, IrValueOfDataIsOneDeviceDataNodePerTrace) {
  Tensor x = lazy_zeros({2});
  ir::Value v = ir_value(x);
  ASSERT_EQ(v.node->op(), ir::op_kind("device_data"));
  EXPECT_TRUE(static_cast<const ir::DeviceData&>(*v.node).data().is_same(lazy_state(x).data));
  EXPECT_EQ(ir_value(x), v);  // bound once, then reused within the trace
}

TEST_F(LazyTensorTest, OpsMakePendingTensors) {
  Tensor x = lazy_zeros({4});
  Tensor y = unary(x);
  EXPECT_TRUE(lazy_state(y).pending());
  EXPECT_EQ(y.shape(), Shape(DType::Float32, {4}));
  EXPECT_EQ(ir_value(y).node->op(), TestUnary::kKind);
  EXPECT_EQ(ir_value(y).node->operands()[0], ir_value(x));
}

TEST_F(LazyTensorTest, SetIrValueReplacesTheValueAndDropsTheData) {
  Tensor x = lazy_zeros({3});
  Tensor data = lazy_state(x).data;
  Tensor y = unary(x);
  set_ir_value(x, ir_value(y));
  EXPECT_TRUE(lazy_state(x).pending());
  EXPECT_EQ(lazy_state(x).value, ir_value(y));
  // x no longer refers to its old buffer; only the DeviceData node feeding y does.
  EXPECT_FALSE(lazy_state(x).data.defined());
  EXPECT_EQ(data.impl_ptr().use_count(), 2);  // `data` here and the DeviceData node
}

TEST_F(LazyTensorTest, SetIrValueRejectsAnotherShape) {
  Tensor x = lazy_zeros({3});
  Tensor y = unary(lazy_zeros({4}));
  EXPECT_THROW(set_ir_value(x, ir_value(y)), std::invalid_argument);
  EXPECT_THROW(set_ir_value(x, ir::Value{}), std::invalid_argument);
}

TEST_F(LazyTensorTest, OptionalAndListValues) {
  Tensor x = lazy_zeros({1});
  EXPECT_FALSE(ir_value(std::optional<Tensor>()).present());
  EXPECT_EQ(ir_value(std::optional<Tensor>(x)), ir_value(x));
  std::vector<ir::Value> vs = ir_values({x, x});
  EXPECT_EQ(vs.size(), 2u);
  EXPECT_EQ(vs[0], vs[1]);
}

TEST_F(LazyTensorTest, IrValueRejectsNonLazyTensors) {
  EXPECT_THROW(ir_value(zeros({2})), std::invalid_argument);
  EXPECT_THROW(ir_value(Tensor()), std::invalid_argument);
  EXPECT_THROW(make_lazy_tensor_from_data(zeros({2}), kCPU), std::invalid_argument);
}

TEST_F(LazyTensorTest, ScalarValuesAreParametersOfTheirDTypeCategory) {
  ir::Value a = scalar_value(0.5);
  EXPECT_EQ(a.node->op(), ir::op_kind("scalar_param"));
  EXPECT_EQ(a.shape(), Shape(DType::Float64, {}));
  EXPECT_EQ(scalar_value(true).shape(), Shape(DType::Bool, {}));
  EXPECT_EQ(scalar_value(3).shape(), Shape(DType::Int64, {}));
}

TEST_F(LazyTensorTest, TheRegistryTracksLiveTensors) {
  size_t before = live_state_count();
  {
    Tensor x = lazy_zeros({1});
    Tensor y = unary(x);
    EXPECT_EQ(live_state_count(), before + 2);
    bool found = false;
    for (const auto& s : live_states()) found = found || s.get() == &lazy_state(y);
    EXPECT_TRUE(found);
  }
  EXPECT_EQ(live_state_count(), before);
}

TEST_F(LazyTensorTest, EndTraceRequiresEverythingSynced) {
  Tensor x = lazy_zeros({2});
  Tensor y = unary(x);
  EXPECT_THROW(end_trace(), std::logic_error);
}

TEST_F(LazyTensorTest, EndTraceUnbindsAndReleasesDeviceDataAndRewindsTheTrie) {
  Tensor x = lazy_zeros({2});
  ir::NodePtr dd = ir_value(x).node;
  end_trace();
  EXPECT_FALSE(lazy_state(x).value.present());
  EXPECT_FALSE(static_cast<const ir::DeviceData&>(*dd).data().defined());
  EXPECT_TRUE(ir::TrieCache::current().at_root());
  // The next trace rebinds the same node to the data.
  EXPECT_EQ(ir_value(x).node, dd);
  EXPECT_TRUE(static_cast<const ir::DeviceData&>(*dd).data().is_same(lazy_state(x).data));
}

}  // namespace
}  // namespace lazygen::lazy
