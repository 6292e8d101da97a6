// Training-step benchmarks: milliseconds per step of the tutorial CNN and the 784-128-10 MLP
// (torch_peer.py's `cnn` and `mlp`, Adadelta lr 1, batches of 64), eager (cpu) and lazy. A step
// is what train_cnn times: batch to device, zero_grad, forward, nll_loss, backward, optimizer
// step and, on the lazy device, mark_step + wait_device_ops. Batches are synthetic (normal
// images, uniform labels; timing does not depend on the data, and the benchmark needs no
// dataset); 5 untimed warm-up steps (the lazy graph compiles in the first two) come first.
// rss_growth_mb is the resident-memory growth over the timed steps (LTC's leak shows there);
// median_ms the median step. The example's AOT kernels are linked in (examples/train_cnn.manifest):
// aot_misses counts the groups compiled for the interpreter instead (the graph compiles in the
// warm-up steps).
// cnn/vs_torch and mlp/vs_torch run PyTorch in the same run (torch_peer.h: torch_peer.py on real
// Fashion-MNIST, 2 threads, eager then lazy), then our lazy steps, and report torch_eager_ms,
// torch_lazy_ms and our median over theirs (x_torch_eager: the goal is <= 0.5;
// x_torch_lazy). With --benchmark_repetitions=N the peer runs N times, interleaved with ours.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <fstream>
#include <memory>
#include <utility>
#include <vector>

#include "exec/graph_executor.h"
#include "lazygen/generated/ops/sort.h"
#include "ops/cpu/blas_gemm.h"
#include "real_models.h"
#include "torch_peer.h"
#include "tutorial_models.h"

namespace lazygen::examples {
namespace {

constexpr int64_t kBatch = 64;
constexpr int kBatches = 8;
constexpr int kWarmup = 5;

// Resident memory in MiB (/proc/self/statm), as torch_peer measures it.
double rss_mb() {
  std::ifstream statm("/proc/self/statm");
  double size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// A model, its optimizer and synthetic batches on `device`; step() runs one training step and
// waits for it.
template <class Model>
class Trainer {
 public:
  explicit Trainer(Device device) : device_(device) {
    manual_seed(0);
    Generator data_gen(1234);
    for (int i = 0; i < kBatches; ++i) {
      images_.push_back(randn({kBatch, 1, 28, 28}, data_gen));
      targets_.push_back(randint(0, 10, {kBatch}, data_gen));
    }
    model_.to(device);
    opt_ = std::make_unique<optim::Adadelta>(model_.parameters());
  }
  void step() {
    const int i = step_++ % kBatches;
    train_step(model_, *opt_, images_[i], targets_[i], device_);
    if (device_.is_lazy()) wait_device_ops();
  }
  // The step's wall time in milliseconds.
  double timed_step() {
    const auto start = std::chrono::steady_clock::now();
    step();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  }

 private:
  Device device_;
  std::vector<Tensor> images_, targets_;
  Model model_;
  std::unique_ptr<optim::Adadelta> opt_;
  int step_ = 0;
};

// Runs the timed steps; returns the median step in milliseconds.
template <class Model>
double train_steps(benchmark::State& state, Device device) {
  const int64_t misses_start = metrics::counter_value("aot.miss");
  Trainer<Model> trainer(device);
  for (int i = 0; i < kWarmup; ++i) trainer.step();
  const double rss_start = rss_mb();
  std::vector<double> step_ms;
  for (auto _ : state) step_ms.push_back(trainer.timed_step());
  state.counters["rss_growth_mb"] = rss_mb() - rss_start;
  state.counters["aot_misses"] = static_cast<double>(metrics::counter_value("aot.miss") - misses_start);
  state.counters["steps_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  const double median_ms = median(std::move(step_ms));
  state.counters["median_ms"] = median_ms;
  return median_ms;
}

// Note [One thread pool] A/B on the lazy device: each iteration runs one step with gemms split
// over our pool (OpenBLAS single-threaded) and one with OpenBLAS's own threads, alternately, so
// both see the same machine. Counters: the two medians and one_pool_speedup (> 1: one pool wins).
template <class Model>
void one_pool(benchmark::State& state) {
  Trainer<Model> trainer(kLazy);
  for (int i = 0; i < kWarmup; ++i) trainer.step();
  std::vector<double> one_pool, blas_threads;
  for (auto _ : state) {
    cpu::set_gemm_pool_split(true);
    one_pool.push_back(trainer.timed_step());
    cpu::set_gemm_pool_split(false);
    blas_threads.push_back(trainer.timed_step());
  }
  cpu::set_gemm_pool_split(true);
  const double a = median(std::move(one_pool)), b = median(std::move(blas_threads));
  state.counters["one_pool_ms"] = a;
  state.counters["blas_threads_ms"] = b;
  state.counters["one_pool_speedup"] = b / a;
}

void cnn(benchmark::State& state, Device device) {
  train_steps<TutorialCnn>(state, device);
}
void mlp(benchmark::State& state, Device device) {
  train_steps<Mlp>(state, device);
}

// PyTorch eager and lazy (torch_peer.py `model`), then ours on the lazy device.
template <class Model>
void vs_torch(benchmark::State& state, const char* model) {
  const bench::PeerResult eager =
      bench::run_torch_peer({model, "--mode", "eager", "--threads", "2"});
  const bench::PeerResult lazy = bench::run_torch_peer({model, "--mode", "lazy", "--threads", "2"});
  if (!eager.ok || !lazy.ok) {
    state.SkipWithError(("torch peer: " + (eager.ok ? lazy.error : eager.error)).c_str());
    return;
  }
  const double ours = train_steps<Model>(state, kLazy);
  state.counters["torch_eager_ms"] = eager.at("median_ms");
  state.counters["torch_lazy_ms"] = lazy.at("median_ms");
  state.counters["x_torch_eager"] = ours / eager.at("median_ms");
  state.counters["x_torch_lazy"] = ours / lazy.at("median_ms");
}

// Dynamic shapes (Note [Dynamic shapes] in runtime/backend/graph.h): each iteration times one
// lazy CNN step at the fixed batch of 64 and one at a batch size never traced before (33..96
// shuffled), and reports the medians per sample (fixed_us_per_sample, variable_us_per_sample,
// variable_over_fixed: the goal is <= 1.1) and what the variable steps cost the executor
// (compiles, specializations, and the mean compile_ms and specialize_ms of the step's graphs
// over the whole run). Each variable size is then stepped once more, untimed by the benchmark:
// again_over_fixed is that second step's median per sample over the fixed one's, which tells
// what the size itself costs (near 1) from what a size's first step costs (variable_over_fixed).
// Argument 0 runs with dynamic shapes off (every new size compiles), for A/B. The caches start
// empty; untimed warm-up steps at 64 compile the step.
void variable_batch(benchmark::State& state) {
  const bool dynamic = state.range(0) != 0;
  reset_trace_caches();
  exec::GraphExecutor::global().set_dynamic(dynamic);
  manual_seed(0);
  TutorialCnn model;
  model.to(kLazy);
  optim::Adadelta opt(model.parameters());
  Generator data(1234);
  std::vector<int64_t> sizes;
  for (int64_t b = 33; b <= 96; ++b) {
    if (b != kBatch) sizes.push_back(b);
  }
  std::shuffle(sizes.begin(), sizes.end(), std::mt19937(7));
  auto timed_us_per_sample = [&](int64_t b) {
    const Tensor images = randn({b, 1, 28, 28}, data), targets = randint(0, 10, {b}, data);
    const auto start = std::chrono::steady_clock::now();
    train_step(model, opt, images, targets, kLazy);
    wait_device_ops();
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
           static_cast<double>(b);
  };
  metrics::timed("exec.compile_ms").reset();
  for (int i = 0; i < kWarmup; ++i) timed_us_per_sample(kBatch);
  metrics::timed("exec.specialize_ms").reset();
  const int64_t compiles = metrics::counter_value("computation_cache.miss");
  const int64_t specialized = metrics::counter_value("computation_cache.specialize");
  std::vector<double> fixed, variable, again;
  size_t next = 0;
  for (auto _ : state) {
    fixed.push_back(timed_us_per_sample(kBatch));
    const int64_t b = sizes[next++ % sizes.size()];
    variable.push_back(timed_us_per_sample(b));
    state.PauseTiming();
    again.push_back(timed_us_per_sample(b));
    state.ResumeTiming();
  }
  exec::GraphExecutor::global().set_dynamic(true);
  const double f = median(std::move(fixed)), v = median(std::move(variable));
  state.counters["fixed_us_per_sample"] = f;
  state.counters["variable_us_per_sample"] = v;
  state.counters["variable_over_fixed"] = v / f;
  state.counters["again_over_fixed"] = median(std::move(again)) / f;
  state.counters["compiles"] = static_cast<double>(metrics::counter_value("computation_cache.miss") - compiles);
  state.counters["specializations"] =
      static_cast<double>(metrics::counter_value("computation_cache.specialize") - specialized);
  state.counters["compile_ms"] = metrics::timed("exec.compile_ms").stats().mean_ms();  // all
  state.counters["specialize_ms"] = metrics::timed("exec.specialize_ms").stats().mean_ms();
}
BENCHMARK(variable_batch)
    ->Name("cnn/variable_batch")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(40);

// Autoregressive decoding (Note [Dynamic shapes]): a small GPT's forward pass (2 layers, width
// 64) over a batch of 2 sequences, then its last position's logits to the cpu, as a decoder's
// sampling step reads them. Each iteration times one step at a length one longer than the last
// (16..127, then again from 16: each length's graph is the structure's, specialized) and one at
// the fixed length 64, and reports their medians (growing_ms, fixed_ms, growing_over_fixed), the
// median time a growing step takes to trace (trace_ms: its ops, before the sync) and what it costs
// the executor: specialize_ms, build_graph_ms, compiles and their mean compile_ms. Argument 0
// runs with dynamic shapes off (each length compiles), for A/B; its trie keeps every length's
// branch (the run stays under the trie's capacity), so its trace_ms leaves out the nodes a
// bounded trie drops, which the dynamic run pays for as it traces.
void decode_lengths(benchmark::State& state) {
  const bool dynamic = state.range(0) != 0;
  reset_trace_caches();
  exec::GraphExecutor::global().set_dynamic(dynamic);
  GptConfig config;
  config.width = 64;
  config.layers = 2;
  manual_seed(0);
  Gpt model(config);
  model.to(kLazy);
  NoGradGuard no_grad;
  Generator data(99);
  std::vector<double> trace_ms;  // steps at lengths other than 64
  auto timed_ms = [&](int64_t t) {
    const Tensor tokens = randint(0, config.vocab, {2, t}, data).to(kLazy);
    const auto start = std::chrono::steady_clock::now();
    const Tensor traced = select(model.forward(tokens), 1, t - 1);
    const auto mid = std::chrono::steady_clock::now();
    const Tensor logits = traced.cpu();
    if (t != 64) trace_ms.push_back(std::chrono::duration<double, std::milli>(mid - start).count());
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  };
  for (int i = 0; i < kWarmup; ++i) timed_ms(64);
  timed_ms(15);
  trace_ms.clear();
  for (const char* m : {"exec.specialize_ms", "exec.build_graph_ms", "exec.compile_ms"}) {
    metrics::timed(m).reset();
  }
  const int64_t compiles = metrics::counter_value("computation_cache.miss");
  std::vector<double> growing, fixed;
  int64_t t = 16;
  for (auto _ : state) {
    growing.push_back(timed_ms(t));
    fixed.push_back(timed_ms(64));
    t = t == config.context - 1 ? 16 : t + 1;
  }
  exec::GraphExecutor::global().set_dynamic(true);
  const double g = median(std::move(growing)), f = median(std::move(fixed));
  state.counters["growing_ms"] = g;
  state.counters["trace_ms"] = median(trace_ms);
  state.counters["fixed_ms"] = f;
  state.counters["growing_over_fixed"] = g / f;
  state.counters["specialize_ms"] = metrics::timed("exec.specialize_ms").stats().mean_ms();
  state.counters["build_graph_ms"] = metrics::timed("exec.build_graph_ms").stats().mean_ms();
  state.counters["compile_ms"] = metrics::timed("exec.compile_ms").stats().mean_ms();
  state.counters["compiles"] =
      static_cast<double>(metrics::counter_value("computation_cache.miss") - compiles);
}
BENCHMARK(decode_lengths)
    ->Name("gpt/decode_lengths")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(100);

// Like torch_peer's defaults: 5 untimed steps, then a fixed number of timed ones.
BENCHMARK_CAPTURE(cnn, eager, kCPU)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(25);
BENCHMARK_CAPTURE(cnn, lazy, kLazy)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(25);
BENCHMARK_CAPTURE(mlp, eager, kCPU)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(200);
BENCHMARK_CAPTURE(mlp, lazy, kLazy)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(200);
BENCHMARK(one_pool<TutorialCnn>)
    ->Name("cnn/one_pool")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(15);
BENCHMARK(one_pool<Mlp>)
    ->Name("mlp/one_pool")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(200);
void cnn_vs_torch(benchmark::State& state) {
  vs_torch<TutorialCnn>(state, "cnn");
}
void mlp_vs_torch(benchmark::State& state) {
  vs_torch<Mlp>(state, "mlp");
}
BENCHMARK(cnn_vs_torch)
    ->Name("cnn/vs_torch")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(25);
BENCHMARK(mlp_vs_torch)
    ->Name("mlp/vs_torch")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(200);
// The memory check: resident memory after the warm-up steps does not grow over 1000
// steps (rss_growth_mb). Run them with --benchmark_filter=steps_1000 (the CNN takes a minute).
BENCHMARK_CAPTURE(mlp, lazy_steps_1000, kLazy)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1000);
BENCHMARK_CAPTURE(cnn, lazy_steps_1000, kLazy)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1000);

}  // namespace
}  // namespace lazygen::examples

BENCHMARK_MAIN();
