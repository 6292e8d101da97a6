// The caching cpu allocator (allocator.h).
#include "core/tensor/allocator.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace lazygen {
namespace {

constexpr std::size_t kSmallLimit = 1024;  // sizes up to here use 64-byte steps
constexpr int kSmallClasses = 16;
constexpr int kFirstLargeExponent = 11;                  // 1 KiB < n <= 2 KiB
constexpr std::size_t kMaxBytes = std::size_t{1} << 50;  // the largest size class
constexpr std::size_t kHugePage = std::size_t{2} << 20;

// A new block from the system. Blocks of 2 MiB and more are 2 MiB aligned and asked to be backed
// by transparent huge pages: one page fault per 2 MiB instead of 512, and one TLB entry too.
void* system_allocate(std::size_t capacity) {
  if (capacity < kHugePage) return std::aligned_alloc(CachingAllocator::kAlignment, capacity);
  // aligned_alloc wants a multiple of the alignment; size classes above 2 MiB step by quarters.
  const std::size_t rounded = (capacity + kHugePage - 1) / kHugePage * kHugePage;
  void* data = std::aligned_alloc(kHugePage, rounded);
#if defined(MADV_HUGEPAGE)
  if (data != nullptr) madvise(data, capacity, MADV_HUGEPAGE);  // advice only: failure is fine
#endif
  return data;
}

}  // namespace

CachingAllocator::~CachingAllocator() {
  empty_cache();
}

std::size_t CachingAllocator::size_class(std::size_t nbytes) {
  if (nbytes <= kSmallLimit) return (nbytes + kAlignment - 1) / kAlignment * kAlignment;
  const int e = std::bit_width(nbytes - 1);  // 2^(e-1) < nbytes <= 2^e
  const std::size_t step = std::size_t{1} << (e - 3);
  const std::size_t base = std::size_t{1} << (e - 1);
  return base + (nbytes - base + step - 1) / step * step;
}

int CachingAllocator::class_index(std::size_t capacity) {
  if (capacity <= kSmallLimit) return static_cast<int>(capacity / kAlignment) - 1;
  const int e = std::bit_width(capacity - 1);
  const std::size_t base = std::size_t{1} << (e - 1);
  const int quarter = static_cast<int>((capacity - base) >> (e - 3));  // 1..4
  return kSmallClasses + (e - kFirstLargeExponent) * 4 + quarter - 1;
}

CachingAllocator::Block CachingAllocator::allocate(std::size_t nbytes) {
  if (nbytes == 0) return {};
  if (nbytes > kMaxBytes) throw std::bad_alloc();
  const std::size_t capacity = size_class(nbytes);
  const int index = class_index(capacity);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& list = free_lists_[static_cast<size_t>(index)];
    if (!list.empty()) {
      void* data = list.back();
      list.pop_back();
      ++stats_.hits;
      stats_.bytes_cached -= capacity;
      stats_.bytes_in_use += capacity;
      stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
      return {data, capacity};
    }
  }
  // Allocate outside the lock: a fresh large block may take a while to map.
  void* data = system_allocate(capacity);
  if (data == nullptr) throw std::bad_alloc();
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.misses;
  stats_.bytes_in_use += capacity;
  stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  return {data, capacity};
}

void CachingAllocator::release(void* data, std::size_t capacity) {
  if (data == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.releases;
    stats_.bytes_in_use -= capacity;
    if (stats_.bytes_cached + capacity <= cache_limit_) {
      free_lists_[static_cast<size_t>(class_index(capacity))].push_back(data);
      stats_.bytes_cached += capacity;
      return;
    }
  }
  std::free(data);
}

void CachingAllocator::empty_cache() {
  std::array<std::vector<void*>, kNumClasses> lists;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    lists.swap(free_lists_);
    stats_.bytes_cached = 0;
  }
  for (auto& list : lists) {
    for (void* data : list) std::free(data);
  }
}

void CachingAllocator::set_cache_limit(std::size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  cache_limit_ = bytes;
}

AllocatorStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void CachingAllocator::reset_stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.hits = stats_.misses = stats_.releases = 0;
  stats_.peak_bytes_in_use = stats_.bytes_in_use;
}

CachingAllocator& cpu_allocator() {
  static auto* allocator = new CachingAllocator();  // leaked on purpose; see the header
  return *allocator;
}

}  // namespace lazygen
