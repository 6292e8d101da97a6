// The metrics registry (lazygen/metrics.h): name -> metric maps under one lock, timed metrics
// with a fixed window of recent samples for percentiles, and the text report.
#include "lazygen/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace lazygen::metrics {
namespace {

struct Registry {
  std::mutex mutex;
  // std::less<> allows lookups by string_view without building a std::string.
  std::map<std::string, std::unique_ptr<Counter>, std::less<>> counters;
  std::map<std::string, std::unique_ptr<TimedMetric>, std::less<>> timed;
};

// Leaked on purpose: metrics are touched from static destructors (thread-local trie caches) and
// must outlive them.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

[[noreturn]] void throw_kind_clash(std::string_view name, const char* wanted) {
  throw std::invalid_argument("metric '" + std::string(name) + "' is already registered as " +
                              "another kind; cannot use it as a " + wanted);
}

// The metric `name` in `mine`, registered on first use; throws if `other` has the name.
template <class Metric, class OtherMap>
Metric& find_or_register(std::map<std::string, std::unique_ptr<Metric>, std::less<>>& mine,
                         const OtherMap& other, std::string_view name, const char* kind) {
  if (auto it = mine.find(name); it != mine.end()) return *it->second;
  if (other.count(name)) throw_kind_clash(name, kind);
  auto [it, inserted] = mine.emplace(name, std::make_unique<Metric>(std::string(name)));
  return *it->second;
}

// Nearest-rank percentile of sorted samples.
double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0.0;
  auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

struct TimedMetric::State {
  mutable std::mutex mutex;
  std::vector<double> window;  // ring buffer of the latest kWindow samples
  size_t next = 0;
  int64_t count = 0;
  double total = 0;
  double min = std::numeric_limits<double>::infinity();
  double max = 0;
};

TimedMetric::TimedMetric(std::string name) : name_(std::move(name)), state_(new State) {}
TimedMetric::~TimedMetric() {
  delete state_;
}

void TimedMetric::record(double ms) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  State& s = *state_;
  if (s.window.size() < kWindow) {
    s.window.push_back(ms);
  } else {
    s.window[s.next] = ms;
  }
  s.next = (s.next + 1) % kWindow;
  ++s.count;
  s.total += ms;
  s.min = std::min(s.min, ms);
  s.max = std::max(s.max, ms);
}

TimedStats TimedMetric::stats() const {
  std::vector<double> sorted;
  TimedStats out;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    sorted = state_->window;
    out.count = state_->count;
    out.total_ms = state_->total;
    out.min_ms = state_->count ? state_->min : 0.0;
    out.max_ms = state_->max;
  }
  std::sort(sorted.begin(), sorted.end());
  out.p50_ms = percentile(sorted, 0.50);
  out.p90_ms = percentile(sorted, 0.90);
  out.p99_ms = percentile(sorted, 0.99);
  return out;
}

void TimedMetric::reset() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->window.clear();
  state_->next = 0;
  state_->count = 0;
  state_->total = 0;
  state_->min = std::numeric_limits<double>::infinity();
  state_->max = 0;
}

Counter& counter(std::string_view name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return find_or_register(r.counters, r.timed, name, "counter");
}

TimedMetric& timed(std::string_view name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return find_or_register(r.timed, r.counters, name, "timed metric");
}

int64_t counter_value(std::string_view name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.counters.find(name);
  return it == r.counters.end() ? 0 : it->second->value();
}

std::optional<TimedStats> timed_stats(std::string_view name) {
  TimedMetric* metric = nullptr;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.timed.find(name);
    if (it == r.timed.end()) return std::nullopt;
    metric = it->second.get();
  }
  return metric->stats();  // metrics are never unregistered, so the pointer stays valid
}

std::vector<std::string> names() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> out;
  for (const auto& [name, c] : r.counters) out.push_back(name);
  for (const auto& [name, t] : r.timed) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

void reset() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto& [name, c] : r.counters) c->reset();
  for (auto& [name, t] : r.timed) t->reset();
}

}  // namespace lazygen::metrics

namespace lazygen {
namespace {

std::string format_row(const char* fmt, const std::string& name, const metrics::TimedStats& s) {
  char line[256];
  std::snprintf(line, sizeof line, fmt, name.c_str(), static_cast<long long>(s.count), s.total_ms,
                s.mean_ms(), s.p50_ms, s.p90_ms, s.p99_ms, s.max_ms);
  return line;
}

std::string counters_section() {
  std::string out;
  for (const std::string& name : metrics::names()) {
    int64_t v = metrics::counter_value(name);
    if (v == 0) continue;
    char line[160];
    std::snprintf(line, sizeof line, "  %-36s %12lld\n", name.c_str(), static_cast<long long>(v));
    out += line;
  }
  return out.empty() ? out : "counters\n" + out;
}

std::string timed_section() {
  std::string out;
  for (const std::string& name : metrics::names()) {
    std::optional<metrics::TimedStats> s = metrics::timed_stats(name);
    if (!s || s->count == 0) continue;
    out += format_row("  %-24s %8lld %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", name, *s);
  }
  if (out.empty()) return out;
  char header[200];
  std::snprintf(header, sizeof header, "%-26s %8s %10s %10s %10s %10s %10s %10s\n", "timed (ms)",
                "count", "total", "mean", "p50", "p90", "p99", "max");
  return header + out;
}

}  // namespace

std::string metrics_report() {
  std::string out = counters_section() + timed_section();
  return out.empty() ? "no metrics recorded\n" : out;
}

}  // namespace lazygen
