// The caching cpu allocator: 64-byte aligned blocks in size classes, kept on free lists for reuse.
//
// Why: a fresh multi-megabyte block is mmap'ed and page-faults on first touch (about 5 GB/s on
// these machines) while a reused one runs at memory bandwidth (about 40 GB/s), and lazy execution
// allocates the same sizes step after step. So freed blocks of every size are cached, up to a
// cache limit (beyond it a freed block goes back to the system).
//
// Size classes: sizes up to 1 KiB round up to a multiple of 64 bytes; larger sizes round up to
// the next of 4 steps per power of two (1, 1.25, 1.5, 1.75 x 2^k), so at most 25% is wasted.
// A request is served from the free list of its class (a hit) or by a new block (a miss).
// New blocks of 2 MiB or more are 2 MiB aligned and madvise'd for transparent huge pages (Linux),
// which makes first touch several times faster and keeps large tensors TLB-friendly.
//
// Thread safety: all member functions may be called concurrently (one mutex; the critical
// sections are a vector push or pop).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace lazygen {

struct AllocatorStats {
  uint64_t hits = 0;               // allocations served from the cache
  uint64_t misses = 0;             // allocations that needed a new block from the system
  uint64_t releases = 0;           // blocks handed back
  uint64_t bytes_in_use = 0;       // capacity of blocks handed out and not yet released
  uint64_t peak_bytes_in_use = 0;  // maximum of bytes_in_use since construction or reset
  uint64_t bytes_cached = 0;       // capacity of blocks waiting on free lists
};

class CachingAllocator {
 public:
  static constexpr std::size_t kAlignment = 64;
  static constexpr std::size_t kDefaultCacheLimit = std::size_t{8} << 30;

  struct Block {
    void* data = nullptr;
    std::size_t capacity = 0;  // the size class: what release() must be given back
  };

  CachingAllocator() = default;
  ~CachingAllocator();  // returns every cached block to the system
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // A block of at least `nbytes` (capacity = size_class(nbytes)); {nullptr, 0} for 0 bytes.
  // Throws std::bad_alloc when the system has no memory left.
  Block allocate(std::size_t nbytes);
  // Gives back a block from allocate(); it is cached unless the cache limit would be exceeded.
  void release(void* data, std::size_t capacity);

  // Frees every cached block (blocks in use are unaffected).
  void empty_cache();
  void set_cache_limit(std::size_t bytes);
  AllocatorStats stats() const;
  // Zeroes the counters and sets the peak to the current use.
  void reset_stats();

  // The capacity a request of `nbytes` gets (see the size classes above).
  static std::size_t size_class(std::size_t nbytes);

 private:
  static constexpr int kNumClasses = 16 + 4 * 40;  // 1 KiB in 64 B steps, then 2^11 .. 2^50
  static int class_index(std::size_t capacity);

  mutable std::mutex mutex_;
  std::array<std::vector<void*>, kNumClasses> free_lists_;
  std::size_t cache_limit_ = kDefaultCacheLimit;
  AllocatorStats stats_;
};

// The process-wide cpu allocator behind Storage::allocate_cpu. Never destroyed, so storages
// released during static destruction stay valid.
CachingAllocator& cpu_allocator();

}  // namespace lazygen
