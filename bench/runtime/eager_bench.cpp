// Eager cpu kernels: per-op overhead on tiny tensors, and throughput on large ones reported
// against the copy bandwidth measured in the same run.
//
// BM_TinyAdd* time what a generated eager kernel does for add.Tensor on 4-element tensors (shape
// rule, output allocation, run_pointwise) and run_pointwise alone. BM_Add* run 16M-element
// float32 kernels (64 MiB per operand) through each engine path; `copy_GBps` is a parallel
// memcpy of one operand over the same threads, measured just before, and `ratio` is the kernel's
// bandwidth over it (1.0 means the kernel runs at copy speed; bytes = every operand read or
// written once). The second argument is the thread count.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "core/tensor/shape_rules.h"
#include "core/tensor/tensor_impl.h"
#include "core/thread_pool.h"
#include "lazygen/factory.h"
#include "ops/cpu/custom_kernels.h"
#include "ops/cpu/pointwise.h"

namespace lazygen::kernels {
// The functor lazygen generates for add.Tensor (lazygen/generated/pointwise_ops.h).
struct AddTensor {
  static constexpr int kTensors = 2;
  static constexpr int kScalars = 1;
  template <class T>
  LAZYGEN_HD auto operator()(T self, T other, T alpha) const {
    return self + alpha * other;
  }
};
}  // namespace lazygen::kernels

namespace lazygen::cpu {
namespace {

using kernels::AddTensor;
using Clock = std::chrono::steady_clock;
constexpr int64_t kSide = 4096, kN = kSide * kSide;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Read + write bandwidth of a memcpy of `bytes` split over the pool's threads (best of 5).
double copy_gbps(void* dst, const void* src, int64_t bytes) {
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto start = Clock::now();
    parallel_for(0, bytes, 1 << 20, [&](int64_t b, int64_t e) {
      std::memcpy(static_cast<char*>(dst) + b, static_cast<const char*>(src) + b, e - b);
    });
    best = std::min(best, seconds_since(start));
  }
  return 2.0 * static_cast<double>(bytes) / best / 1e9;
}

void BM_TinyAddWithAllocation(benchmark::State& state) {
  const Tensor a = full({4}, 1.0f), b = full({4}, 2.0f);
  for (auto _ : state) {
    const Shape sa = a.shape(), sb = b.shape();
    Tensor out = empty(shape_rules::broadcast("add.Tensor", {&sa, &sb}),
                       shape_rules::result_type({&sa, &sb}));
    run_pointwise<AddTensor>("add.Tensor", out, {a, b}, {1}, DType::Float32);
    benchmark::DoNotOptimize(out.raw_data());
  }
}

void BM_TinyAddIntoPreallocated(benchmark::State& state) {
  const Tensor a = full({4}, 1.0f), b = full({4}, 2.0f);
  Tensor out = empty({4});
  for (auto _ : state) {
    run_pointwise<AddTensor>("add.Tensor", out, {a, b}, {1}, DType::Float32);
    benchmark::DoNotOptimize(out.raw_data());
  }
}

// Runs `kernel` (which reads/writes `bytes` per call) and reports bandwidth against a copy.
template <class Kernel>
void report_against_copy(benchmark::State& state, const Tensor& scratch, double bytes,
                         Kernel kernel) {
  const int threads_before = num_threads();
  set_num_threads(static_cast<int>(state.range(0)));
  Tensor copy_dst = empty_like(scratch);
  const double copy = copy_gbps(copy_dst.raw_data(), scratch.raw_data(),
                                scratch.numel() * static_cast<int64_t>(itemsize(scratch.dtype())));
  kernel();  // warm: output pages mapped, pool awake
  const auto start = Clock::now();
  for (auto _ : state) kernel();
  const double gbps = bytes * static_cast<double>(state.iterations()) / seconds_since(start) / 1e9;
  state.counters["GBps"] = gbps;
  state.counters["copy_GBps"] = copy;
  state.counters["ratio"] = gbps / copy;
  set_num_threads(threads_before);
}

void BM_AddContiguous(benchmark::State& state) {
  Generator g(1);
  const Tensor a = rand({kN}, g), b = rand({kN}, g);
  Tensor out = empty({kN});
  report_against_copy(state, a, 3.0 * 4 * kN, [&] {
    run_pointwise<AddTensor>("add.Tensor", out, {a, b}, {1}, DType::Float32);
  });
}

void BM_AddInPlace(benchmark::State& state) {
  Generator g(2);
  const Tensor a = rand({kN}, g), b = rand({kN}, g);
  report_against_copy(state, a, 3.0 * 4 * kN, [&] {
    run_pointwise<AddTensor>("add_.Tensor", a, {a, b}, {1}, DType::Float32);
  });
}

void BM_AddBroadcastRow(benchmark::State& state) {
  Generator g(3);
  const Tensor a = rand({kSide, kSide}, g), row = rand({kSide}, g);
  Tensor out = empty({kSide, kSide});
  report_against_copy(state, a, 2.0 * 4 * kN, [&] {
    run_pointwise<AddTensor>("add.Tensor", out, {a, row}, {1}, DType::Float32);
  });
}

void BM_AddTransposed(benchmark::State& state) {
  Generator g(4);
  const Tensor a = rand({kSide, kSide}, g), b = rand({kSide, kSide}, g);
  const Tensor at = transpose_int(a, 0, 1);
  Tensor out = empty({kSide, kSide});
  report_against_copy(state, a, 3.0 * 4 * kN, [&] {
    run_pointwise<AddTensor>("add.Tensor", out, {at, b}, {1}, DType::Float32);
  });
}

void BM_AddMixedDTypes(benchmark::State& state) {
  Generator g(5);
  const Tensor a = randint(0, 100, {kN}, g, DType::Int32), b = rand({kN}, g);
  Tensor out = empty({kN});
  report_against_copy(state, b, 3.0 * 4 * kN, [&] {
    run_pointwise<AddTensor>("add.Tensor", out, {a, b}, {1}, DType::Float32);
  });
}

void BM_SumAll(benchmark::State& state) {
  Generator g(6);
  const Tensor a = rand({kN}, g);
  report_against_copy(state, a, 4.0 * kN,
                      [&] { benchmark::DoNotOptimize(sum(a, std::nullopt).raw_data()); });
}

void BM_SumColumns(benchmark::State& state) {
  Generator g(7);
  const Tensor a = rand({kSide, kSide}, g);
  const std::optional<std::vector<int64_t>> dims = std::vector<int64_t>{0};
  report_against_copy(state, a, 4.0 * kN, [&] {
    benchmark::DoNotOptimize(sum_dim_intlist(a, dims, false, std::nullopt).raw_data());
  });
}

// Batch norm's statistics and gradient sums: [32, 64, 32, 32] over (0, 2, 3), one value a channel.
void BM_SumChannels(benchmark::State& state) {
  Generator g(8);
  const Tensor a = rand({32, 64, 32, 32}, g);
  const std::optional<std::vector<int64_t>> dims = std::vector<int64_t>{0, 2, 3};
  report_against_copy(state, a, 4.0 * a.numel(), [&] {
    benchmark::DoNotOptimize(sum_dim_intlist(a, dims, false, std::nullopt).raw_data());
  });
}

// A linear layer's bias gradient: [1024, 512] over dim 0, one row of outputs.
void BM_SumBiasGradient(benchmark::State& state) {
  Generator g(9);
  const Tensor a = rand({1024, 512}, g);
  const std::optional<std::vector<int64_t>> dims = std::vector<int64_t>{0};
  report_against_copy(state, a, 4.0 * a.numel(), [&] {
    benchmark::DoNotOptimize(sum_dim_intlist(a, dims, false, std::nullopt).raw_data());
  });
}

BENCHMARK(BM_TinyAddWithAllocation);
BENCHMARK(BM_TinyAddIntoPreallocated);
#define LAZYGEN_BANDWIDTH_BENCH(name) \
  BENCHMARK(name)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()
LAZYGEN_BANDWIDTH_BENCH(BM_AddContiguous);
LAZYGEN_BANDWIDTH_BENCH(BM_AddInPlace);
LAZYGEN_BANDWIDTH_BENCH(BM_AddBroadcastRow);
LAZYGEN_BANDWIDTH_BENCH(BM_AddTransposed);
LAZYGEN_BANDWIDTH_BENCH(BM_AddMixedDTypes);
LAZYGEN_BANDWIDTH_BENCH(BM_SumAll);
LAZYGEN_BANDWIDTH_BENCH(BM_SumColumns);
LAZYGEN_BANDWIDTH_BENCH(BM_SumChannels);
LAZYGEN_BANDWIDTH_BENCH(BM_SumBiasGradient);

}  // namespace
}  // namespace lazygen::cpu

BENCHMARK_MAIN();
