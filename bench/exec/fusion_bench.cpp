// The fused cpu backend against the machine's copy bandwidth and against eager execution, each
// ratio measured in the same run (this VM is noisy: compare numbers from one process only).
//
//   chain_16m/fused    the torch_peer `chain` cycle (x*1.0001, x+0.5, relu, x-0.25) eight ops
//                      long on 16M float32, traced and run with mark_step; warm. Counters:
//                      gbps (one read + one write of the data per chain), copy_gbps (eager
//                      copy_ into a preallocated buffer, interleaved), frac_of_copy (goal >=
//                      0.8), eager_ms and speedup_vs_eager (the same ops run eagerly), and the
//                      same for fusion off (lazy_unfused_ms: one kernel per op on the lazy device).
//                      fused_ms runs the chain's AOT kernel (fusion_bench.manifest); interp_ms
//                      the same compiled graph with AOT off (the per-op tile kernels), and
//                      aot_frac_of_copy / interp_frac_of_copy each against copy (goal for AOT:
//                      >= 0.9), aot_speedup_vs_interp their ratio. The *_med counters are
//                      medians of per-iteration ratios (each run against the copy just before).
//   chain_16m/interp   the same chain on the interpreter only (AOT off), interleaved with the
//                      copy: interp_frac_of_copy without the eager and unfused runs around it,
//                      so that it is steadier on this shared VM and can be profiled alone;
//                      per_op_* the same with register chains off (each op one pass over
//                      the tile, See Note [Register chains]), run alternately first and second,
//                      each after its own copy, and chain_speedup_med the ratio of the two
//                      medians.
//   colsum_4096x1024   a bias gradient's pattern: relu(x * w + b) - 0.25 on [4096, 1024] float32
//                      ([1024] broadcasts) ending in sum(0), which the fused backend folds into
//                      the chain's group (See Note [Folded reduction layouts]); warm. Counters:
//                      fused_ms (with the group's AOT kernel, fusion_bench.manifest), interp_ms
//                      (AOT off), unfused_ms (fusion off: one kernel per op, then the eager
//                      sum), chain_only_ms (the fused chain storing its [4096, 1024] result
//                      instead of reducing it: what the group cost before the fold, the sum
//                      aside), eager_ms, speedup_vs_unfused and speedup_vs_eager (same run),
//                      gbps (one read of x per pass) and copy_gbps (copy_ of x, interleaved).
//   rows_4096x1024     layer_norm (with weight and bias) and softmax over the last dim of
//                      [4096, 1024] float32, warm, each against copy_ of x interleaved (one read and
//                      one write: what a single pass over rows would move). Counters:
//                      layer_norm_ms, softmax_ms, copy_ms and *_frac_of_copy_med (goal >= 0.7);
//                      layer_norm_unbanded_ms the same graph with row bands off (its groups one
//                      after the other; See Note [Row bands]) and band_speedup_med the ratio.
//   chain_1000x16      a 1000-op chain of the same cycle on 16 elements, steady state (trace +
//                      cached execute per iteration): us_per_op (goal <= 0.2), split into tracing
//                      and mark_step (and the executor's build-graph and execute shares), and
//                      eager's.
//   mark_step_100      mark_step of a pending 100-node graph (44 ops on 16 elements and their
//                      scalars) that hits the computation cache: us per step (goal <= 5), with
//                      the executor's build-graph and execute shares.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

#include "core/ir/trie_cache.h"
#include "lazygen/aot.h"
#include "lazygen/composite.h"
#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/nn/functional.h"
#include "lazygen/operators.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen {
namespace {

using Clock = std::chrono::steady_clock;
using Ts = std::vector<Tensor>;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The peer's op cycle, `ops` long.
Tensor chain(Tensor x, int ops) {
  for (int i = 0; i < ops; ++i) {
    switch (i % 4) {
      case 0:
        x = x * 1.0001;
        break;
      case 1:
        x = x + 0.5;
        break;
      case 2:
        x = relu(x);
        break;
      default:
        x = x - 0.25;
        break;
    }
  }
  return x;
}

// Seconds for tracing `trace()` on the lazy device and materializing it (mark_step runs it).
template <class Trace>
double time_lazy(const Trace& trace) {
  const auto start = Clock::now();
  Tensor y = trace();
  mark_step();
  wait_device_ops();
  const double s = seconds_since(start);
  benchmark::DoNotOptimize(y.impl());
  return s;
}

// The median of per-iteration ratios (each run against the copy timed just before it): steadier
// than the ratio of totals on this shared VM, where a slow burst of either side skews the totals.
double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + static_cast<ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

double time_lazy_chain(const Tensor& x, int ops) {
  return time_lazy([&] { return chain(x, ops); });
}

void chain_16m(benchmark::State& state) {
  constexpr int64_t kNumel = 16 << 20;
  constexpr int kOps = 8;
  const double bytes = 2.0 * 4 * kNumel;  // one fused pass: read x, write y
  Tensor src = randn({kNumel}), dst = empty({kNumel});
  Tensor x = src.to(kLazy);
  mark_step();
  double fused_s = 0, copy_s = 0, eager_s = 0, unfused_s = 0, interp_s = 0;
  std::vector<double> aot_ratios, interp_ratios;  // per iteration, against its own copy
  for (int warm = 0; warm < 2; ++warm) time_lazy_chain(x, kOps);
  for (auto _ : state) {
    auto start = Clock::now();
    dst.copy_(src);
    const double copy = seconds_since(start);
    copy_s += copy;
    start = Clock::now();
    benchmark::DoNotOptimize(chain(src, kOps).impl());
    eager_s += seconds_since(start);
    set_fusion_enabled(false);
    time_lazy_chain(x, kOps);  // compiles after the switch (untimed)
    unfused_s += time_lazy_chain(x, kOps);
    set_fusion_enabled(true);
    time_lazy_chain(x, kOps);  // recompiles after the switch (untimed)
    set_aot_enabled(false);
    const double interp = time_lazy_chain(x, kOps);
    interp_s += interp;
    interp_ratios.push_back(copy / interp);
    set_aot_enabled(true);
    const double s = time_lazy_chain(x, kOps);
    fused_s += s;
    aot_ratios.push_back(copy / s);
    state.SetIterationTime(s);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["gbps"] = bytes * n / fused_s / 1e9;
  state.counters["copy_gbps"] = bytes * n / copy_s / 1e9;
  state.counters["frac_of_copy"] = copy_s / fused_s;
  state.counters["fused_ms"] = fused_s / n * 1e3;
  state.counters["eager_ms"] = eager_s / n * 1e3;
  state.counters["lazy_unfused_ms"] = unfused_s / n * 1e3;
  state.counters["speedup_vs_eager"] = eager_s / fused_s;
  state.counters["speedup_vs_unfused"] = unfused_s / fused_s;
  state.counters["interp_ms"] = interp_s / n * 1e3;
  state.counters["aot_frac_of_copy"] = copy_s / fused_s;
  state.counters["interp_frac_of_copy"] = copy_s / interp_s;
  state.counters["aot_frac_of_copy_med"] = median(aot_ratios);
  state.counters["interp_frac_of_copy_med"] = median(interp_ratios);
  state.counters["aot_speedup_vs_interp"] = interp_s / fused_s;
  state.counters["aot_hits"] = static_cast<double>(metrics::counter_value("aot.hit"));
}

void chain_16m_interp(benchmark::State& state) {
  constexpr int64_t kNumel = 16 << 20;
  constexpr int kOps = 8;
  Tensor src = randn({kNumel}), dst = empty({kNumel});
  Tensor x = src.to(kLazy);
  mark_step();
  set_aot_enabled(false);
  for (int warm = 0; warm < 2; ++warm) time_lazy_chain(x, kOps);
  double copy_s = 0, interp_s = 0, per_op_s = 0;
  std::vector<double> ratios, per_op_ratios;
  for (auto _ : state) {
    // Register chains on and off (See Note [Register chains]), in alternating order, each
    // after a copy of its own.
    const bool per_op_first = state.iterations() % 2 == 1;
    for (int run = 0; run < 2; ++run) {
      const bool chains = (run == 0) != per_op_first;
      const auto start = Clock::now();
      dst.copy_(src);
      const double copy = seconds_since(start);
      set_register_chains_enabled(chains);
      const double s = time_lazy_chain(x, kOps);
      if (chains) {
        copy_s += copy;
        interp_s += s;
        ratios.push_back(copy / s);
        state.SetIterationTime(s);
      } else {
        per_op_s += s;
        per_op_ratios.push_back(copy / s);
      }
    }
    set_register_chains_enabled(true);
  }
  set_aot_enabled(true);
  const double n = static_cast<double>(state.iterations());
  state.counters["interp_ms"] = interp_s / n * 1e3;
  state.counters["copy_ms"] = copy_s / n * 1e3;
  state.counters["interp_frac_of_copy"] = copy_s / interp_s;
  state.counters["interp_frac_of_copy_med"] = median(ratios);
  state.counters["per_op_ms"] = per_op_s / n * 1e3;
  state.counters["per_op_frac_of_copy_med"] = median(per_op_ratios);
  state.counters["chain_speedup_med"] = median(ratios) / median(per_op_ratios);
}

Tensor colsum(const Tensor& x, const Tensor& w, const Tensor& b, bool reduce = true) {
  const Tensor y = relu(x * w + b) - 0.25;
  return reduce ? sum(y, std::vector<int64_t>{0}) : y;
}

double time_lazy_colsum(const Tensor& x, const Tensor& w, const Tensor& b, bool reduce = true) {
  return time_lazy([&] { return colsum(x, w, b, reduce); });
}

void colsum_4096x1024(benchmark::State& state) {
  constexpr int64_t kRows = 4096, kCols = 1024;
  const Ts cpu = {randn({kRows, kCols}), randn({kCols}), randn({kCols})};
  Tensor dst = empty({kRows, kCols});
  const Tensor x = cpu[0].to(kLazy), w = cpu[1].to(kLazy), b = cpu[2].to(kLazy);
  mark_step();
  for (int warm = 0; warm < 2; ++warm) time_lazy_colsum(x, w, b);
  double fused_s = 0, interp_s = 0, unfused_s = 0, eager_s = 0, copy_s = 0, chain_s = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    dst.copy_(cpu[0]);
    copy_s += seconds_since(start);
    start = Clock::now();
    benchmark::DoNotOptimize(colsum(cpu[0], cpu[1], cpu[2]).impl());
    eager_s += seconds_since(start);
    set_fusion_enabled(false);
    time_lazy_colsum(x, w, b);  // compiles after the switch (untimed)
    unfused_s += time_lazy_colsum(x, w, b);
    set_fusion_enabled(true);
    time_lazy_colsum(x, w, b);  // recompiles after the switch (untimed)
    set_aot_enabled(false);
    interp_s += time_lazy_colsum(x, w, b);
    set_aot_enabled(true);
    chain_s += time_lazy_colsum(x, w, b, false);
    const double s = time_lazy_colsum(x, w, b);
    fused_s += s;
    state.SetIterationTime(s);
  }
  const double n = static_cast<double>(state.iterations());
  const double bytes = 4.0 * kRows * kCols;
  state.counters["fused_ms"] = fused_s / n * 1e3;
  state.counters["interp_ms"] = interp_s / n * 1e3;
  state.counters["unfused_ms"] = unfused_s / n * 1e3;
  state.counters["chain_only_ms"] = chain_s / n * 1e3;
  state.counters["eager_ms"] = eager_s / n * 1e3;
  state.counters["speedup_vs_unfused"] = unfused_s / fused_s;
  state.counters["speedup_vs_eager"] = eager_s / fused_s;
  state.counters["gbps"] = bytes * n / fused_s / 1e9;
  state.counters["copy_gbps"] = 2 * bytes * n / copy_s / 1e9;
  state.counters["leading_folds"] =
      static_cast<double>(metrics::counter_value("fusion.end.leading_reduction"));
}

// Adds the executor's mean build-graph and execute times (us) to `state`'s counters.
void executor_counters(benchmark::State& state, double per) {
  if (auto build = metrics::timed_stats("exec.build_graph_ms")) {
    state.counters["build_graph_us"] = build->mean_ms() * 1e3 / per;
  }
  if (auto execute = metrics::timed_stats("exec.execute_ms")) {
    state.counters["execute_us"] = execute->mean_ms() * 1e3 / per;
  }
}

void chain_1000x16(benchmark::State& state) {
  constexpr int kOps = 1000;
  ir::TrieCache::current().reset();
  Tensor src = randn({16});
  Tensor x = src.to(kLazy);
  mark_step();
  for (int warm = 0; warm < 3; ++warm) time_lazy_chain(x, kOps);
  metrics::reset();
  double trace_s = 0, step_s = 0, eager_s = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    Tensor y = chain(x, kOps);
    trace_s += seconds_since(start);
    const auto traced = Clock::now();
    mark_step();
    step_s += seconds_since(traced);
    state.SetIterationTime(seconds_since(start));
    benchmark::DoNotOptimize(y.impl());
    start = Clock::now();
    benchmark::DoNotOptimize(chain(src, kOps).impl());
    eager_s += seconds_since(start);
  }
  const double n = static_cast<double>(state.iterations()) * kOps;
  state.counters["us_per_op"] = (trace_s + step_s) / n * 1e6;
  state.counters["trace_us_per_op"] = trace_s / n * 1e6;
  state.counters["mark_step_us_per_op"] = step_s / n * 1e6;
  state.counters["eager_us_per_op"] = eager_s / n * 1e6;
  state.counters["speedup_vs_eager"] = eager_s / (trace_s + step_s);
  executor_counters(state, kOps);  // per op
}

void mark_step_100(benchmark::State& state) {
  constexpr int kOps = 44;  // 11 cycles of 4 ops and 5 scalars: 99 nodes, plus the input
  ir::TrieCache::current().reset();
  Tensor x = randn({16}).to(kLazy);
  mark_step();
  for (int warm = 0; warm < 3; ++warm) time_lazy_chain(x, kOps);
  metrics::reset();
  double step_s = 0;
  for (auto _ : state) {
    Tensor y = chain(x, kOps);
    const auto start = Clock::now();
    mark_step();
    const double s = seconds_since(start);
    step_s += s;
    state.SetIterationTime(s);
    benchmark::DoNotOptimize(y.impl());
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["us_per_step"] = step_s / n * 1e6;
  state.counters["graph_nodes"] =
      static_cast<double>(metrics::counter_value("exec.graph_nodes")) / n;
  executor_counters(state, 1);
}

BENCHMARK(chain_16m)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(chain_16m_interp)
    ->Name("chain_16m/interp")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(1.0);
BENCHMARK(colsum_4096x1024)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
void rows_4096x1024(benchmark::State& state) {
  Tensor src = randn({4096, 1024}), dst = empty({4096, 1024});
  const Tensor x = src.to(kLazy), w = randn({1024}).to(kLazy), b = randn({1024}).to(kLazy);
  mark_step();
  auto norm = [&] { return layer_norm(x, {1024}, w, b); };
  auto soft = [&] { return nn::functional::softmax(x, 1); };
  for (int warm = 0; warm < 2; ++warm) time_lazy(norm), time_lazy(soft);
  double copy_s = 0, norm_s = 0, soft_s = 0, unbanded_s = 0;
  std::vector<double> norm_ratios, soft_ratios, band_speedups;
  for (auto _ : state) {
    auto start = Clock::now();
    dst.copy_(src);
    const double copy = seconds_since(start);
    const double n = time_lazy(norm), sm = time_lazy(soft);
    set_row_bands_enabled(false);
    const double unbanded = time_lazy(norm);
    set_row_bands_enabled(true);
    copy_s += copy;
    norm_s += n;
    soft_s += sm;
    unbanded_s += unbanded;
    norm_ratios.push_back(copy / n);
    soft_ratios.push_back(copy / sm);
    band_speedups.push_back(unbanded / n);
    state.SetIterationTime(n + sm);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["copy_ms"] = copy_s / n * 1e3;
  state.counters["layer_norm_ms"] = norm_s / n * 1e3;
  state.counters["layer_norm_unbanded_ms"] = unbanded_s / n * 1e3;
  state.counters["softmax_ms"] = soft_s / n * 1e3;
  state.counters["layer_norm_frac_of_copy_med"] = median(norm_ratios);
  state.counters["softmax_frac_of_copy_med"] = median(soft_ratios);
  state.counters["band_speedup_med"] = median(band_speedups);
}

BENCHMARK(rows_4096x1024)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(chain_1000x16)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(mark_step_100)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace lazygen

BENCHMARK_MAIN();
