// Tests for core/thread_pool.h.
#include "core/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace lazygen::cpu {
namespace {

TEST(ThreadPool, CoversTheRangeExactlyOnce) {
  std::vector<std::atomic<int>> hits(100000);
  parallel_for(0, 100000, 1000, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) hits[i]++;
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST(ThreadPool, SplitsLargeRangesAcrossThreads) {
  if (num_threads() < 2) GTEST_SKIP() << "one hardware thread";
  std::mutex mutex;
  std::set<std::thread::id> ids;
  std::atomic<int> calls{0};
  parallel_for(0, 1 << 20, 1 << 10, [&](int64_t, int64_t) {
    ++calls;
    {
      std::lock_guard<std::mutex> lock(mutex);
      ids.insert(std::this_thread::get_id());
    }
    // Long enough that the caller cannot claim every chunk before a worker wakes.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  });
  EXPECT_EQ(calls.load(), num_threads());
  EXPECT_EQ(ids.size(), static_cast<size_t>(num_threads()));
}

TEST(ThreadPool, SplitsShortCountsExactly) {
  if (num_threads() < 2) GTEST_SKIP() << "one hardware thread";
  std::mutex mutex;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  parallel_for(0, num_threads(), 1, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(mutex);
    ranges.emplace_back(b, e);
  });
  ASSERT_EQ(ranges.size(), static_cast<size_t>(num_threads()));
  for (const auto& [b, e] : ranges) EXPECT_EQ(e - b, 1) << b;
}

TEST(ThreadPool, RunsShortRangesOnTheCaller) {
  std::thread::id id;
  int calls = 0;
  parallel_for(10, 20, 100, [&](int64_t b, int64_t e) {
    EXPECT_EQ(b, 10);
    EXPECT_EQ(e, 20);
    id = std::this_thread::get_id();
    ++calls;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(id, std::this_thread::get_id());
  parallel_for(5, 5, 1, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 1);
}

TEST(ThreadPool, RethrowsTheFirstException) {
  EXPECT_THROW(parallel_for(0, 1 << 16, 1 << 10,
                            [](int64_t b, int64_t) {
                              if (b == 0) throw std::runtime_error("boom");
                            }),
               std::runtime_error);
  // The pool still works afterwards.
  std::atomic<int64_t> sum{0};
  parallel_for(0, 1 << 16, 1 << 10, [&](int64_t b, int64_t e) { sum += e - b; });
  EXPECT_EQ(sum.load(), 1 << 16);
}

TEST(ThreadPool, NestedCallsRunSerially) {
  std::atomic<int64_t> total{0};
  parallel_for(0, 1 << 12, 1 << 10, [&](int64_t b, int64_t e) {
    parallel_for(b, e, 1, [&](int64_t ib, int64_t ie) { total += ie - ib; });
  });
  EXPECT_EQ(total.load(), 1 << 12);
}

TEST(ThreadPool, ConcurrentCallersBothComplete) {
  std::atomic<int64_t> total{0};
  auto work = [&] {
    for (int i = 0; i < 200; ++i) {
      parallel_for(0, 1 << 14, 1 << 10, [&](int64_t b, int64_t e) { total += e - b; });
    }
  };
  std::thread a(work), b(work);
  a.join();
  b.join();
  EXPECT_EQ(total.load(), int64_t{400} << 14);
}

TEST(ThreadPool, NumThreadsCanBeChanged) {
  const int before = num_threads();
  set_num_threads(1);
  EXPECT_EQ(num_threads(), 1);
  int calls = 0;
  parallel_for(0, 1 << 20, 1, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 1);
  set_num_threads(before);
  EXPECT_EQ(num_threads(), before);
}

}  // namespace
}  // namespace lazygen::cpu
