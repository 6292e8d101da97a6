// A new batch size on the CUDA backend, without a GPU (compile() and specialize() touch neither the
// driver nor the device; NVRTC runs on the host): the tutorial CNN's training step graph at batch
// 37, compiled from scratch against the graph compiled at batch 64 specialized to it (See Note
// [Specializing a fusion plan] in fusion/specialize.h).
//   compile/warm_nvrtc   CudaBackend::compile of the batch-37 graph with NVRTC's kernel cache
//                        already holding every group's PTX: planning, kernel emission and cache
//                        lookups, what the executor paid per new size before specialize existed
//   specialize           CudaBackend::specialize of the batch-64 executable to the batch-37 graph:
//                        the plan rebound, kernels taken from the batch-64 executable
// Counters: groups (fusion groups of the step), cold_ms (the first compile, NVRTC compiling every
// group), reused (groups whose binary the specialization shared, per iteration).
#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <vector>

#include "backend/cuda/lazy/cuda_backend.h"
#include "backend/cuda/lazy/cuda_executable.h"
#include "backend/graph.h"
#include "core/lazy/lazy_tensor.h"
#include "runtime/backend/cuda/tutorial_cnn_step.h"

namespace lazygen {
namespace {

// The pending graph of `outs`, as the executor builds it at mark_step.
exec::Graph graph_of(const std::vector<Tensor>& outs) {
  std::vector<ir::Value> roots;
  for (const Tensor& t : outs) roots.push_back(lazy::lazy_state(t).value);
  return exec::Graph(std::move(roots));
}

cuda::CudaBackend::Options sm90_in_memory() {
  cuda::CudaBackend::Options o;
  o.arch = 90;
  o.cache.dir = std::filesystem::path();  // NVRTC's kernel cache in memory only
  return o;
}

// The training step's graph at `batch`; its tensors stay pending (no mark_step) while it lives.
struct StepGraph {
  explicit StepGraph(int64_t batch)
      : run(kLazy, batch), outs(run.step(kLazy)), graph(graph_of(outs)) {}
  testing::CnnRun run;
  std::vector<Tensor> outs;
  exec::Graph graph;
};

void compile_warm_nvrtc(benchmark::State& state) {
  cuda::CudaBackend backend(sm90_in_memory());
  const StepGraph step(37);
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<exec::Executable> e = backend.compile(step.graph);  // fills NVRTC's cache
  state.counters["cold_ms"] =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  for (auto _ : state) benchmark::DoNotOptimize(e = backend.compile(step.graph));
  state.counters["groups"] =
      static_cast<double>(static_cast<const cuda::CudaExecutable&>(*e).groups.size());
  mark_step();
}

void specialize(benchmark::State& state) {
  cuda::CudaBackend backend(sm90_in_memory());
  const StepGraph at64(64);
  const std::unique_ptr<exec::Executable> compiled = backend.compile(at64.graph);
  const StepGraph at37(37);
  const int64_t before = metrics::counter_value("cuda.lazy.specialize_kernel_reuse");
  std::unique_ptr<exec::Executable> e;
  for (auto _ : state) {
    e = backend.specialize(*compiled, at37.graph);
    if (!e) state.SkipWithError("the batch-64 plan does not serve batch 37");
  }
  const auto groups =
      static_cast<double>(static_cast<const cuda::CudaExecutable&>(*compiled).groups.size());
  state.counters["groups"] = groups;
  state.counters["reused"] =
      static_cast<double>(metrics::counter_value("cuda.lazy.specialize_kernel_reuse") - before) /
      static_cast<double>(state.iterations());
  mark_step();
}

BENCHMARK(compile_warm_nvrtc)
    ->Name("cuda_cnn_step/compile/warm_nvrtc")
    ->Unit(benchmark::kMillisecond);
BENCHMARK(specialize)->Name("cuda_cnn_step/specialize")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace lazygen

BENCHMARK_MAIN();
