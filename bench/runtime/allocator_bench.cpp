// The caching allocator: what reuse buys for a 64 MiB buffer, and the cost of small blocks.
//
// BM_Fresh64MiB allocates a block the cache cannot serve (cache limit 0), writes it once and
// frees it: the system maps new pages and every first touch faults. BM_Reused64MiB does the same
// through the cache, so after the first iteration the pages are already mapped.
// BM_FreshVsReused64MiB times both alternately in one run and reports their ratio (`speedup`),
// the number to quote (the machine is shared and noisy). BM_Small* compare 256-byte blocks with
// malloc/free.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "core/tensor/allocator.h"

namespace lazygen {
namespace {

constexpr size_t kBig = size_t{64} << 20;

// Seconds to allocate, write and release one kBig block.
double touch_once(CachingAllocator& allocator) {
  const auto start = std::chrono::steady_clock::now();
  auto block = allocator.allocate(kBig);
  std::memset(block.data, 1, kBig);
  benchmark::DoNotOptimize(block.data);
  allocator.release(block.data, block.capacity);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void run_big(benchmark::State& state, size_t cache_limit) {
  CachingAllocator allocator;
  allocator.set_cache_limit(cache_limit);
  for (auto _ : state) touch_once(allocator);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBig));
  const auto stats = allocator.stats();
  state.counters["hits"] = static_cast<double>(stats.hits);
  state.counters["misses"] = static_cast<double>(stats.misses);
}

void BM_Fresh64MiB(benchmark::State& state) {
  run_big(state, 0);
}
void BM_Reused64MiB(benchmark::State& state) {
  run_big(state, CachingAllocator::kDefaultCacheLimit);
}

void BM_FreshVsReused64MiB(benchmark::State& state) {
  CachingAllocator fresh, reused;
  fresh.set_cache_limit(0);
  touch_once(reused);  // warm: the reused allocator holds one mapped block from here on
  double fresh_s = 0, reused_s = 0;
  for (auto _ : state) {
    fresh_s += touch_once(fresh);
    reused_s += touch_once(reused);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["fresh_GBps"] = n * kBig / fresh_s / 1e9;
  state.counters["reused_GBps"] = n * kBig / reused_s / 1e9;
  state.counters["speedup"] = fresh_s / reused_s;
}

void BM_SmallCached(benchmark::State& state) {
  CachingAllocator allocator;
  for (auto _ : state) {
    auto block = allocator.allocate(256);
    benchmark::DoNotOptimize(block.data);
    allocator.release(block.data, block.capacity);
  }
}

void BM_SmallMalloc(benchmark::State& state) {
  for (auto _ : state) {
    void* p = std::malloc(256);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
}

BENCHMARK(BM_Fresh64MiB)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reused64MiB)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FreshVsReused64MiB)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SmallCached);
BENCHMARK(BM_SmallMalloc);

}  // namespace
}  // namespace lazygen

BENCHMARK_MAIN();
