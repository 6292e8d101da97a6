// The fused cpu backend against eager execution. Pointwise chains must match eager bit for bit:
// each member computes in the eager kernel's compute dtype with the same functor (See Note
// [Fused compute dtype]). Folded reductions add in another order (per tile, then per part)
// than the eager kernels (eight accumulators per run), so they are compared to a tolerance.
#include "backend/cpu/fusion/fused_backend.h"

#include <gtest/gtest.h>

#include <cstring>

#include "backend/cpu/fusion/group_program.h"
#include "core/tensor/allocator.h"
#include "core/thread_pool.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/add.h"
#include "lazygen/generated/ops/amax.h"
#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/lt.h"
#include "lazygen/generated/ops/maximum.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/mm.h"
#include "lazygen/generated/ops/mul.h"
#include "lazygen/generated/ops/permute.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/select.h"
#include "lazygen/generated/ops/sigmoid.h"
#include "lazygen/generated/ops/slice.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/generated/ops/tanh.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/generated/ops/view.h"
#include "lazygen/generated/ops/where.h"
#include "runtime/fusion/fusion_test_util.h"

namespace lazygen::cpu::fusion {
namespace {

using lazygen::testing::bitwise_equal;
using lazygen::testing::expect_fused_matches_eager;
using lazygen::testing::to_lazy;
using Ts = std::vector<Tensor>;

class FusedBackendTest : public lazygen::testing::FusionTest {};

// The chain of torch_peer's `chain` benchmark, with broadcasts and a second output.
Ts chain(const Ts& in) {
  Tensor v = in[0];
  for (int i = 0; i < 8; ++i) {
    switch (i % 4) {
      case 0:
        v = v * 1.0001;
        break;
      case 1:
        v = v + 0.5;
        break;
      case 2:
        v = relu(v);
        break;
      default:
        v = v - 0.25;
        break;
    }
  }
  return {v};
}

TEST_F(FusedBackendTest, APointwiseChainMatchesEagerBitForBit) {
  expect_fused_matches_eager(chain, {randn({1000})});
  expect_fused_matches_eager(chain, {randn({3, 5, 7}, DType::Float64)});
}

TEST_F(FusedBackendTest, GroupsLargerThanTheCachesStreamAndMatchEager) {
  auto program = [](const Ts& in) {  // prefetched inputs, streaming stores
    Tensor a = chain({in[0]})[0];
    return Ts{a, a > 0.25, a * in[1]};
  };
  expect_fused_matches_eager(program, {randn({stream_bytes() / 4}), randn({1})});
}

TEST_F(FusedBackendTest, BroadcastsAndScalarsMatchEager) {
  auto program = [](const Ts& in) {
    Tensor a = in[0] * in[1] + in[2];  // [6, 5] * [5] + [6, 1]
    Tensor b = a * 0.25 - in[3];       // a 0-dim tensor operand
    return Ts{sigmoid(b) / (abs(a) + 1.0), b};
  };
  expect_fused_matches_eager(program, {randn({6, 5}), randn({5}), randn({6, 1}), randn({})});
}

TEST_F(FusedBackendTest, ViewsMatchEager) {
  auto program = [](const Ts& in) {
    Tensor x = in[0];                                       // [8, 6]
    Tensor a = t(x) * 2.0 + select(in[1], 0, 1);            // [6, 8] + [8]
    Tensor b = unsqueeze(slice(in[2], 0, 1, 7), 1) * a;     // [6, 1] * [6, 8]
    Tensor c = expand(unsqueeze(in[3], 1), {6, 8}) - a;     // [6] -> [6, 1] -> [6, 8]
    Tensor d = permute(view(in[4], {8, 3, 2}), {1, 2, 0});  // [3, 2, 8]
    return Ts{b, c, d * 3.0};
  };
  expect_fused_matches_eager(program,
                             {randn({8, 6}), randn({3, 8}), randn({8}), randn({6}), randn({48})});
}

TEST_F(FusedBackendTest, MixedDtypesComparisonsAndWhereMatchEager) {
  auto program = [](const Ts& in) {
    Tensor mixed = in[0] + in[1];  // float32 + int32: computed in float32
    Tensor mask = mixed > 0.5;     // bool output
    Tensor w = where(mask, mixed * 2.0, in[0]);
    Tensor ints = in[1] * in[2] + 3;  // int32 * int64: an int64 group
    Tensor cmp = lt(ints, in[2]);
    return Ts{mask, w, ints, cmp, maximum(in[3], in[3] * 0.5)};
  };
  expect_fused_matches_eager(program, {randn({7, 9}), randint(-5, 5, {7, 9}, DType::Int32),
                                       randint(-9, 9, {9}), randn({7, 9}, DType::Float64)});
}

TEST_F(FusedBackendTest, EmptyAndOneElementTensorsMatchEager) {
  auto program = [](const Ts& in) { return Ts{exp(in[0] * 2.0) + in[1], sum(in[0] * 2.0)}; };
  expect_fused_matches_eager(program, {randn({0, 3}), randn({3})});
  expect_fused_matches_eager(program, {randn({1}), randn({1})});
  expect_fused_matches_eager(program, {randn({}), randn({})});
}

TEST_F(FusedBackendTest, NonContiguousInputsAreCopiedOnce) {
  Tensor x = randn({16, 8});
  Tensor lx = x.to(kLazy);
  Tensor lt_ = t(lx);  // materialized as a view: a strided input for the next graph
  mark_step();
  const int64_t copies = metrics::counter_value("fusion.input_copies");
  Tensor y = lt_ * 2.0 + 1.0;
  EXPECT_TRUE(bitwise_equal(y, t(x) * 2.0 + 1.0));
  EXPECT_EQ(metrics::counter_value("fusion.input_copies"), copies + 1);
}

TEST_F(FusedBackendTest, LargeGroupsRunOnAllThreadsAndMatchEager) {
  ASSERT_GE(num_threads(), 1);
  auto program = [](const Ts& in) {
    Tensor a = (in[0] * in[1] + in[2]) * 0.5;  // [256, 1024] * [1024] + [256, 1]
    return Ts{relu(a), t(in[0]) * 3.0};
  };
  expect_fused_matches_eager(program, {randn({256, 1024}), randn({1024}), randn({256, 1})});
}

TEST_F(FusedBackendTest, FoldedReductionsMatchEagerToRounding) {
  auto program = [](const Ts& in) {
    Tensor e = exp(in[0] * 0.5);
    Tensor last = sum(e, std::vector<int64_t>{1});
    Tensor all = sum(e * in[1]);
    Tensor mx = amax(in[0] * in[1], {1}, true);
    Tensor mn = mean(e - 1.0, std::vector<int64_t>{0, 1});
    return Ts{last, all, mx, mn};
  };
  // Sums of 3000 terms in double then rounded to float32: within float32 rounding.
  expect_fused_matches_eager(program, {randn({70, 3000}), randn({3000})}, 1e-6);
  expect_fused_matches_eager(program, {randn({5, 3}), randn({3})}, 1e-6);
}

// A folded sum of runs shorter than the wide fold's 32 accumulators is the sum in order, in
// double from +0.0, rounded once: what the wide fold gives there, computed inline (runs of one
// are a mean over 1x1 planes).
TEST_F(FusedBackendTest, ShortFoldedSumsAreInOrderSumsInDouble) {
  auto program = [](const Ts& in) { return Ts{sum(in[0] * 1.5, std::vector<int64_t>{1})}; };
  for (int64_t run : {1, 3, 17, 31}) {
    SCOPED_TRACE(run);
    Tensor x = randn({64, run});
    float* v = x.data_ptr<float>();
    v[0] = -0.0f;
    v[run] = 1e30f;
    if (run >= 3) {  // in order the 2^60s cancel and 1 remains; in another order 1 can be lost
      v[2 * run] = 0x1p60f, v[2 * run + 1] = -0x1p60f, v[2 * run + 2] = 1.0f;
    }
    const Tensor fused = program(to_lazy({x}))[0].cpu();
    for (int64_t r = 0; r < 64; ++r) {
      double expected = 0;
      for (int64_t j = 0; j < run; ++j)
        expected += static_cast<double>(x.data_ptr<float>()[r * run + j] * 1.5f);
      const float want = static_cast<float>(expected), got = fused.data_ptr<float>()[r];
      EXPECT_EQ(std::memcmp(&want, &got, sizeof got), 0)
          << "row " << r << ": " << got << " vs " << want;
    }
    mark_step();
  }
}

TEST_F(FusedBackendTest, ReductionsAreExactForIntegersAndNanForAmax) {
  auto program = [](const Ts& in) {
    return Ts{sum(in[0] * 3 + 1, std::vector<int64_t>{1}), amax(in[1] * 2.0)};
  };
  Tensor f = randn({300, 7});
  f = where(gt(f, 2.5), full({300, 7}, std::nan("")), f);
  expect_fused_matches_eager(program, {randint(-100, 100, {300, 7}), f});
}

// See Note [Exact tile scalars]: 2^53 + 1 is not a double, so a scalar carried as one would
// reach the group as 2^53.
TEST_F(FusedBackendTest, Int64ScalarsBeyondTwoToThe53AreExact) {
  const int64_t big = (int64_t{1} << 53) + 1;
  auto program = [&](const Ts& in) {
    // |in| <= 100 keeps every product below 2^60: no int64 overflow (UBSan runs this too), yet
    // 37 * (2^53 + 1) and the like are not representable as double.
    Tensor a = in[0] + big;             // add.Scalar
    Tensor b = add(in[0], in[0], big);  // add.Tensor's alpha
    return Ts{a, b, in[0] * (big - 2), mul(in[0], 3) - big};
  };
  const int64_t groups = metrics::counter_value("fusion.groups");
  expect_fused_matches_eager(program, {randint(-100, 100, {64})});
  EXPECT_GT(metrics::counter_value("fusion.groups"), groups);  // it did run fused
  Tensor x = zeros({4}, DType::Int64);
  Tensor y = x.to(kLazy) + big;
  EXPECT_EQ(y.cpu().data_ptr<int64_t>()[3], big);
  Tensor z = (x.to(kLazy) + 1) * big;
  EXPECT_EQ(z.cpu().data_ptr<int64_t>()[0], big);
}

TEST_F(FusedBackendTest, DiamondsAndChainsLongerThanABudgetMatchEager) {
  auto program = [](const Ts& in) {
    Tensor a = in[0] * 1.5;
    Tensor b = exp(a), c = a * a, d = relu(a - 0.5);  // three values live across the diamond
    Tensor v = (b - c) * d + a;
    for (int i = 0; i < 300; ++i) v = i % 2 ? v * 0.999 : v + in[1];  // two node budgets
    return Ts{v, c};
  };
  expect_fused_matches_eager(program, {randn({5000}), randn({5000})});
}

TEST_F(FusedBackendTest, ReductionsDoNotDependOnTheThreadCount) {
  auto program = [](const Ts& in) {
    return Ts{sum(in[0] * 1.1), mean(exp(in[0]), std::vector<int64_t>{1})};
  };
  const Ts inputs = {randn({64, 40000})};
  const int threads = num_threads();
  set_num_threads(1);
  Ts one = program(to_lazy(inputs));
  sync(one);
  set_num_threads(2);
  Ts two = program(to_lazy(inputs));
  sync(two);
  set_num_threads(threads);
  for (size_t k = 0; k < one.size(); ++k) EXPECT_TRUE(bitwise_equal(one[k], two[k])) << k;
}

// Note [Row tiles]: per-channel operands over short rows (batch norm on 1x1, 2x2 and 3x3
// planes) run tiles that span rows, and so does a mean over whole planes.
TEST_F(FusedBackendTest, ShortRowsSpanTilesAndMatchEager) {
  auto pointwise = [](const Ts& in) {
    Tensor y = relu((in[0] - in[1]) * in[2] + 0.5);
    return Ts{y, y * in[3] + in[0]};
  };
  auto pooled = [&](const Ts& in) {
    const Tensor y = pointwise(in)[0];
    return Ts{mean(y, std::vector<int64_t>{2, 3}), sum(y, std::vector<int64_t>{3})};
  };
  for (int64_t plane : {1, 2, 3}) {
    SCOPED_TRACE(plane);
    const Ts inputs = {randn({32, 48, plane, plane}), randn({48, 1, 1}), randn({48, 1, 1}),
                       randn({plane})};
    expect_fused_matches_eager(pointwise, inputs);
    expect_fused_matches_eager(pooled, inputs, 1e-6);
  }
}

// Note [Repeating loads]: operands that do not vary over the outer dims are written once as
// their period and read in place by tiles that span rows: per-channel values (period 48 * p * p,
// not a divisor of the tile for p = 3), a [c, 1, w] operand (strides 0, s, 0, 1), operands that
// the group converts (float64 per-channel values make it compute in float64, so the float32
// input is a converted dense load), and a period too long to write out (row tiles instead).
TEST_F(FusedBackendTest, RepeatingLoadsSpanRowsAndMatchEager) {
  auto program = [](const Ts& in) {
    Tensor y = relu((in[0] - in[1]) * in[2] + 0.5);
    return Ts{y, y * in[3] + in[0]};
  };
  for (int64_t plane : {2, 3, 4}) {
    SCOPED_TRACE(plane);
    const int64_t before = metrics::counter_value("fusion.repeated_loads");
    expect_fused_matches_eager(program, {randn({32, 48, plane, plane}), randn({48, 1, 1}),
                                         randn({48, 1, plane}), randn({plane})});
    EXPECT_GT(metrics::counter_value("fusion.repeated_loads"), before);
    expect_fused_matches_eager(program,
                               {randn({32, 48, plane, plane}), randn({48, 1, 1}).to(DType::Float64),
                                randn({48, 1, 1}), randn({48, plane, 1})});
  }
  const int64_t before = metrics::counter_value("fusion.repeated_loads");
  expect_fused_matches_eager(
      program, {randn({8, 5000, 2, 2}), randn({5000, 1, 1}), randn({5000, 1, 1}), randn({2})});
  EXPECT_EQ(metrics::counter_value("fusion.repeated_loads"), before);  // period 20000: row tiles
}

// Note [Step profiling]: with profiling on, each step of an execution records into the timed
// metric named after what it ran; off, nothing is recorded.
TEST_F(FusedBackendTest, ProfiledStepsRecordIntoMetricsNamedAfterWhatTheyRan) {
  auto program = [](const Ts& in) { return Ts{relu(mm(in[0], in[1]) * 2.0 + 1.0)}; };
  const Ts inputs = {randn({7, 5}), randn({5, 13})};
  auto group_count = [] {
    int64_t count = 0;
    for (const std::string& name : metrics::names()) {
      if (name.rfind("step.group [91] ", 0) == 0) count += metrics::timed_stats(name)->count;
    }
    return count;
  };
  const auto mm_count = [] {
    const auto stats = metrics::timed_stats("step.mm float32[7, 13]");
    return stats ? stats->count : 0;
  };
  const int64_t mms = mm_count(), groups = group_count();
  EXPECT_FALSE(step_profiling());
  set_step_profiling(true);
  expect_fused_matches_eager(program, inputs);
  expect_fused_matches_eager(program, inputs);
  set_step_profiling(false);
  EXPECT_EQ(mm_count(), mms + 2);
  EXPECT_EQ(group_count(), groups + 2);  // [7, 13] collapses to one dim of 91
  expect_fused_matches_eager(program, inputs);
  EXPECT_EQ(mm_count(), mms + 2);
}

TEST_F(FusedBackendTest, FusionOnAndOffGiveTheSameBits) {
  auto program = [](const Ts& in) {
    Tensor h = relu(mm(in[0], in[1]) + in[2]);  // library op between two groups
    Tensor y = tanh(h * 0.1) - h / (abs(h) + 1.0);
    return Ts{y, t(y) * 2.0};
  };
  const Ts inputs = {randn({32, 16}), randn({16, 24}), randn({24})};
  set_fusion_enabled(false);
  EXPECT_FALSE(fusion_enabled());
  Ts off = program(to_lazy(inputs));
  sync(off);
  set_fusion_enabled(true);
  EXPECT_TRUE(fusion_enabled());
  Ts on = program(to_lazy(inputs));
  sync(on);
  for (size_t k = 0; k < on.size(); ++k) EXPECT_TRUE(bitwise_equal(on[k], off[k])) << k;
}

TEST_F(FusedBackendTest, ATrainingLoopKeepsMemoryFlatOverManySteps) {
  Tensor w = randn({256, 64}).to(kLazy);
  Tensor v = zeros({256, 64}).to(kLazy);
  Tensor x = randn({64, 64}).to(kLazy);
  auto step = [&](int i) {
    Tensor g = mm(w, x) * 0.01;       // library op, then a group
    v.mul_(0.9).add_(g, 1.0);         // optimizer state updated in place
    w.add_(v, -0.001 * (1 + i % 3));  // new scalar values: no recompilation
    Tensor loss = sum(w * w);
    mark_step();
    return loss;
  };
  for (int i = 0; i < 10; ++i) step(i);
  wait_device_ops();  // launches in flight hold buffers (See Note [Asynchronous execution])
  const AllocatorStats before = cpu_allocator().stats();
  const int64_t misses = metrics::counter_value("computation_cache.miss");
  for (int i = 0; i < 1000; ++i) step(i);
  wait_device_ops();
  const AllocatorStats after = cpu_allocator().stats();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.misses, before.misses);  // every block came from the cache
  EXPECT_EQ(metrics::counter_value("computation_cache.miss"), misses);
}

TEST_F(FusedBackendTest, AnOutputNobodyHoldsIsReusedByTheNextExecution) {
  Tensor x = randn({64}).to(kLazy);
  const int64_t reused = metrics::counter_value("fusion.output_reuse");
  for (int i = 0; i < 3; ++i) {
    Tensor y = relu(x * 2.0);
    mark_step();
  }  // y dies at the end of each iteration
  wait_device_ops();
  EXPECT_EQ(metrics::counter_value("fusion.output_reuse"), reused + 2);
}

// The buffer behind a lazy tensor, once its launch has finished.
const void* data_of(const Tensor& t) {
  wait_device_ops();
  return lazy::lazy_state(t).materialized().raw_data();
}

// One Adadelta step (optim::Adadelta::step's ops) on a parameter and its two state tensors.
void adadelta_step(const Tensor& w, const Tensor& square_avg, const Tensor& acc_delta,
                   const Tensor& x) {
  const Tensor g = w * x - 0.5;
  square_avg.mul_(0.9).addcmul_(g, g, 0.1);
  const Tensor std_dev = add(square_avg, 1e-6).sqrt_();
  const Tensor delta = add(acc_delta, 1e-6).sqrt_();
  delta.div_(std_dev).mul_(g);
  acc_delta.mul_(0.9).addcmul_(delta, delta, 0.1);
  w.add_(delta, -1.0);
}

// See Note [In-place outputs].
TEST_F(FusedBackendTest, TensorsUpdatedInPlaceKeepTheirStorageAcrossSteps) {
  Ts eager = {randn({64, 32}), zeros({64, 32}), zeros({64, 32}), randn({64, 32})};
  Ts lazy = to_lazy(eager);
  const int64_t in_place = metrics::counter_value("fusion.in_place_outputs");
  std::vector<const void*> first;
  for (int step = 0; step < 6; ++step) {
    adadelta_step(eager[0], eager[1], eager[2], eager[3]);
    adadelta_step(lazy[0], lazy[1], lazy[2], lazy[3]);
    mark_step();
    const std::vector<const void*> now = {data_of(lazy[0]), data_of(lazy[1]), data_of(lazy[2])};
    if (step == 1) first = now;
    if (step > 1) {
      EXPECT_EQ(now, first) << "step " << step;
    }
  }
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(bitwise_equal(lazy[k], eager[k])) << k;
  EXPECT_GE(metrics::counter_value("fusion.in_place_outputs"), in_place + 3 * 4);
}

TEST_F(FusedBackendTest, AnInputReadAfterItsUpdateIsNotOverwritten) {
  Tensor w = randn({16, 16}), x = randn({16, 16});
  Tensor lw = w.to(kLazy), lx = x.to(kLazy);
  mark_step();
  const void* old = data_of(lw);
  const Tensor before = mm(lw, lx);  // a library op reads the old value
  lw.mul_(0.5).add_(lx);
  const Tensor after = mm(lw, lx);
  mark_step();
  EXPECT_NE(data_of(lw), old);
  EXPECT_TRUE(bitwise_equal(before, mm(w, x)));
  const Tensor w2 = add(w * 0.5, x);
  EXPECT_TRUE(bitwise_equal(lw, w2));
  EXPECT_TRUE(bitwise_equal(after, mm(w2, x)));
}

TEST_F(FusedBackendTest, AnInputWithALiveAliasIsNotOverwritten) {
  Tensor lw = randn({256}).to(kLazy);
  mark_step();
  const Tensor alias = lazy::lazy_state(lw).materialized();  // shares the buffer
  const Tensor old = alias.clone();
  const int64_t in_place = metrics::counter_value("fusion.in_place_outputs");
  lw.mul_(2.0);
  mark_step();
  EXPECT_EQ(metrics::counter_value("fusion.in_place_outputs"), in_place);
  EXPECT_NE(data_of(lw), alias.raw_data());
  EXPECT_TRUE(bitwise_equal(alias, old));
  EXPECT_TRUE(bitwise_equal(lw, old * 2.0));
}

}  // namespace
}  // namespace lazygen::cpu::fusion
