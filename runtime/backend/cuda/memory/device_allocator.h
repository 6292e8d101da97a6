// The caching device allocator: device blocks in size classes, kept on per-stream free lists for
// reuse, over a small raw-allocation interface (RawDeviceMemory) so that its bookkeeping runs and
// is tested on the host with a fake provider; cuda_memory.cpp gives it cudaMalloc/cudaFree.
//
// Why: cudaMalloc and cudaFree synchronize the device and cost tens of microseconds, and eager
// and lazy execution allocate the same sizes step after step (PyTorch's CUDACachingAllocator).
//
// Size classes: requests round up to a multiple of 512 bytes up to 1 MiB, then to the next of 4
// steps per power of two (1, 1.25, 1.5, 1.75 x 2^k), so at most 25% is wasted.
// See Note [Stream-ordered reuse].
// Out of memory: when the provider has no memory, the device's cached blocks are synchronized
// and freed and the request is retried once; if it still fails, allocate throws
// DeviceOutOfMemory with the request, the bytes in use and the bytes cached.
// Thread safety: every member function may be called concurrently (one mutex).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace lazygen::cuda {

// A stream as the allocator sees it: an opaque id (a cudaStream_t's bits; 0 is the default stream).
using StreamId = std::uintptr_t;

// Where blocks come from. Implementations: cudaMalloc (cuda_memory.cpp), fakes in tests.
class RawDeviceMemory {
 public:
  virtual ~RawDeviceMemory() = default;
  // `bytes` (> 0) of memory on `device`; nullptr when the device is out of memory. Other
  // failures throw std::runtime_error.
  virtual void* allocate(int device, std::size_t bytes) = 0;
  virtual void free(int device, void* ptr) = 0;
  // Waits until all work queued on `device` is done (before cached blocks go back).
  virtual void synchronize(int device) = 0;
};

struct DeviceOutOfMemory : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct DeviceAllocatorStats {
  uint64_t hits = 0;               // allocations served from a free list
  uint64_t misses = 0;             // allocations that needed a new block from the provider
  uint64_t releases = 0;           // blocks handed back by the user
  uint64_t oom_retries = 0;        // provider out of memory: cache freed, request retried
  uint64_t bytes_in_use = 0;       // capacity of blocks handed out and not yet released
  uint64_t peak_bytes_in_use = 0;  // maximum of bytes_in_use since construction or reset
  uint64_t bytes_cached = 0;       // capacity of blocks waiting on free lists
};

class DeviceCachingAllocator {
 public:
  // REQUIRES: `raw` outlives the allocator.
  explicit DeviceCachingAllocator(RawDeviceMemory& raw) : raw_(raw) {}
  ~DeviceCachingAllocator();  // gives every cached block back (blocks in use are leaked)
  DeviceCachingAllocator(const DeviceCachingAllocator&) = delete;
  DeviceCachingAllocator& operator=(const DeviceCachingAllocator&) = delete;

  // A block of at least `nbytes` on `device` for use on `stream`; nullptr for 0 bytes.
  void* allocate(int device, std::size_t nbytes, StreamId stream);
  // Gives back a block from allocate(): it goes on the free list of its device, size class and
  // stream. Throws std::invalid_argument for a pointer this allocator did not hand out.
  void release(void* ptr);
  // The size class of a block in use (0 for nullptr).
  std::size_t capacity(void* ptr) const;

  // Synchronizes each device with cached blocks and gives those blocks back to the provider.
  void empty_cache();
  DeviceAllocatorStats stats() const;
  void reset_peak();  // sets the peak to the current use

  static std::size_t size_class(std::size_t nbytes);

 private:
  struct InUse {
    int device;
    std::size_t capacity;
    StreamId stream;
  };
  using FreeKey = std::tuple<int, StreamId, std::size_t>;  // device, stream, capacity

  void* take_cached(const FreeKey& key);
  void* allocate_new(int device, std::size_t capacity);
  void free_cached(int device);  // REQUIRES: mutex_ held

  RawDeviceMemory& raw_;
  mutable std::mutex mutex_;
  std::map<FreeKey, std::vector<void*>> free_lists_;
  std::unordered_map<void*, InUse> in_use_;
  DeviceAllocatorStats stats_;
};

}  // namespace lazygen::cuda
