// Tests of core/ir/post_order.h: operands first, shared nodes once, cycles reported.
#include "core/ir/post_order.h"

#include <gtest/gtest.h>

#include "test_nodes.h"

namespace lazygen::ir {
namespace {

using testing::f32;
using testing::TestBinary;
using testing::TestLeaf;
using testing::TestOptional;
using testing::TestUnary;

NodePtr leaf(int64_t id) {
  return std::make_shared<TestLeaf>(id, std::vector<Shape>{f32({2})});
}
NodePtr unary(const NodePtr& x) {
  return std::make_shared<TestUnary>(Value{x, 0}, std::vector<Shape>{f32({2})});
}
NodePtr binary(const NodePtr& x, const NodePtr& y) {
  return std::make_shared<TestBinary>(Value{x, 0}, Value{y, 0}, Value{leaf(99), 0},
                                      std::vector<Shape>{f32({2})});
}

TEST(PostOrder, VisitsADiamondOnceOperandsFirst) {
  NodePtr a = leaf(1);
  NodePtr b = unary(a), c = unary(a);
  NodePtr d = binary(b, c);
  std::vector<const Node*> order = post_order(std::vector<const Node*>{d.get()});
  ASSERT_EQ(order.size(), 5u);  // a, b, c, alpha leaf, d
  EXPECT_EQ(order[0], a.get());
  EXPECT_EQ(order[1], b.get());
  EXPECT_EQ(order[2], c.get());
  EXPECT_EQ(order[4], d.get());
}

TEST(PostOrder, SharedNodesAcrossRootsAppearOnce) {
  NodePtr a = leaf(1);
  NodePtr b = unary(a), c = unary(b);
  std::vector<const Node*> order = post_order(std::vector<Value>{{c, 0}, {b, 0}, {a, 0}});
  EXPECT_EQ(order, (std::vector<const Node*>{a.get(), b.get(), c.get()}));
}

TEST(PostOrder, SkipsAbsentOperandsAndRoots) {
  NodePtr a = leaf(1);
  auto opt =
      std::make_shared<TestOptional>(Value{a, 0}, Value{}, Value{}, std::vector<Shape>{f32({2})});
  std::vector<const Node*> order = post_order(std::vector<Value>{{opt, 0}, Value{}});
  EXPECT_EQ(order, (std::vector<const Node*>{a.get(), opt.get()}));
}

TEST(PostOrder, ReportsACycleNamingTheNode) {
  NodePtr a = leaf(1);
  NodePtr b = unary(a);
  NodePtr c = unary(b);
  // b -> c -> b. The back edge does not own c (aliasing constructor), so nothing leaks.
  b->add_operand_for_testing(Value{NodePtr(NodePtr(), c.get()), 0});
  try {
    post_order(std::vector<const Node*>{c.get()});
    FAIL() << "expected IrCycleError";
  } catch (const IrCycleError& e) {
    EXPECT_NE(std::string(e.what()).find("cycle through node TestUnary()"), std::string::npos)
        << e.what();
  }
}

TEST(PostOrder, HandlesDeepChainsWithoutRecursion) {
  NodePtr v = leaf(0);
  for (int i = 0; i < 200000; ++i) v = unary(v);
  EXPECT_EQ(post_order(std::vector<const Node*>{v.get()}).size(), 200001u);
}

}  // namespace
}  // namespace lazygen::ir
