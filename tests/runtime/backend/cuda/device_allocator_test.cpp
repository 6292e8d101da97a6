// Tests of the caching device allocator's bookkeeping (backend/cuda/memory/device_allocator.h) over
// a fake provider: host memory, an optional byte budget that plays "out of memory", and a log of
// what the allocator asked for. No GPU or driver needed.
#include "backend/cuda/memory/device_allocator.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

namespace lazygen::cuda {
namespace {

class FakeMemory final : public RawDeviceMemory {
 public:
  std::size_t budget = SIZE_MAX;  // bytes the fake device holds
  std::size_t used = 0;
  int allocations = 0, frees = 0, syncs = 0;
  std::set<int> devices_allocated;

  void* allocate(int device, std::size_t bytes) override {
    if (used + bytes > budget) return nullptr;
    used += bytes;
    ++allocations;
    devices_allocated.insert(device);
    void* p = std::malloc(bytes);
    sizes_[p] = bytes;
    return p;
  }
  void free(int /*device*/, void* ptr) override {
    used -= sizes_.at(ptr);
    sizes_.erase(ptr);
    ++frees;
    std::free(ptr);
  }
  void synchronize(int /*device*/) override { ++syncs; }
  ~FakeMemory() override {
    for (auto& [p, n] : sizes_) std::free(p);
  }

 private:
  std::map<void*, std::size_t> sizes_;
};

TEST(DeviceAllocator, SizeClassesRoundTo512BytesThenQuarterPowersOfTwo) {
  EXPECT_EQ(DeviceCachingAllocator::size_class(1), 512u);
  EXPECT_EQ(DeviceCachingAllocator::size_class(512), 512u);
  EXPECT_EQ(DeviceCachingAllocator::size_class(513), 1024u);
  EXPECT_EQ(DeviceCachingAllocator::size_class(1 << 20), std::size_t{1} << 20);
  EXPECT_EQ(DeviceCachingAllocator::size_class((1 << 20) + 1), (std::size_t{1} << 20) * 5 / 4);
  EXPECT_EQ(DeviceCachingAllocator::size_class(3 << 20), std::size_t{3} << 20);
  EXPECT_EQ(DeviceCachingAllocator::size_class((3 << 20) + 1), std::size_t{7} << 19);
  for (std::size_t n = 1; n < (std::size_t{1} << 30); n = n * 3 + 7) {
    const std::size_t c = DeviceCachingAllocator::size_class(n);
    EXPECT_GE(c, n);
    EXPECT_LE(c, n < 512 ? 512 : n + n / 4 + 512) << n;
  }
}

TEST(DeviceAllocator, ZeroBytesIsNullAndNeedsNoMemory) {
  FakeMemory raw;
  DeviceCachingAllocator a(raw);
  EXPECT_EQ(a.allocate(0, 0, 0), nullptr);
  a.release(nullptr);
  EXPECT_EQ(raw.allocations, 0);
}

TEST(DeviceAllocator, ReleasedBlockIsReusedBySameStreamAndSizeClass) {
  FakeMemory raw;
  DeviceCachingAllocator a(raw);
  void* p = a.allocate(0, 1000, 7);
  EXPECT_EQ(a.capacity(p), 1024u);
  a.release(p);
  EXPECT_EQ(a.stats().bytes_cached, 1024u);
  void* q = a.allocate(0, 1024, 7);  // same class
  EXPECT_EQ(q, p);
  const DeviceAllocatorStats s = a.stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.bytes_cached, 0u);
  EXPECT_EQ(s.bytes_in_use, 1024u);
  EXPECT_EQ(raw.allocations, 1);
  a.release(q);
}

TEST(DeviceAllocator, ReleasedBlockIsNotHandedToAnotherStreamOrDevice) {
  FakeMemory raw;
  DeviceCachingAllocator a(raw);
  void* p = a.allocate(0, 4096, 1);
  a.release(p);
  void* other_stream = a.allocate(0, 4096, 2);
  void* other_device = a.allocate(1, 4096, 1);
  EXPECT_NE(other_stream, p);
  EXPECT_NE(other_device, p);
  EXPECT_EQ(raw.allocations, 3);
  EXPECT_EQ(raw.devices_allocated, (std::set<int>{0, 1}));
  EXPECT_EQ(a.allocate(0, 4000, 1), p);  // its own stream still gets it
  EXPECT_EQ(a.stats().hits, 1u);
}

TEST(DeviceAllocator, StatsTrackUseAndPeak) {
  FakeMemory raw;
  DeviceCachingAllocator a(raw);
  void* p = a.allocate(0, 2048, 0);
  void* q = a.allocate(0, 512, 0);
  EXPECT_EQ(a.stats().bytes_in_use, 2560u);
  a.release(p);
  DeviceAllocatorStats s = a.stats();
  EXPECT_EQ(s.bytes_in_use, 512u);
  EXPECT_EQ(s.peak_bytes_in_use, 2560u);
  EXPECT_EQ(s.releases, 1u);
  a.reset_peak();
  EXPECT_EQ(a.stats().peak_bytes_in_use, 512u);
  a.release(q);
}

TEST(DeviceAllocator, ReleasingAForeignPointerThrows) {
  FakeMemory raw;
  DeviceCachingAllocator a(raw);
  int x = 0;
  EXPECT_THROW(a.release(&x), std::invalid_argument);
  void* p = a.allocate(0, 64, 0);
  a.release(p);
  EXPECT_THROW(a.release(p), std::invalid_argument);  // twice
}

TEST(DeviceAllocator, EmptyCacheSynchronizesThenFreesOnlyCachedBlocks) {
  FakeMemory raw;
  DeviceCachingAllocator a(raw);
  void* kept = a.allocate(0, 512, 0);
  a.release(a.allocate(0, 8192, 0));
  a.release(a.allocate(1, 8192, 0));
  a.empty_cache();
  EXPECT_EQ(raw.frees, 2);
  EXPECT_EQ(raw.syncs, 2);  // once per device with cached blocks
  EXPECT_EQ(a.stats().bytes_cached, 0u);
  EXPECT_EQ(a.capacity(kept), 512u);
  a.empty_cache();  // nothing cached: no sync
  EXPECT_EQ(raw.syncs, 2);
  a.release(kept);
}

TEST(DeviceAllocator, OutOfMemoryFreesTheCacheAndRetriesOnce) {
  FakeMemory raw;
  raw.budget = 3 << 20;
  DeviceCachingAllocator a(raw);
  a.release(a.allocate(0, 2 << 20, 0));  // 2 MiB cached, only 1 MiB left
  void* p = a.allocate(0, 2 << 20, 5);   // other stream: needs the cache freed
  EXPECT_NE(p, nullptr);
  EXPECT_EQ(a.stats().oom_retries, 1u);
  EXPECT_EQ(raw.frees, 1);
  EXPECT_EQ(raw.syncs, 1);
  a.release(p);
}

TEST(DeviceAllocator, OutOfMemoryAfterTheRetryThrowsWithTheRequest) {
  FakeMemory raw;
  raw.budget = 1 << 20;
  DeviceCachingAllocator a(raw);
  void* held = a.allocate(0, 1 << 20, 0);
  try {
    a.allocate(0, 4 << 20, 0);
    ADD_FAILURE() << "expected DeviceOutOfMemory";
  } catch (const DeviceOutOfMemory& e) {
    EXPECT_EQ(std::string(e.what()),
              "CUDA out of memory on cuda:0: tried to allocate 4194304 bytes (4 MiB); 1 MiB in use "
              "by tensors, cache emptied");
  }
  EXPECT_EQ(a.stats().bytes_in_use, std::size_t{1} << 20);  // unchanged by the failure
  a.release(held);
}

TEST(DeviceAllocator, DestructionGivesCachedBlocksBack) {
  FakeMemory raw;
  {
    DeviceCachingAllocator a(raw);
    a.release(a.allocate(0, 100, 0));
    a.release(a.allocate(0, 100000, 0));
  }
  EXPECT_EQ(raw.frees, 2);
  EXPECT_EQ(raw.used, 0u);
}

}  // namespace
}  // namespace lazygen::cuda
