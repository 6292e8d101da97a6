// Counters (lazygen/metrics.h) with per-thread slots.
//
// Note [Thread-local counters]
// Tracing one op bumps several counters (trie hit, op count, tensors created); one atomic
// read-modify-write each cost a fifth of the whole per-op trace budget, and with several threads
// tracing they would also bounce one cache line between cores. So every thread owns a slot per
// counter and add() is a plain load + store to it (relaxed atomics: only the owner writes, readers
// see whole values). value() sums the slots of the live threads under the thread-list lock, plus
// `retired_` (what exited threads had added, folded in by their exit hook), minus `offset_` (the
// total at the last reset(), so a reset never races with a thread's plain store).
// Slots come in chunks of kCounterChunk, allocated by their thread on first use and published
// through an atomic pointer, so a reader never sees a chunk being built.
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "lazygen/metrics.h"

namespace lazygen::metrics {
namespace detail {

constinit thread_local ThreadSlots* tls_counter_slots LAZYGEN_FAST_TLS = nullptr;

}  // namespace detail

struct CounterAccess {
  static std::atomic<int64_t>& retired(Counter& c) { return c.retired_; }
};

namespace {

using detail::kCounterChunk;
using detail::kCounterChunks;
using detail::ThreadSlots;

constinit thread_local bool tls_slots_gone LAZYGEN_FAST_TLS = false;

struct Threads {
  std::mutex mutex;
  std::vector<ThreadSlots*> live;
  std::vector<Counter*> counters;  // by index
};

// Leaked on purpose, like the metrics registry: threads exit after static destruction.
Threads& threads() {
  static Threads* t = new Threads;
  return *t;
}

// Sums slot `index` over the live threads. REQUIRES: threads().mutex held.
int64_t live_sum(const Threads& t, uint32_t index) {
  int64_t sum = 0;
  for (const ThreadSlots* slots : t.live) {
    const std::atomic<int64_t>* chunk =
        slots->chunks[index / kCounterChunk].load(std::memory_order_acquire);
    if (chunk != nullptr) sum += chunk[index % kCounterChunk].load(std::memory_order_relaxed);
  }
  return sum;
}

// Owns this thread's slots; at thread exit folds them into the counters and unregisters.
struct ThreadSlotsOwner {
  ThreadSlots slots;

  ThreadSlotsOwner() {
    Threads& t = threads();
    std::lock_guard<std::mutex> lock(t.mutex);
    t.live.push_back(&slots);
  }
  ~ThreadSlotsOwner() {
    Threads& t = threads();
    {
      std::lock_guard<std::mutex> lock(t.mutex);
      for (uint32_t c = 0; c < kCounterChunks; ++c) {
        std::atomic<int64_t>* chunk = slots.chunks[c].load(std::memory_order_relaxed);
        if (chunk == nullptr) continue;
        for (uint32_t i = 0; i < kCounterChunk; ++i) {
          const uint32_t index = c * kCounterChunk + i;
          const int64_t v = chunk[i].load(std::memory_order_relaxed);
          if (v != 0 && index < t.counters.size()) {
            CounterAccess::retired(*t.counters[index]).fetch_add(v, std::memory_order_relaxed);
          }
        }
        delete[] chunk;
      }
      std::erase(t.live, &slots);
    }
    detail::tls_counter_slots = nullptr;  // later adds on this thread go to `retired_` directly
    tls_slots_gone = true;
  }
};

}  // namespace

namespace detail {

void counter_add_slow(uint32_t index, int64_t n) {
  if (tls_slots_gone) {  // a thread-local destructor running after this thread's slots went
    Threads& t = threads();
    std::lock_guard<std::mutex> lock(t.mutex);
    CounterAccess::retired(*t.counters.at(index)).fetch_add(n, std::memory_order_relaxed);
    return;
  }
  thread_local ThreadSlotsOwner owner;  // destroyed at thread exit
  ThreadSlots* slots = tls_counter_slots = &owner.slots;
  std::atomic<std::atomic<int64_t>*>& chunk_ptr = slots->chunks[index / kCounterChunk];
  std::atomic<int64_t>* chunk = chunk_ptr.load(std::memory_order_relaxed);
  if (chunk == nullptr) {
    chunk = new std::atomic<int64_t>[kCounterChunk]();
    chunk_ptr.store(chunk, std::memory_order_release);
  }
  std::atomic<int64_t>& slot = chunk[index % kCounterChunk];
  slot.store(slot.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

}  // namespace detail

Counter::Counter(std::string name) : name_(std::move(name)) {
  Threads& t = threads();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (t.counters.size() >= size_t{kCounterChunk} * kCounterChunks) {
    throw std::length_error("metrics: more than " +
                            std::to_string(kCounterChunk * kCounterChunks) + " counters");
  }
  index_ = static_cast<uint32_t>(t.counters.size());
  t.counters.push_back(this);
}

int64_t Counter::value() const {
  Threads& t = threads();
  std::lock_guard<std::mutex> lock(t.mutex);
  return live_sum(t, index_) + retired_.load(std::memory_order_relaxed) -
         offset_.load(std::memory_order_relaxed);
}

void Counter::reset() {
  Threads& t = threads();
  std::lock_guard<std::mutex> lock(t.mutex);
  offset_.store(live_sum(t, index_) + retired_.load(std::memory_order_relaxed),
                std::memory_order_relaxed);
}

}  // namespace lazygen::metrics
