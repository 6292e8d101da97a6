// Tests of core/ir/inline_vector.h: elements kept inline up to N and on the heap beyond, through
// construction, growth and moves; and operand_list (attrs.h) flattening into it.
#include "core/ir/inline_vector.h"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/attrs.h"
#include "test_nodes.h"

namespace lazygen::ir {
namespace {

using Strings = InlineVector<std::string, 2>;

std::vector<std::string> contents(const Strings& v) {
  return {v.begin(), v.end()};
}

// Whether v's elements lie inside v itself.
bool is_inline(const Strings& v) {
  const auto* p = reinterpret_cast<const char*>(v.data());
  const auto* self = reinterpret_cast<const char*>(&v);
  return p >= self && p < self + sizeof v;
}

TEST(InlineVector, HoldsUpToNInline) {
  Strings v{"a", "b"};
  EXPECT_EQ(contents(v), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(is_inline(v));
  EXPECT_TRUE(is_inline(Strings{}));
  EXPECT_TRUE(Strings{}.empty());
}

TEST(InlineVector, GrowsOntoTheHeapKeepingItsElements) {
  Strings v{"a", "b"};
  v.push_back("c");
  v.push_back("d");
  v.push_back("e");
  EXPECT_FALSE(is_inline(v));
  EXPECT_EQ(contents(v), (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(v.size(), 5u);
  EXPECT_EQ(v[4], "e");
}

TEST(InlineVector, TakesAStdVectorInlineOrOnTheHeap) {
  Strings small(std::vector<std::string>{"x"});
  EXPECT_TRUE(is_inline(small));
  EXPECT_EQ(contents(small), (std::vector<std::string>{"x"}));
  Strings big(std::vector<std::string>{"x", "y", "z"});
  EXPECT_FALSE(is_inline(big));
  EXPECT_EQ(contents(big), (std::vector<std::string>{"x", "y", "z"}));
}

TEST(InlineVector, MovesLeaveTheSourceEmpty) {
  for (const auto& init :
       {std::vector<std::string>{"a"}, std::vector<std::string>{"a", "b", "c"}}) {
    Strings from{std::vector<std::string>(init)};
    Strings to(std::move(from));
    EXPECT_EQ(contents(to), init);
    EXPECT_TRUE(from.empty());  // NOLINT(bugprone-use-after-move): moved-from state is specified
    from.push_back("again");    // a moved-from vector is usable
    EXPECT_EQ(contents(from), (std::vector<std::string>{"again"}));

    Strings assigned{"old", "older", "oldest"};
    assigned = std::move(to);
    EXPECT_EQ(contents(assigned), init);
    EXPECT_TRUE(to.empty());  // NOLINT(bugprone-use-after-move)
  }
}

TEST(InlineVector, AtChecksItsIndex) {
  Strings v{"a"};
  EXPECT_EQ(v.at(0), "a");
  EXPECT_THROW(v.at(1), std::out_of_range);
  EXPECT_EQ(v.span().size(), 1u);
}

TEST(InlineVector, OperandListFlattensPartsInOrder) {
  auto leaf = [](int64_t id) {
    return Value{std::make_shared<testing::TestLeaf>(id, std::vector<Shape>{testing::f32({2})}), 0};
  };
  const Value a = leaf(1), b = leaf(2), c = leaf(3), d = leaf(4);
  const Operands three = operand_list(a, std::vector<Value>{b}, c);
  EXPECT_EQ(std::vector<Value>(three.begin(), three.end()), (std::vector<Value>{a, b, c}));
  const Operands five = operand_list(a, std::vector<Value>{b, c, d}, Value{});
  EXPECT_EQ(std::vector<Value>(five.begin(), five.end()),
            (std::vector<Value>{a, b, c, d, Value{}}));
}

}  // namespace
}  // namespace lazygen::ir
