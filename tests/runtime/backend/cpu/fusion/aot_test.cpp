// AOT kernels in the fused backend (See Note [AOT kernels]): this binary links the kernels of
// aot_test.manifest (lazygen_add_kernels), recorded from the programs below with
// LAZYGEN_RECORD=tests/runtime/backend/cpu/fusion/aot_test.manifest. With AOT on and off, every
// program gives the same bits, every group hits, a kernel runs only while AOT is on, and stale
// entries (another IR version, another ops.yaml, a wrong hash) fall back to the interpreter.
#include <gtest/gtest.h>

#include <cmath>

#include "backend/cpu/fusion/aot_kernel.h"
#include "backend/cpu/fusion/aot_registry.h"
#include "backend/cpu/fusion/group_program.h"
#include "fusion/aot_lookup.h"
#include "fusion/group_key.h"
#include "lazygen/aot.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/amax.h"
#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/lt.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/select.h"
#include "lazygen/generated/ops/sigmoid.h"
#include "lazygen/generated/ops/slice.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/generated/ops/tanh.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/generated/ops/where.h"
#include "runtime/fusion/fusion_test_util.h"

namespace lazygen::cpu::fusion {
namespace {

using testing::bitwise_equal;
using testing::Program;
using Ts = std::vector<Tensor>;

Tensor chain(Tensor x) {
  for (int i = 0; i < 8; ++i) {
    x = i % 4 == 0 ? x * 1.0001 : i % 4 == 1 ? x + 0.5 : i % 4 == 2 ? relu(x) : x - 0.25;
  }
  return x;
}

struct Case {
  const char* name;
  Program program;
  Ts inputs;
};

std::vector<Case> cases() {
  Tensor nan_f = randn({300, 7});
  nan_f = where(gt(nan_f, 2.5), full({300, 7}, std::nan("")), nan_f);
  return {
      {"chain", [](const Ts& in) { return Ts{chain(in[0])}; }, {randn({1000})}},
      {"chain_f64",
       [](const Ts& in) { return Ts{chain(in[0])}; },
       {randn({3, 5, 7}, DType::Float64)}},
      {"streamed",
       [](const Ts& in) {
         Tensor a = chain(in[0]);
         return Ts{a, a > 0.25, a * in[1]};
       },
       {randn({stream_bytes() / 4}), randn({1})}},
      {"broadcasts",
       [](const Ts& in) {
         Tensor a = in[0] * in[1] + in[2];
         Tensor b = a * 0.25 - in[3];
         return Ts{sigmoid(b) / (abs(a) + 1.0), b};
       },
       {randn({6, 5}), randn({5}), randn({6, 1}), randn({})}},
      {"views",
       [](const Ts& in) {
         Tensor a = t(in[0]) * 2.0 + select(in[1], 0, 1);
         Tensor b = unsqueeze(slice(in[2], 0, 1, 7), 1) * a;
         return Ts{b, expand(unsqueeze(in[3], 1), {6, 8}) - a};
       },
       {randn({8, 6}), randn({3, 8}), randn({8}), randn({6})}},
      {"mixed_dtypes",
       [](const Ts& in) {
         Tensor mixed = in[0] + in[1];
         Tensor mask = mixed > 0.5;
         Tensor ints = in[1] * in[2] + 3;
         return Ts{mask, where(mask, mixed * 2.0, in[0]), ints, lt(ints, in[2])};
       },
       {randn({7, 9}), randint(-5, 5, {7, 9}, DType::Int32), randint(-9, 9, {9})}},
      {"reductions",
       [](const Ts& in) {
         Tensor e = exp(in[0] * 0.5);
         return Ts{sum(e, std::vector<int64_t>{1}), sum(e * in[1]), amax(in[0] * in[1], {1}, true),
                   mean(e - 1.0, std::vector<int64_t>{0, 1})};
       },
       {randn({70, 3000}), randn({3000})}},
      {"leading_reductions",
       [](const Ts& in) {
         Tensor a = relu(in[0] * in[1] + 0.5);
         return Ts{sum(a, std::vector<int64_t>{0}), mean(exp(in[0]), std::vector<int64_t>{0}, true),
                   amax(in[0] * 2.0, {0})};
       },
       {randn({3000, 70}), randn({70})}},
      {"int_leading_reduction",
       [](const Ts& in) { return Ts{sum(in[0] * 3 + 1, std::vector<int64_t>{0})}; },
       {randint(-100, 100, {5000, 33})}},
      {"int_and_nan_reductions",
       [](const Ts& in) {
         return Ts{sum(in[0] * 3 + 1, std::vector<int64_t>{1}), amax(in[1] * 2.0)};
       },
       {randint(-100, 100, {300, 7}), nan_f}},
  };
}

Ts run_lazy(const Case& c) {
  Ts out = c.program(testing::to_lazy(c.inputs));
  sync(out);
  Ts cpu;
  for (const Tensor& t : out) cpu.push_back(t.cpu());
  mark_step();
  return cpu;
}

class AotTest : public testing::FusionTest {
 protected:
  void TearDown() override {
    set_aot_enabled(true);
    FusionTest::TearDown();
  }
};

TEST_F(AotTest, ResultsEqualTheInterpreterBitForBitAndEveryGroupHits) {
  reset_aot_misses();
  const int64_t hits = metrics::counter_value("aot.hit");
  const int64_t misses = metrics::counter_value("aot.miss");
  for (const Case& c : cases()) {
    set_aot_enabled(false);
    const Ts interpreted = run_lazy(c);
    set_aot_enabled(true);
    const Ts aot = run_lazy(c);
    ASSERT_EQ(interpreted.size(), aot.size());
    for (size_t k = 0; k < aot.size(); ++k)
      EXPECT_TRUE(bitwise_equal(aot[k], interpreted[k])) << c.name << " " << k;
  }
  EXPECT_GT(metrics::counter_value("aot.hit"), hits);
  EXPECT_EQ(metrics::counter_value("aot.miss"), misses) << aot_miss_report();
}

// The key of the first group of `outs` (traced, not run).
std::string first_key(const Ts& outs) {
  const exec::Graph graph = testing::graph_of(outs);
  return group_key(describe_group(graph, plan_fusion(graph), 0));
}

void fill_42(const AotTileArgs& a) {
  for (int64_t i = 0; i < a.n; ++i) static_cast<float*>(a.out[0])[i] = 42.0f;
}

TEST_F(AotTest, AKernelRunsOnlyWhileAotIsOn) {
  Tensor x = randn({100}).to(kLazy);
  Tensor y = x * 4.0 - 3.0;
  static const std::string key = first_key({y});
  static const KeyHash hash = key_hash(key);
  static const std::string fingerprint = ops_fingerprint(key);
  static const AotEntry entry{key.c_str(),         hash.hi, hash.lo, kAotIrVersion,
                              fingerprint.c_str(), &fill_42};
  static const AotRegistration registration(&entry, 1);
  sync({y});
  EXPECT_EQ(y.cpu().data_ptr<float>()[7], 42.0f);
  set_aot_enabled(false);
  EXPECT_TRUE(bitwise_equal(x * 4.0 - 3.0, x.cpu() * 4.0 - 3.0));  // the same compiled graph
}

void must_not_run(const AotTileArgs&) {
  ADD_FAILURE() << "a stale AOT kernel ran";
}

TEST_F(AotTest, StaleEntriesFallBackToTheInterpreter) {
  auto program = [](const Tensor& x, int k) {  // three structures nothing else compiles
    const Tensor f = k == 0 ? tanh(x) : k == 1 ? sigmoid(x) : abs(x);
    return f * 7.0 + exp(x);
  };
  static std::vector<std::string> keys, fingerprints;
  static std::vector<AotEntry> entries;
  for (int k = 0; k < 3; ++k) keys.push_back(first_key({program(randn({50}).to(kLazy), k)}));
  for (int k = 0; k < 3; ++k) fingerprints.push_back(ops_fingerprint(keys[k]));
  for (int k = 0; k < 3; ++k) {
    const KeyHash h = key_hash(keys[k]);
    entries.push_back(
        {keys[k].c_str(), h.hi, h.lo, kAotIrVersion, fingerprints[k].c_str(), &must_not_run});
  }
  entries[0].ir_version = kAotIrVersion + 1;
  entries[1].generator_hash = "another ops.yaml";
  entries[2].hash_lo ^= 1;
  static const AotRegistration registration(entries.data(), entries.size());
  const int64_t stale = metrics::counter_value("aot.stale");
  Tensor x = randn({50});
  for (int k = 0; k < 3; ++k) {
    EXPECT_TRUE(bitwise_equal(program(x.to(kLazy), k), program(x, k))) << k;
    mark_step();
  }
  EXPECT_EQ(metrics::counter_value("aot.stale"), stale + 3);
  EXPECT_NE(aot_miss_report().find("# stale"), std::string::npos);
}

}  // namespace
}  // namespace lazygen::cpu::fusion
