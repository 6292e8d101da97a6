// Register chains (runtime/backend/cpu/fusion/chain_kernels.h; See Note [Register chains]): the
// fused interpreter's results with chains equal its results without them and eager's, bit for
// bit, for whole strips and tails, broadcast and 0-dim operands, Scalars, float64, values read
// after the chain, and streamed outputs written straight from registers (aligned or not); with
// NaN operands on both sides of an op, up to the NaN's sign (See Note [Lane semantics]).
#include "backend/cpu/fusion/chain_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "backend/cpu/fusion/group_program.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/isnan.h"
#include "lazygen/generated/ops/maximum.h"
#include "lazygen/generated/ops/minimum.h"
#include "lazygen/generated/ops/neg.h"
#include "lazygen/generated/ops/reciprocal.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/where.h"
#include "runtime/fusion/fusion_test_util.h"

namespace lazygen::cpu::fusion {
namespace {

using lazygen::testing::bitwise_equal;
using lazygen::testing::Program;
using lazygen::testing::to_lazy;
using Ts = std::vector<Tensor>;

// Float32 tensors equal bit for bit except that NaNs equal NaNs of any sign and payload.
::testing::AssertionResult equal_up_to_nans(const Tensor& a, const Tensor& b) {
  Tensor ca = a.cpu().contiguous(), cb = b.cpu().contiguous();
  if (ca.shape() != cb.shape() || ca.dtype() != DType::Float32) return bitwise_equal(a, b);
  for (int64_t i = 0; i < ca.numel(); ++i) {
    const float x = ca.data_ptr<float>()[i], y = cb.data_ptr<float>()[i];
    if (std::isnan(x) && std::isnan(y)) continue;
    if (std::memcmp(&x, &y, sizeof x) != 0) {
      return ::testing::AssertionFailure() << "element " << i << ": " << x << " vs " << y;
    }
  }
  return ::testing::AssertionSuccess();
}

class RegisterChainTest : public lazygen::testing::FusionTest {
 protected:
  void TearDown() override {
    set_register_chains_enabled(true);
    set_aot_enabled(true);
    FusionTest::TearDown();
  }

  // `program` fused with chains, fused without them (AOT kernels off: the interpreter runs
  // every group) and eager: equal bit for bit, or (any_nan) with every NaN equal to every NaN.
  void expect_chains_match(const Program& program, const Ts& inputs, bool any_nan = false) {
    set_aot_enabled(false);
    const Ts eager = program(inputs);
    Ts runs[2];
    for (int chains = 0; chains < 2; ++chains) {
      set_register_chains_enabled(chains == 1);
      runs[chains] = program(to_lazy(inputs));
      sync(runs[chains]);
      mark_step();
    }
    ASSERT_EQ(eager.size(), runs[1].size());
    for (size_t k = 0; k < eager.size(); ++k) {
      const auto equal = any_nan ? equal_up_to_nans : bitwise_equal;
      EXPECT_TRUE(equal(runs[1][k], eager[k])) << "output " << k << " (chains on)";
      EXPECT_TRUE(equal(runs[1][k], runs[0][k])) << "output " << k << " (on vs off)";
    }
  }
};

// x * w + b with a row broadcast, a column broadcast (stride 0: splat buffers), a 0-dim tensor
// and Scalars, a comparison feeding where, relu, and an op that ends the chain (exp).
Ts mixed(const Ts& in) {
  const Tensor a = (in[0] * in[1] + in[2]) * 3 - in[3];
  const Tensor b = where(a > 0.5, a, in[2] * 2) - 1;
  return {relu(b) / (abs(a) + 1), exp(a * 0.5) + 1};
}

Ts mixed_inputs(int64_t rows, int64_t cols, DType dtype = DType::Float32) {
  return {randn({rows, cols}, dtype), randn({cols}, dtype), randn({rows, 1}, dtype),
          randn({}, dtype)};
}

TEST_F(RegisterChainTest, WholeStripsAndTailsWithBroadcastsAndScalarsMatch) {
  expect_chains_match(mixed, mixed_inputs(37, 45));   // rows shorter than a strip: tails only
  expect_chains_match(mixed, mixed_inputs(9, 1000));  // strips and a tail per row
  expect_chains_match(mixed, mixed_inputs(1, 64));    // exactly one strip
}

TEST_F(RegisterChainTest, Float64ChainsMatch) {
  expect_chains_match(mixed, mixed_inputs(7, 301, DType::Float64));
}

TEST_F(RegisterChainTest, ValuesReadAfterTheChainKeepTheirRegister) {
  auto program = [](const Ts& in) {  // a is stored, then read by two more ops
    const Tensor a = relu(in[0] * 2 + 1) - 0.25;
    return Ts{a, a > 0.25, a * in[1]};
  };
  expect_chains_match(program, {randn({5000}), randn({1})});
  expect_chains_match(program, {randn({stream_bytes() / 4}), randn({1})});  // outputs streamed
}

TEST_F(RegisterChainTest, StreamedOutputsMatchWhetherAlignedOrNot) {
  auto program = [](const Ts& in) { return Ts{relu(in[0] * 1.5 + in[1]) - 0.25}; };
  // Contiguous streaming elements: every tile's output is vector-aligned, streamed from registers.
  expect_chains_match(program, {randn({stream_bytes() / 4}), randn({1})});
  // Rows of 1027 (a column broadcast keeps rows apart): most rows start unaligned.
  const int64_t rows = stream_bytes() / (4 * 1027) + 1;
  expect_chains_match(program, {randn({rows, 1027}), randn({rows, 1})});
}

TEST_F(RegisterChainTest, SpecialValuesMatch) {
  auto program = [](const Ts& in) {
    const Tensor m = maximum(in[0] * in[1], in[1]) - minimum(in[0], in[1]) / in[1];
    return Ts{reciprocal(neg(m)) + in[0], where(in[0] != in[1], in[0] * 2, in[1]) + in[0]};
  };
  const float inf = std::numeric_limits<float>::infinity(),
              nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a, b;
  const float special[] = {0.0f, -0.0f, inf, -inf, nan, 1e-45f, -2.5f, 3.0f};
  for (int rep = 0; rep < 20; ++rep) {  // every pair, over more than one strip
    for (float x : special) {
      for (float y : special) {
        a.push_back(x);
        b.push_back(y);
      }
    }
  }
  const auto n = static_cast<int64_t>(a.size());
  // NaN + NaN may give either operand's NaN: GCC commutes + and * (eager kernels included).
  expect_chains_match(program, {tensor(a, IntList{n}), tensor(b, IntList{n})}, true);
}

}  // namespace
}  // namespace lazygen::cpu::fusion
