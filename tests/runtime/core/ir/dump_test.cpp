// Tests of core/ir/dump.h: the text and Graphviz forms of a small graph.
#include "core/ir/dump.h"

#include <gtest/gtest.h>

#include "core/ir/builtin_nodes.h"
#include "test_nodes.h"

namespace lazygen::ir {
namespace {

using testing::f32;
using testing::TestBinary;
using testing::TestLeaf;
using testing::TestOptional;
using testing::TestTwoOutputs;

struct Graph {
  Value x, two, sum, values, opt;
};

Graph small_graph() {
  Graph g;
  g.x = Value{std::make_shared<TestLeaf>(1, std::vector<Shape>{f32({2, 3})}), 0};
  g.two = Value{std::make_shared<ScalarParam>(Scalar(2.0), scalar_param_shapes(Scalar(2.0))), 0};
  g.sum = Value{std::make_shared<TestBinary>(g.x, g.x, g.two, std::vector<Shape>{f32({2, 3})}), 0};
  auto two_out = std::make_shared<TestTwoOutputs>(
      g.sum, std::vector<Shape>{f32({2}), Shape(DType::Int64, {2})});
  g.values = Value{two_out, 1};
  g.opt = Value{std::make_shared<TestOptional>(g.values, Value{}, g.sum,
                                               std::vector<Shape>{Shape(DType::Int64, {2})}),
                0};
  return g;
}

TEST(Dump, TextListsOneNodePerLineWithShapesAndAttributes) {
  Graph g = small_graph();
  EXPECT_EQ(dump_text({g.opt, g.sum}),
            "IR {\n"
            "  %0 = TestLeaf(id=1) : float32[2, 3]\n"
            "  %1 = ScalarParam(value=2.0) : float64[]\n"
            "  %2 = TestBinary(%0, %0, %1) : float32[2, 3]  # root 1\n"
            "  %3 = TestTwoOutputs(%2) : (float32[2], int64[2])\n"
            "  %4 = TestOptional(%3.1, None, %2) : int64[2]  # root 0\n"
            "}\n");
}

TEST(Dump, DotDrawsNodesAndOperandEdges) {
  Graph g = small_graph();
  std::string dot = dump_dot({g.opt});
  EXPECT_EQ(dot.rfind("digraph IR {\n", 0), 0u);
  EXPECT_NE(dot.find("n0 [label=\"%0 TestLeaf(id=1)\\nfloat32[2, 3]\"];"), std::string::npos)
      << dot;
  EXPECT_NE(dot.find("n0 -> n2 [label=\"0\"];"), std::string::npos) << dot;
  EXPECT_NE(dot.find("n0 -> n2 [label=\"1\"];"), std::string::npos) << dot;
  EXPECT_NE(dot.find("n3 -> n4 [label=\"0 (out 1)\"];"), std::string::npos) << dot;
  EXPECT_NE(dot.find("n2 -> n4 [label=\"2\"];"), std::string::npos) << dot;
  EXPECT_NE(dot.find("style=bold"), std::string::npos);
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
}

TEST(Dump, EmptyRootsGiveAnEmptyGraph) {
  EXPECT_EQ(dump_text({}), "IR {\n}\n");
}

}  // namespace
}  // namespace lazygen::ir
