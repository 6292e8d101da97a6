// The trace caches stay within their bounds however shapes change (Note [Bounded trie] in
// core/ir/trie_cache.h, the computation cache's entries and bytes in exec/graph_executor.h):
// 10,000 steps over random shapes and ranks, each a new trace branch and mostly a new graph.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <random>
#include <vector>

#include "core/ir/trie_cache.h"
#include "exec/graph_executor.h"
#include "lazygen/composite.h"
#include "lazygen/device.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/amax.h"
#include "lazygen/generated/ops/max.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/operators.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen {
namespace {

// Under AddressSanitizer freed memory waits in its quarantine (resident), and LeakSanitizer checks
// for leaks instead.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kMeasuresResidentMemory = false;
#else
constexpr bool kMeasuresResidentMemory = true;
#endif

double rss_mb() {
  std::ifstream statm("/proc/self/statm");
  double size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

TEST(BoundedCaches, TenThousandStepsOverRandomShapesStayWithinTheirBounds) {
  constexpr size_t kTrieNodes = 2000, kComputations = 64, kBytes = size_t{1} << 20;
  set_trie_cache_capacity(kTrieNodes);
  set_computation_cache_capacity(kComputations, kBytes);
  exec::GraphExecutor& executor = exec::GraphExecutor::global();
  std::mt19937 rng(1);
  std::uniform_int_distribution<int64_t> rank(1, 4), size(1, 24);
  const int64_t evictions = metrics::counter_value("computation_cache.evict");
  double rss_warm = 0;
  size_t max_trie = 0, max_entries = 0, max_bytes = 0;
  for (int step = 0; step < 10000; ++step) {
    std::vector<int64_t> sizes(static_cast<size_t>(rank(rng)));
    for (int64_t& s : sizes) s = size(rng);
    const Tensor x = randn(sizes).to(kLazy);
    const Tensor y = relu(x * 2.0 + 1.0);
    const Tensor z = sum(y * y, std::vector<int64_t>{-1}) + amax(y);
    mark_step();
    if (step % 97 == 0) {
      EXPECT_GE(z.cpu().numel(), 1);
    }
    max_trie = std::max(max_trie, ir::TrieCache::current().size());
    max_entries = std::max(max_entries, executor.cache_size());
    max_bytes = std::max(max_bytes, executor.cache_bytes());
    if (step == 2000) rss_warm = rss_mb();
  }
  wait_device_ops();
  // A trace's own nodes are never evicted while it runs: at most one step's beyond the bound.
  EXPECT_LE(max_trie, kTrieNodes + 16);
  EXPECT_LE(max_entries, kComputations);
  EXPECT_LE(max_bytes, kBytes + size_t{24 * 24 * 24 * 24 * 4});  // the newest entry may exceed it
  EXPECT_GT(metrics::counter_value("computation_cache.evict") - evictions, 1000);
  if (kMeasuresResidentMemory) {
    EXPECT_LT(rss_mb() - rss_warm, 16.0) << "resident memory grew over 8000 steps";
  }
  set_trie_cache_capacity(ir::TrieCache::kDefaultCapacity);
  set_computation_cache_capacity(exec::GraphExecutor::kDefaultCacheCapacity);
}

}  // namespace
}  // namespace lazygen
