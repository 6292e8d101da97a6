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
// Cost: Counter::add is a plain add to the calling thread's own slot, no atomic read-modify-write
// (safe and cheap on hot paths such as tracing one op, also with many threads tracing at once).
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

#include "lazygen/tls.h"

namespace lazygen::metrics {

namespace detail {

// Per-thread counter slots. See Note [Thread-local counters] in core/metrics/counter.cpp.
inline constexpr uint32_t kCounterChunk = 64;    // slots per chunk
inline constexpr uint32_t kCounterChunks = 128;  // so at most 8192 counters
struct ThreadSlots {
  std::atomic<std::atomic<int64_t>*> chunks[kCounterChunks] = {};
};
extern constinit thread_local ThreadSlots* tls_counter_slots LAZYGEN_FAST_TLS;
void counter_add_slow(uint32_t index, int64_t n);

}  // namespace detail

// A monotonically updated integer (events, bytes).
class Counter {
 public:
  explicit Counter(std::string name);
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;

  // No atomic read-modify-write: the calling thread's own slot. Safe from any thread.
  void add(int64_t n = 1) {
    if (detail::ThreadSlots* t = detail::tls_counter_slots) {
      if (std::atomic<int64_t>* chunk =
              t->chunks[index_ / detail::kCounterChunk].load(std::memory_order_relaxed)) {
        std::atomic<int64_t>& slot = chunk[index_ % detail::kCounterChunk];
        slot.store(slot.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
        return;
      }
    }
    detail::counter_add_slow(index_, n);
  }
  // The sum over every thread since the last reset (exact once the adding threads are quiet).
  int64_t value() const;
  void reset();
  const std::string& name() const { return name_; }
  uint32_t index() const { return index_; }

 private:
  friend struct CounterAccess;
  std::string name_;
  uint32_t index_;
  std::atomic<int64_t> retired_{0};  // added by threads that have exited
  std::atomic<int64_t> offset_{0};   // the total at the last reset
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
