// Metrics: named counters and timed metrics that the runtime updates as it traces, compiles and
// runs, and a readable report of them (ninja's metrics, LTC's metrics report).
//
// Names are dotted lowercase and say where they come from: `ir.nodes_created`,
// `trie_cache.hit`, `lazy.op.add.Tensor`, `computation_cache.miss`, `exec.compile_ms`.
// A metric is registered on first use and lives until the process exits, so a reference to it
// may be cached in a function-local static:
//
//   static metrics::Counter& created = metrics::counter("ir.nodes_created");
//   created.add();
//
// Cost: Counter::add is one relaxed atomic add (safe on hot paths such as tracing one op).
// TimedMetric::record takes a lock; use it once per compile or execution, not per element.
// Thread safety: everything here may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lazygen::metrics {

// A monotonically updated integer (events, bytes).
class Counter {
 public:
  explicit Counter(std::string name) : name_(std::move(name)) {}
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;

  void add(int64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  int64_t value() const { return value_.load(std::memory_order_relaxed); }
  void reset() { value_.store(0, std::memory_order_relaxed); }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::atomic<int64_t> value_{0};
};

// Summary of a timed metric. Percentiles are over the most recent kWindow samples; count, total,
// min and max are over every sample since the last reset. All times are in milliseconds.
struct TimedStats {
  int64_t count = 0;
  double total_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  double p50_ms = 0;
  double p90_ms = 0;
  double p99_ms = 0;
  double mean_ms() const { return count ? total_ms / static_cast<double>(count) : 0.0; }
};

// A stream of durations (compile time, execute time).
class TimedMetric {
 public:
  static constexpr size_t kWindow = 1024;

  explicit TimedMetric(std::string name);
  ~TimedMetric();
  TimedMetric(const TimedMetric&) = delete;
  TimedMetric& operator=(const TimedMetric&) = delete;

  void record(double ms);
  TimedStats stats() const;
  void reset();
  const std::string& name() const { return name_; }

 private:
  struct State;
  std::string name_;
  State* state_;  // owned; behind a pointer so this header needs no <mutex>
};

// Records the time from construction to destruction into `metric`.
class ScopedTimer {
 public:
  explicit ScopedTimer(TimedMetric& metric)
      : metric_(metric), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() {
    std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start_;
    metric_.record(elapsed.count());
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  TimedMetric& metric_;
  std::chrono::steady_clock::time_point start_;
};

// The metric named `name`, registered on first use. References stay valid for the process.
// A name names one kind of metric: asking for a counter under a timed metric's name throws.
Counter& counter(std::string_view name);
TimedMetric& timed(std::string_view name);

// Current value of a counter; 0 when it was never registered.
int64_t counter_value(std::string_view name);
// Statistics of a timed metric; nullopt when it was never registered.
std::optional<TimedStats> timed_stats(std::string_view name);
// Every registered metric name, sorted.
std::vector<std::string> names();
// Zeroes every counter and clears every timed metric (registrations stay).
void reset();

}  // namespace lazygen::metrics

namespace lazygen {

// A readable table of every counter with a non-zero value and every timed metric with samples,
// sorted by name, e.g.
//
//   counters
//     computation_cache.hit                  9
//   timed (ms)                count      total       mean        p50        p90        p99 max
//     exec.compile_ms             1      0.412      0.412      0.412      0.412      0.412 0.412
std::string metrics_report();

}  // namespace lazygen
