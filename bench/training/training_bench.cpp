// Training-step benchmarks: milliseconds per step of the tutorial CNN and the 784-128-10 MLP
// (torch_peer.py's `cnn` and `mlp`, Adadelta lr 1, batches of 64), eager (cpu) and lazy. A step
// is what train_cnn times: batch to device, zero_grad, forward, nll_loss, backward, optimizer
// step and, on the lazy device, mark_step + wait_device_ops. Batches are synthetic (normal
// images, uniform labels; timing does not depend on the data, and the benchmark needs no
// dataset); 5 untimed warm-up steps (the lazy graph compiles in the first two) come first.
// rss_growth_mb is the resident-memory growth over the timed steps (LTC's leak shows there).
// Compare lazy and eager, and torch_peer's numbers, only from the same machine and run.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <fstream>
#include <memory>
#include <vector>

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

template <class Model>
void train_steps(benchmark::State& state, Device device) {
  manual_seed(0);
  Generator data_gen(1234);
  std::vector<Tensor> images, targets;
  for (int i = 0; i < kBatches; ++i) {
    images.push_back(randn({kBatch, 1, 28, 28}, data_gen));
    targets.push_back(randint(0, 10, {kBatch}, data_gen));
  }
  Model model;
  model.to(device);
  optim::Adadelta opt(model.parameters());
  int step = 0;
  auto one_step = [&] {
    const int i = step++ % kBatches;
    train_step(model, opt, images[i], targets[i], device);
    if (device.is_lazy()) wait_device_ops();
  };
  for (int i = 0; i < kWarmup; ++i) one_step();
  const double rss_start = rss_mb();
  for (auto _ : state) one_step();
  state.counters["rss_growth_mb"] = rss_mb() - rss_start;
  state.counters["steps_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void cnn(benchmark::State& state, Device device) {
  train_steps<TutorialCnn>(state, device);
}
void mlp(benchmark::State& state, Device device) {
  train_steps<Mlp>(state, device);
}

// Like torch_peer's defaults: 5 untimed steps, then a fixed number of timed ones.
BENCHMARK_CAPTURE(cnn, eager, kCPU)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(25);
BENCHMARK_CAPTURE(cnn, lazy, kLazy)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(25);
BENCHMARK_CAPTURE(mlp, eager, kCPU)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(200);
BENCHMARK_CAPTURE(mlp, lazy, kLazy)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(200);
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
