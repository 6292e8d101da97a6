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
#include <fstream>
#include <memory>
#include <utility>
#include <vector>

#include "ops/cpu/blas_gemm.h"
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
