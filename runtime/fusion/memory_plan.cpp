// Arena placement of intermediate buffers (memory_plan.h).
#include "fusion/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace lazygen::fusion {
namespace {

constexpr int64_t kAlignment = 64;

int64_t aligned(int64_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

bool lifetimes_overlap(const BufferRequest& a, const BufferRequest& b) {
  return a.first_step <= b.last_step && b.first_step <= a.last_step;
}

// The lowest offset at which `bytes` fits between `taken` ranges (sorted by offset).
int64_t first_fit(std::vector<std::pair<int64_t, int64_t>>& taken, int64_t bytes) {
  std::sort(taken.begin(), taken.end());
  int64_t offset = 0;
  for (const auto& [begin, end] : taken) {
    if (offset + bytes <= begin) break;
    offset = std::max(offset, end);
  }
  return offset;
}

}  // namespace

MemoryPlan plan_memory(const std::vector<BufferRequest>& requests) {
  MemoryPlan plan;
  plan.offsets.assign(requests.size(), 0);
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return requests[a].bytes > requests[b].bytes; });
  std::vector<size_t> placed;
  std::vector<std::pair<int64_t, int64_t>> taken;
  for (size_t r : order) {
    const int64_t bytes = aligned(requests[r].bytes);
    taken.clear();
    for (size_t p : placed) {
      if (lifetimes_overlap(requests[r], requests[p])) {
        taken.emplace_back(plan.offsets[p], plan.offsets[p] + aligned(requests[p].bytes));
      }
    }
    plan.offsets[r] = first_fit(taken, bytes);
    plan.arena_bytes = std::max(plan.arena_bytes, plan.offsets[r] + bytes);
    placed.push_back(r);
  }
  return plan;
}

}  // namespace lazygen::fusion
