// Tests of lazygen/metrics.h: counters, timed metrics, the report, thread safety.
#include "lazygen/metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace lazygen::metrics {
namespace {

TEST(Metrics, CountersAddAndReset) {
  Counter& c = counter("test.metrics.counter");
  c.reset();
  c.add();
  c.add(41);
  EXPECT_EQ(c.value(), 42);
  EXPECT_EQ(counter_value("test.metrics.counter"), 42);
  EXPECT_EQ(&counter("test.metrics.counter"), &c);  // one object per name
  c.reset();
  EXPECT_EQ(c.value(), 0);
  EXPECT_EQ(counter_value("test.metrics.never_registered"), 0);
}

TEST(Metrics, TimedMetricsKeepCountTotalAndPercentiles) {
  TimedMetric& t = timed("test.metrics.timed_ms");
  t.reset();
  for (int i = 1; i <= 100; ++i) t.record(i);
  TimedStats s = t.stats();
  EXPECT_EQ(s.count, 100);
  EXPECT_DOUBLE_EQ(s.total_ms, 5050);
  EXPECT_DOUBLE_EQ(s.mean_ms(), 50.5);
  EXPECT_DOUBLE_EQ(s.min_ms, 1);
  EXPECT_DOUBLE_EQ(s.max_ms, 100);
  EXPECT_DOUBLE_EQ(s.p50_ms, 50);
  EXPECT_DOUBLE_EQ(s.p90_ms, 90);
  EXPECT_DOUBLE_EQ(s.p99_ms, 99);
  ASSERT_TRUE(timed_stats("test.metrics.timed_ms").has_value());
  EXPECT_FALSE(timed_stats("test.metrics.never_registered").has_value());
}

TEST(Metrics, PercentilesUseTheMostRecentWindow) {
  TimedMetric& t = timed("test.metrics.window_ms");
  t.reset();
  for (size_t i = 0; i < TimedMetric::kWindow; ++i) t.record(1000);
  for (size_t i = 0; i < TimedMetric::kWindow; ++i) t.record(1);
  TimedStats s = t.stats();
  EXPECT_EQ(s.count, static_cast<int64_t>(2 * TimedMetric::kWindow));
  EXPECT_DOUBLE_EQ(s.p99_ms, 1);
  EXPECT_DOUBLE_EQ(s.max_ms, 1000);
}

TEST(Metrics, ScopedTimerRecordsOneSample) {
  TimedMetric& t = timed("test.metrics.scoped_ms");
  t.reset();
  { ScopedTimer timer(t); }
  EXPECT_EQ(t.stats().count, 1);
  EXPECT_GE(t.stats().total_ms, 0.0);
}

TEST(Metrics, ANameNamesOneKindOfMetric) {
  counter("test.metrics.kind");
  EXPECT_THROW(timed("test.metrics.kind"), std::invalid_argument);
}

TEST(Metrics, ReportListsNonZeroCountersAndTimedMetrics) {
  reset();
  counter("test.metrics.report_hits").add(7);
  counter("test.metrics.report_zero");
  timed("test.metrics.report_ms").record(2.5);
  std::string report = metrics_report();
  EXPECT_NE(report.find("counters\n"), std::string::npos) << report;
  EXPECT_NE(report.find("test.metrics.report_hits"), std::string::npos) << report;
  EXPECT_NE(report.find(" 7\n"), std::string::npos) << report;
  EXPECT_EQ(report.find("test.metrics.report_zero"), std::string::npos) << report;
  EXPECT_NE(report.find("timed (ms)"), std::string::npos) << report;
  EXPECT_NE(report.find("test.metrics.report_ms"), std::string::npos) << report;
  EXPECT_NE(report.find("2.500"), std::string::npos) << report;
}

TEST(Metrics, ReportSaysSoWhenNothingWasRecorded) {
  reset();
  EXPECT_EQ(metrics_report(), "no metrics recorded\n");
}

TEST(Metrics, CountersAreThreadSafe) {
  Counter& c = counter("test.metrics.threads");
  c.reset();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < 10000; ++i) counter("test.metrics.threads").add();
      for (int i = 0; i < 100; ++i) timed("test.metrics.threads_ms").record(i);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(c.value(), 40000);
  EXPECT_EQ(timed("test.metrics.threads_ms").stats().count, 400);
}

// See Note [Thread-local counters]: live threads' slots are summed on read, exited threads' are
// folded in, and a reset in the middle counts from the reset on.
TEST(Metrics, CountersSumLiveAndExitedThreadsAndResetWhileThreadsRun) {
  Counter& c = counter("test.metrics.thread_slots");
  c.reset();
  std::atomic<int> phase{0};
  std::thread live([&] {
    c.add(5);
    phase.store(1);
    while (phase.load() != 2) std::this_thread::yield();
    c.add(7);
    phase.store(3);
    while (phase.load() != 4) std::this_thread::yield();
  });
  while (phase.load() != 1) std::this_thread::yield();
  EXPECT_EQ(c.value(), 5);  // read while the adding thread is alive
  c.reset();
  EXPECT_EQ(c.value(), 0);
  phase.store(2);
  while (phase.load() != 3) std::this_thread::yield();
  EXPECT_EQ(c.value(), 7);
  phase.store(4);
  live.join();
  EXPECT_EQ(c.value(), 7);  // kept after the thread exited
  std::thread([&] { c.add(2); }).join();
  EXPECT_EQ(c.value(), 9);
}

TEST(Metrics, NamesAreSorted) {
  counter("test.metrics.b");
  counter("test.metrics.a");
  std::vector<std::string> all = names();
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
}

}  // namespace
}  // namespace lazygen::metrics
