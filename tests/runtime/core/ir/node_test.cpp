// Tests of core/ir/node.h: node hash vs dag hash, operand presence, multi-output values, names.
#include "core/ir/node.h"

#include <gtest/gtest.h>

#include "lazygen/metrics.h"
#include "test_nodes.h"

namespace lazygen::ir {
namespace {

using testing::f32;
using testing::TestFloatAttr;
using testing::TestLeaf;
using testing::TestOptional;
using testing::TestTwoOutputs;
using testing::TestUnary;

Value leaf(int64_t id, std::vector<int64_t> sizes = {2, 3}) {
  return Value{std::make_shared<TestLeaf>(id, std::vector<Shape>{f32(std::move(sizes))}), 0};
}
Value unary(const Value& x) {
  return Value{std::make_shared<TestUnary>(x, std::vector<Shape>{x.shape()}), 0};
}

TEST(Node, EqualConstructionGivesEqualHashes) {
  Value a = unary(leaf(1)), b = unary(leaf(1));
  EXPECT_NE(a.node, b.node);
  EXPECT_EQ(a.node->node_hash(), b.node->node_hash());
  EXPECT_EQ(a.node->dag_hash(), b.node->dag_hash());
}

TEST(Node, NodeHashIgnoresOperandsButDagHashDoesNot) {
  Value once = unary(leaf(1));
  Value twice = unary(unary(leaf(1)));
  EXPECT_EQ(once.node->node_hash(), twice.node->node_hash());
  EXPECT_NE(once.node->dag_hash(), twice.node->dag_hash());
  EXPECT_NE(unary(leaf(1)).node->dag_hash(), unary(leaf(2)).node->dag_hash());
}

TEST(Node, HashesCoverAttributesAndShapes) {
  Value x = leaf(1);
  auto attr = [&](double v) { return TestFloatAttr(x, v, {x.shape()}).node_hash(); };
  EXPECT_NE(attr(1.0), attr(2.0));
  EXPECT_NE(attr(0.0), attr(-0.0));
  EXPECT_NE(leaf(1, {2, 3}).node->node_hash(), leaf(1, {3, 2}).node->node_hash());
}

TEST(Node, OperandPresenceIsPartOfTheNodeHash) {
  Value x = leaf(1), w = leaf(2);
  TestOptional bias_only(x, w, Value{}, {x.shape()});
  TestOptional weight_only(x, Value{}, w, {x.shape()});
  EXPECT_NE(bias_only.node_hash(), weight_only.node_hash());
  EXPECT_NE(bias_only.dag_hash(), weight_only.dag_hash());
}

TEST(Node, ValuesOfAMultiOutputNode) {
  Value x = leaf(1);
  auto node =
      std::make_shared<TestTwoOutputs>(x, std::vector<Shape>{f32({2}), Shape(DType::Int64, {2})});
  Value values{node, 0}, indices{node, 1};
  EXPECT_EQ(node->num_outputs(), 2u);
  EXPECT_EQ(indices.shape(), Shape(DType::Int64, {2}));
  EXPECT_NE(values.hash(), indices.hash());
  EXPECT_FALSE(values == indices);
  EXPECT_TRUE(values == (Value{node, 0}));
}

TEST(Node, AbsentValues) {
  Value none;
  EXPECT_FALSE(none.present());
  EXPECT_EQ(none.hash(), Value{}.hash());
  EXPECT_THROW(none.shape(), std::logic_error);
}

TEST(Node, OperandsMatchComparesIdentityAndPresence) {
  Value x = leaf(1), w = leaf(2);
  TestOptional n(x, w, Value{}, {x.shape()});
  EXPECT_TRUE(n.can_reuse(x, w, Value{}));
  EXPECT_FALSE(n.can_reuse(x, Value{}, w));
  EXPECT_FALSE(n.can_reuse(x, leaf(2), Value{}));  // an equal but distinct node
}

TEST(Node, NamesAndToString) {
  EXPECT_STREQ(op_kind_name(op_kind("device_data")), "device_data");
  EXPECT_STREQ(op_kind_class_name(op_kind("scalar_param")), "ScalarParam");
  EXPECT_STREQ(op_kind_name(TestLeaf::kKind), "test.leaf");
  EXPECT_STREQ(op_kind_class_name(TestLeaf::kKind), "TestLeaf");
  EXPECT_EQ(leaf(7).node->to_string(), "TestLeaf(id=7)");
  EXPECT_EQ(unary(leaf(7)).node->to_string(), "TestUnary()");
  EXPECT_THROW(op_kind_name(op_kind("no.such_op")), std::out_of_range);
}

// Note [Op kinds]: a kind is its name's hash, the same in every build whatever ops.yaml holds.
TEST(Node, KindsAreTheHashOfTheirName) {
  EXPECT_EQ(static_cast<uint32_t>(op_kind("")), 2166136261u);  // FNV-1a's offset basis
  EXPECT_EQ(static_cast<uint32_t>(op_kind("a")), 0xe40c292cu);  // FNV-1a 32 of "a"
  EXPECT_STREQ(op_kind_name(op_kind("add.Tensor")), "add.Tensor");
  EXPECT_STREQ(op_kind_class_name(op_kind("add.Tensor")), "AddTensor");
  static_assert(op_kind("mm") != op_kind("bmm"));
}

TEST(Node, RegisteringAKindAgainReturnsItAndACollisionThrows) {
  EXPECT_EQ(register_op_kind("test.leaf", "TestLeaf"), TestLeaf::kKind);
  // "add.Tensor" is taken by a generated op: a different class under that name is refused.
  EXPECT_THROW(register_op_kind("add.Tensor", "MyAdd"), std::invalid_argument);
  EXPECT_STREQ(op_kind_class_name(op_kind("add.Tensor")), "AddTensor");
}

TEST(Node, CountsCreatedNodes) {
  int64_t before = metrics::counter_value("ir.nodes_created");
  unary(leaf(1));
  EXPECT_EQ(metrics::counter_value("ir.nodes_created"), before + 2);
}

TEST(Node, ReleasingALongChainDoesNotRecurse) {
  Value v = leaf(0);
  for (int i = 0; i < 1000000; ++i) v = unary(v);
  v = Value{};  // a recursive release of a million nodes would overflow the stack
  SUCCEED();
}

}  // namespace
}  // namespace lazygen::ir
