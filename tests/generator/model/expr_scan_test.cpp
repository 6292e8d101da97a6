// Tests for the expression scanner (model/expr_scan.h) that validation and the emitters use on
// `pointwise:` expressions and derivative formulas: which identifiers it finds, at which offset,
// and how renaming leaves calls, members and literals alone.
#include "model/expr_scan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace lazygen::gen {
namespace {

std::vector<std::string> names(const std::vector<ExprIdent>& ids) {
  std::vector<std::string> out;
  for (const ExprIdent& id : ids) out.push_back(id.name);
  return out;
}

TEST(ExprScan, FindsIdentifiersWithTheirOffsets) {
  std::vector<ExprIdent> ids = scan_identifiers("self + alpha * other");
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids[0].name, "self");
  EXPECT_EQ(ids[0].offset, 0);
  EXPECT_EQ(ids[1].name, "alpha");
  EXPECT_EQ(ids[1].offset, 7);
  EXPECT_EQ(ids[2].name, "other");
  EXPECT_EQ(ids[2].offset, 15);
  for (const ExprIdent& id : ids) {
    EXPECT_FALSE(id.is_call);
    EXPECT_FALSE(id.is_member);
  }
}

TEST(ExprScan, NameBeforeParenthesisIsACallEvenWithSpaces) {
  std::vector<ExprIdent> ids = scan_identifiers("exp (x) + max(x, y)");
  ASSERT_EQ(names(ids), (std::vector<std::string>{"exp", "x", "max", "x", "y"}));
  EXPECT_TRUE(ids[0].is_call);
  EXPECT_FALSE(ids[1].is_call);
  EXPECT_TRUE(ids[2].is_call);
}

TEST(ExprScan, NameAfterDotIsAMember) {
  std::vector<ExprIdent> ids = scan_identifiers("grad.sum_to(self . shape)");
  ASSERT_EQ(names(ids), (std::vector<std::string>{"grad", "sum_to", "self", "shape"}));
  EXPECT_FALSE(ids[0].is_member);
  EXPECT_TRUE(ids[1].is_member);
  EXPECT_TRUE(ids[1].is_call);
  EXPECT_TRUE(ids[3].is_member);
}

TEST(ExprScan, SkipsNumericLiteralsAndTheirSuffixes) {
  EXPECT_EQ(names(scan_identifiers("1e-5 + 2.0f * x + 0x1F + 3u")),
            (std::vector<std::string>{"x"}));
  EXPECT_EQ(names(scan_identifiers("1.5E+3*y")), (std::vector<std::string>{"y"}));
}

TEST(ExprScan, UnderscoresAndDigitsBelongToIdentifiers) {
  EXPECT_EQ(names(scan_identifiers("_a1 + b_2")), (std::vector<std::string>{"_a1", "b_2"}));
}

TEST(ExprScan, EmptyExpressionHasNoIdentifiers) {
  EXPECT_TRUE(scan_identifiers("").empty());
  EXPECT_TRUE(scan_identifiers("1 + 2").empty());
}

TEST(ExprScan, ACallKeepsItsTopLevelArgumentsTrimmed) {
  const std::vector<ExprIdent> ids = scan_identifiers("where(a < 0, max(a, b) , pow(a,  2))");
  EXPECT_EQ(ids[0].arguments, (std::vector<std::string>{"a < 0", "max(a, b)", "pow(a,  2)"}));
  EXPECT_EQ(ids[0].arity, 3);
  EXPECT_TRUE(scan_identifiers("f( )")[0].arguments.empty());
  EXPECT_EQ(scan_identifiers("f(x, )")[0].arguments, (std::vector<std::string>{"x", ""}));
}

TEST(ExprScan, RenameReplacesVariablesOnly) {
  EXPECT_EQ(rename_variables("self + self.abs() + abs(self)", "self", "a"), "a + a.abs() + abs(a)");
  EXPECT_EQ(rename_variables("x.self + self(x)", "self", "a"), "x.self + self(x)");
}

TEST(ExprScan, RenameMatchesWholeNamesOnly) {
  EXPECT_EQ(rename_variables("selfish + self_ + self", "self", "t"), "selfish + self_ + t");
}

TEST(ExprScan, RenameWithoutMatchesReturnsTheInput) {
  EXPECT_EQ(rename_variables("1e5 + other", "self", "a"), "1e5 + other");
}

TEST(ExprScan, DoubleLiteralsAreWrappedAndOthersKept) {
  EXPECT_EQ(wrap_floating_literals("self * 0.5 * (1 + erf(self * 0.70710678))", "fp<T>"),
            "self * fp<T>(0.5) * (1 + erf(self * fp<T>(0.70710678)))");
  EXPECT_EQ(wrap_floating_literals("x * 1e-5 + 2.0f / .25 - 3", "w"),
            "x * w(1e-5) + 2.0f / w(.25) - 3");
  EXPECT_EQ(wrap_floating_literals("a2 + log10(x) + 0x1F + 7", "w"), "a2 + log10(x) + 0x1F + 7");
  EXPECT_EQ(wrap_floating_literals("where(self < -3, 0, x * 1.5e+3)", "w"),
            "where(self < -3, 0, x * w(1.5e+3))");
}

}  // namespace
}  // namespace lazygen::gen
