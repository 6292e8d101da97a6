// Which `pointwise:` expressions run in register chains (generator/dest/tile_kernels.cpp,
// chainable_expression; See Note [Lane semantics] in runtime/backend/cpu/fusion/lanes.h).
#include <gtest/gtest.h>

#include "dest/emit.h"

namespace lazygen::gen::dest {
namespace {

TEST(ChainableExpression, OperatorsComparisonsIntegerLiteralsAndLaneCallsChain) {
  EXPECT_TRUE(chainable_expression("self + alpha * other"));
  EXPECT_TRUE(chainable_expression("max(self, 0)"));
  EXPECT_TRUE(chainable_expression("where(self <= threshold, 0, grad_output)"));
  EXPECT_TRUE(chainable_expression("self != other"));
  EXPECT_TRUE(chainable_expression("1 / self"));
  EXPECT_TRUE(chainable_expression("-abs(min(self, other))"));
  EXPECT_TRUE(chainable_expression("value"));
}

TEST(ChainableExpression, FloatingLiteralsAreRefusedBecauseScalarCodeComputesThemInDouble) {
  EXPECT_FALSE(chainable_expression("self * 0.5"));
  EXPECT_FALSE(chainable_expression("self + 1e-5"));
  EXPECT_FALSE(chainable_expression("self * 2.0f"));
  EXPECT_FALSE(chainable_expression("self * 2u"));
  EXPECT_FALSE(chainable_expression("self + 0x10"));
}

TEST(ChainableExpression, CallsLeavingTheVectorAndOtherOperatorsAreRefused) {
  for (const char* e :
       {"exp(self)", "log(self)", "tanh(self)", "sigmoid(self)", "pow(self, exponent)",
        "sqrt(self)", "rsqrt(self)", "self % other", "self > 0 ? self : other", "!self",
        "self && other", "self & other", "self.abs()", "std::max(self, other)", "self[0]"}) {
    EXPECT_FALSE(chainable_expression(e)) << e;
  }
}

}  // namespace
}  // namespace lazygen::gen::dest
