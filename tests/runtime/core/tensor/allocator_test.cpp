// Tests for the caching cpu allocator (core/tensor/allocator.h) and Storage.
#include "core/tensor/allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "lazygen/types.h"

namespace lazygen {
namespace {

TEST(Allocator, SizeClassesRoundUpAtMostAQuarter) {
  EXPECT_EQ(CachingAllocator::size_class(1), 64u);
  EXPECT_EQ(CachingAllocator::size_class(64), 64u);
  EXPECT_EQ(CachingAllocator::size_class(65), 128u);
  EXPECT_EQ(CachingAllocator::size_class(1024), 1024u);
  EXPECT_EQ(CachingAllocator::size_class(1025), 1280u);
  EXPECT_EQ(CachingAllocator::size_class(64 << 20), size_t{64} << 20);
  EXPECT_EQ(CachingAllocator::size_class((64 << 20) + 1), size_t{80} << 20);
  for (size_t n = 1; n < (size_t{1} << 30); n = n * 3 + 7) {
    const size_t c = CachingAllocator::size_class(n);
    EXPECT_GE(c, n);
    EXPECT_LE(c, n + n / 4 + 64) << n;
    EXPECT_EQ(c % 64, 0u);
  }
}

TEST(Allocator, BlocksAre64ByteAligned) {
  CachingAllocator allocator;
  for (size_t n : {1, 100, 4096, 1 << 20}) {
    auto block = allocator.allocate(n);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block.data) % 64, 0u);
    allocator.release(block.data, block.capacity);
  }
}

TEST(Allocator, ReusesFreedBlockOfSameSizeClass) {
  CachingAllocator allocator;
  auto a = allocator.allocate(1000);
  allocator.release(a.data, a.capacity);
  auto b = allocator.allocate(990);  // same 1024-byte class
  EXPECT_EQ(b.data, a.data);
  auto s = allocator.stats();
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.hits, 1u);
  allocator.release(b.data, b.capacity);
}

TEST(Allocator, CachesLargeBlocksToo) {
  CachingAllocator allocator;
  auto a = allocator.allocate(size_t{64} << 20);
  allocator.release(a.data, a.capacity);
  EXPECT_EQ(allocator.stats().bytes_cached, size_t{64} << 20);
  auto b = allocator.allocate(size_t{64} << 20);
  EXPECT_EQ(b.data, a.data);
  EXPECT_EQ(allocator.stats().hits, 1u);
  allocator.release(b.data, b.capacity);
}

TEST(Allocator, StatsTrackBytesInUseCachedAndPeak) {
  CachingAllocator allocator;
  auto a = allocator.allocate(100);   // 128
  auto b = allocator.allocate(2000);  // 2048
  auto s = allocator.stats();
  EXPECT_EQ(s.bytes_in_use, 128u + 2048u);
  EXPECT_EQ(s.bytes_cached, 0u);
  allocator.release(a.data, a.capacity);
  s = allocator.stats();
  EXPECT_EQ(s.bytes_in_use, 2048u);
  EXPECT_EQ(s.bytes_cached, 128u);
  EXPECT_EQ(s.peak_bytes_in_use, 128u + 2048u);
  EXPECT_EQ(s.releases, 1u);
  allocator.reset_stats();
  EXPECT_EQ(allocator.stats().peak_bytes_in_use, 2048u);
  allocator.release(b.data, b.capacity);
  allocator.empty_cache();
  EXPECT_EQ(allocator.stats().bytes_cached, 0u);
}

TEST(Allocator, DifferentSizeClassesDoNotShareBlocks) {
  CachingAllocator allocator;
  auto a = allocator.allocate(64);
  allocator.release(a.data, a.capacity);
  auto b = allocator.allocate(128);
  EXPECT_EQ(allocator.stats().hits, 0u);
  allocator.release(b.data, b.capacity);
}

TEST(Allocator, BlocksBeyondTheCacheLimitGoBackToTheSystem) {
  CachingAllocator allocator;
  allocator.set_cache_limit(4096);
  auto a = allocator.allocate(4096);
  auto b = allocator.allocate(4096);
  allocator.release(a.data, a.capacity);
  allocator.release(b.data, b.capacity);
  EXPECT_EQ(allocator.stats().bytes_cached, 4096u);
}

TEST(Allocator, ZeroBytesGiveANullBlock) {
  CachingAllocator allocator;
  auto a = allocator.allocate(0);
  EXPECT_EQ(a.data, nullptr);
  allocator.release(a.data, a.capacity);
  EXPECT_EQ(allocator.stats().misses, 0u);
}

TEST(Allocator, IsSafeUnderConcurrentUse) {
  CachingAllocator allocator;
  auto work = [&] {
    for (int i = 0; i < 2000; ++i) {
      auto block = allocator.allocate(64 * (1 + i % 7));
      static_cast<char*>(block.data)[0] = 1;
      allocator.release(block.data, block.capacity);
    }
  };
  std::thread t1(work), t2(work);
  t1.join();
  t2.join();
  auto s = allocator.stats();
  EXPECT_EQ(s.hits + s.misses, 4000u);
  EXPECT_EQ(s.bytes_in_use, 0u);
}

TEST(Storage, ReturnsItsBlockToTheCpuAllocator) {
  void* data = nullptr;
  {
    auto storage = Storage::allocate_cpu(12345);
    data = storage->data();
    EXPECT_EQ(storage->nbytes(), 12345u);
    EXPECT_TRUE(storage->owns_data());
  }
  const auto hits = cpu_allocator().stats().hits;
  auto again = Storage::allocate_cpu(12345);
  EXPECT_EQ(again->data(), data);
  EXPECT_EQ(cpu_allocator().stats().hits, hits + 1);
}

TEST(Storage, WrapDoesNotOwn) {
  float buffer[4];
  auto storage = Storage::wrap(buffer, sizeof buffer);
  EXPECT_FALSE(storage->owns_data());
  EXPECT_EQ(storage->data(), buffer);
}

}  // namespace
}  // namespace lazygen
