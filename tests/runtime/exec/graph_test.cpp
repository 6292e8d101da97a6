// Tests of backend/graph.h: positions, inputs, outputs and the structural hash.
#include "backend/graph.h"

#include <gtest/gtest.h>

#include "core/ir/builtin_nodes.h"
#include "test_nodes.h"

namespace lazygen::exec {
namespace {

using ir::Value;
using testing::f32;
using testing::TestBinary;
using testing::TestLeaf;
using testing::TestOptional;
using testing::TestTwoOutputs;
using testing::TestUnary;

Value input(std::vector<int64_t> sizes, int64_t id = 0) {
  return Value{std::make_shared<TestLeaf>(id, std::vector<Shape>{f32(std::move(sizes))}), 0};
}
Value scalar(const Scalar& s) {
  return Value{std::make_shared<ir::ScalarParam>(s, ir::scalar_param_shapes(s)), 0};
}
Value add(const Value& x, const Value& y, const Scalar& alpha = 1.0) {
  return Value{std::make_shared<TestBinary>(x, y, scalar(alpha), std::vector<Shape>{x.shape()}), 0};
}

TEST(Graph, ListsNodesOperandsInputsAndOutputs) {
  Value x = input({2}), y = input({2}, 1);
  Value sum = add(x, y, 2.0);
  Graph g({sum, x});
  ASSERT_EQ(g.nodes().size(), 4u);  // x, y, alpha, sum
  EXPECT_EQ(g.node(3).op(), TestBinary::kKind);
  EXPECT_EQ(std::vector<ValueRef>(g.operands(3).begin(), g.operands(3).end()),
            (std::vector<ValueRef>{{0, 0}, {1, 0}, {2, 0}}));
  EXPECT_EQ(g.inputs(), (std::vector<uint32_t>{2}));  // only the ScalarParam is an input kind
  EXPECT_EQ(g.outputs(), (std::vector<ValueRef>{{3, 0}, {0, 0}}));
  EXPECT_EQ(g.input_shapes(), (std::vector<Shape>{Shape(DType::Float64, {})}));
}

TEST(Graph, EqualStructuresHashEquallyWhateverTheNodeObjectsAndScalarValues) {
  Value a = add(input({2, 3}), input({2, 3}, 1), 1.0);
  Value b = add(input({2, 3}), input({2, 3}, 1), 5.0);
  EXPECT_EQ(Graph({a}).hash(), Graph({b}).hash());
}

TEST(Graph, SharingChangesTheHash) {
  // Equal dag hashes (the leaves have equal shapes and ids), different graphs: one input or two.
  Value x = input({2}), y = input({2});
  Value two_inputs = add(x, y), one_input = add(x, x);
  EXPECT_EQ(two_inputs.node->dag_hash(), one_input.node->dag_hash());
  EXPECT_NE(Graph({two_inputs}).hash(), Graph({one_input}).hash());
}

TEST(Graph, InputShapesAndOutputsChangeTheHash) {
  Value x = input({2}), y = input({3});
  EXPECT_NE(Graph({add(x, x)}).hash(), Graph({add(y, y)}).hash());
  Value s = add(x, x);
  EXPECT_NE(Graph({s}).hash(), Graph({s, x}).hash());
  EXPECT_NE(Graph({s, x}).hash(), Graph({x, s}).hash());
}

TEST(Graph, RecordsMultiOutputAndAbsentOperands) {
  Value x = input({2});
  auto two = std::make_shared<TestTwoOutputs>(x, std::vector<Shape>{f32({2}), f32({2})});
  Value opt{std::make_shared<TestOptional>(Value{two, 1}, Value{}, x, std::vector<Shape>{f32({2})}),
            0};
  Graph g({opt, Value{two, 0}});
  auto ops = g.operands(2);
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0], (ValueRef{1, 1}));
  EXPECT_FALSE(ops[1].present());
  EXPECT_EQ(ops[2], (ValueRef{0, 0}));
  EXPECT_EQ(g.outputs()[1], (ValueRef{1, 0}));
  EXPECT_NE(g.hash(), Graph({opt, Value{two, 1}}).hash());
}

TEST(Graph, RejectsAbsentOutputs) {
  EXPECT_THROW(Graph({Value{}}), std::invalid_argument);
}

}  // namespace
}  // namespace lazygen::exec
