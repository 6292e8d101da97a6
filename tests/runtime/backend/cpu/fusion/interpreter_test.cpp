// The blocked vector interpreter's folds of reductions over leading dims (See Note [Leading
// reduction parts]), run fused on the lazy device against eager cpu results. Every program here
// must really fold: each case checks the `fusion.end.leading_reduction` counter.
//
// Exactness. With one row part (groups under 64K elements, or 8+ column blocks of 1024 outputs)
// each output adds its rows in order in the eager kernel's accumulator, as the eager Outer
// layout does, so float32 and float64 results equal eager's bit for bit. With several parts
// the partial sums are grouped differently: still double accumulators, so float32 results are
// within a rounding of eager's (1e-6 relative to 1 + |eager|) and float64 within 1e-12. Integer
// sums and amax do not depend on the order and are always exact.
#include "backend/cpu/fusion/interpreter.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/thread_pool.h"
#include "examples/tutorial_models.h"
#include "exec/graph_executor.h"
#include "lazygen/autograd.h"
#include "lazygen/generated/ops/amax.h"
#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/nll_loss.h"
#include "lazygen/generated/ops/permute.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/optim/optimizer.h"
#include "runtime/fusion/fusion_test_util.h"

namespace lazygen::cpu::fusion {
namespace {

using lazygen::testing::bitwise_equal;
using lazygen::testing::close_to;
using lazygen::testing::expect_fused_matches_eager;
using lazygen::testing::Program;
using lazygen::testing::to_lazy;
using Ts = std::vector<Tensor>;
using Dims = std::vector<int64_t>;

class LeadingReductionTest : public lazygen::testing::FusionTest {
 protected:
  // `program` fused equals eager (to `tol` when > 0), and folded `folds` leading reductions.
  // Each case is planned anew (a new size of an earlier case's program would specialize that
  // plan, See Note [Dynamic shapes] in backend/graph.h), so the counter sees this case's plan.
  void expect_folds(const Program& program, const Ts& inputs, int folds, double tol = 0) {
    exec::GraphExecutor::global().clear_cache();
    const int64_t before = metrics::counter_value("fusion.end.leading_reduction");
    expect_fused_matches_eager(program, inputs, tol);
    EXPECT_EQ(metrics::counter_value("fusion.end.leading_reduction"), before + folds);
  }
};

// A chain with a broadcast row, a broadcast column and a transposed view of an input.
Tensor chain(const Ts& in) {
  return relu(in[0] * in[1] + t(in[2])) - in[3] * 0.5;  // [R, C] * [C] + [C, R]^T - [R, 1]
}

Ts chain_inputs(int64_t rows, int64_t cols, DType dtype = DType::Float32) {
  return {randn({rows, cols}, dtype), randn({cols}, dtype), randn({cols, rows}, dtype),
          randn({rows, 1}, dtype)};
}

Ts sum_and_mean(const Ts& in) {
  const Tensor a = chain(in);
  return {sum(a, Dims{0}), mean(a, Dims{0}, true)};
}

TEST_F(LeadingReductionTest, SumAndMeanOverTheFirstDimEqualEagerBitForBitInOnePart) {
  expect_folds(sum_and_mean, chain_inputs(64, 128), 1);  // an MLP bias gradient's shape
  expect_folds(sum_and_mean, chain_inputs(64, 128, DType::Float64), 1);
  expect_folds(sum_and_mean, chain_inputs(37, 13), 1);    // inner not a multiple of a vector
  expect_folds(sum_and_mean, chain_inputs(2000, 3), 1);   // rows shorter than a tile: wrap
  expect_folds(sum_and_mean, chain_inputs(40, 9000), 1);  // 9 column blocks, both threads
  expect_folds(sum_and_mean, chain_inputs(40, 9000, DType::Float64), 1);
}

TEST_F(LeadingReductionTest, LargeGroupsSplitIntoRowPartsAndStayWithinRounding) {
  expect_folds(sum_and_mean, chain_inputs(4096, 100), 1, 1e-6);   // 6 parts
  expect_folds(sum_and_mean, chain_inputs(100000, 3), 1, 1e-6);   // 4 parts, short rows
  expect_folds(sum_and_mean, chain_inputs(3000, 2500), 1, 1e-6);  // 2 parts x 3 blocks
  expect_folds(sum_and_mean, chain_inputs(3000, 1025, DType::Float64), 1, 1e-12);
}

TEST_F(LeadingReductionTest, SumsOverTwoLeadingDimsKeepTheLastOne) {
  auto program = [](const Ts& in) {
    const Tensor a = exp(in[0] * 0.5) * in[1];  // [N, C, K] * [K]
    return Ts{sum(a, Dims{0, 1}), mean(a, Dims{0, 1}, true)};
  };
  expect_folds(program, {randn({6, 5, 7}), randn({7})}, 1);
  expect_folds(program, {randn({32, 50, 33}, DType::Float64), randn({33}, DType::Float64)}, 1);
  expect_folds(program, {randn({64, 64, 96}), randn({96})}, 1, 1e-6);
}

TEST_F(LeadingReductionTest, ViewsInsideTheChainAndKeptSizeOneDims) {
  auto program = [](const Ts& in) {
    const Tensor a = permute(in[0], {1, 0, 2}) * unsqueeze(in[1], 1);  // [5, 4, 6] * [5, 1, 6]
    return Ts{sum(a + 1.0, Dims{0, 1}, true)};
  };
  expect_folds(program, {randn({4, 5, 6}), randn({5, 6})}, 1);
  auto kept_one = [](const Ts& in) { return Ts{sum(in[0] * 2.0, Dims{0, 2})}; };  // [9, 1, 4, 3]
  expect_folds(kept_one, {randn({9, 1, 4, 3})}, 1);
}

TEST_F(LeadingReductionTest, IntegerSumsAndAmaxAreExactWithNans) {
  auto ints = [](const Ts& in) { return Ts{sum(in[0] * 3 + in[1], Dims{0})}; };
  expect_folds(ints, {randint(-100, 100, {5000, 33}), randint(-9, 9, {33})}, 1);  // 2 parts
  expect_folds(ints, {randint(-100, 100, {7, 5}), randint(-9, 9, {5})}, 1);
  Tensor f = randn({3000, 70});
  f = where(gt(f, 3.0), full({3000, 70}, std::nan("")), f);
  auto maxes = [](const Ts& in) { return Ts{amax(in[0] * 2.0, {0}, true)}; };
  expect_folds(maxes, {f}, 1);
}

TEST_F(LeadingReductionTest, InnerOneAndOuterOneAreNotLeadingButStillFold) {
  const int64_t trailing = metrics::counter_value("fusion.end.reduction");
  auto program = [](const Ts& in) { return Ts{sum(in[0] * 2, Dims{0})}; };
  expect_folds(program, {randint(-50, 50, {3000, 1})}, 0);  // kept dims of size 1: a full sum
  expect_folds(program, {randint(-50, 50, {1, 37})}, 0);    // reduced dims of size 1
  EXPECT_EQ(metrics::counter_value("fusion.end.reduction"), trailing + 2);
}

TEST_F(LeadingReductionTest, ResultsDoNotDependOnTheThreadCountOrTheRun) {
  const Ts inputs = chain_inputs(4096, 1024);  // 8 row parts
  auto run = [&](int threads) {
    set_num_threads(threads);
    Ts out = sum_and_mean(to_lazy(inputs));
    sync(out);
    mark_step();
    return out;
  };
  const int threads = num_threads();
  const Ts one = run(1), two = run(2), again = run(2);
  set_num_threads(threads);
  for (size_t k = 0; k < one.size(); ++k) {
    EXPECT_TRUE(bitwise_equal(one[k], two[k])) << k;
    EXPECT_TRUE(bitwise_equal(two[k], again[k])) << k;
  }
}

// train_cnn's MLP step (examples/tutorial_models.h: 784 -> 128, relu, 128 -> 10, log_softmax;
// Adadelta), its parameters the outputs: the bias gradient of fc1 sums relu's backward over the
// batch and joins relu's backward group, although the weight gradient's mm and its update read
// that group first (See Note [Late folds]).
TEST_F(LeadingReductionTest, AnMlpTrainingStepFoldsItsBiasGradient) {
  const Tensor images = randn({64, 1, 28, 28}), targets = randint(0, 10, {64});
  const Ts initial = examples::Mlp().parameters();
  auto train = [&](Device device) {
    examples::Mlp model;
    {
      NoGradGuard no_grad;
      const Ts params = model.parameters();
      for (size_t k = 0; k < params.size(); ++k) params[k].copy_(initial[k]);
    }
    model.to(device);
    optim::Adadelta opt(model.parameters(), {.lr = 1.0});
    opt.zero_grad();
    nn::functional::nll_loss(model.forward(images.to(device)), targets.to(device)).backward();
    opt.step();
    return model.parameters();
  };
  const Ts eager = train(kCPU);
  const Ts lazy = train(kLazy);
  const std::string dump = fusion_plan_dump(lazy);
  EXPECT_NE(dump.find("sum.dim_IntList(%"), std::string::npos) << dump;
  EXPECT_NE(dump.find("[reduction over leading dims, folded late]"), std::string::npos) << dump;
  const int64_t late = metrics::counter_value("fusion.late_folds");
  sync(lazy);
  EXPECT_EQ(metrics::counter_value("fusion.late_folds"), late + 1);
  for (size_t k = 0; k < eager.size(); ++k) EXPECT_TRUE(close_to(lazy[k], eager[k], 1e-5)) << k;
}

}  // namespace
}  // namespace lazygen::cpu::fusion
