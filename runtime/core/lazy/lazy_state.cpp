// The live-state registry of core/lazy/lazy_state.h: an intrusive doubly linked list under one
// lock, so registering and unregistering are O(1) without allocation.
#include "core/lazy/lazy_state.h"

#include <mutex>

namespace lazygen::lazy {
namespace {

struct Registry {
  std::mutex mutex;
  LazyState* head = nullptr;
  LazyState* tail = nullptr;
  size_t count = 0;
};

// Leaked on purpose: tensors in static or thread-local storage may die after main returns.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

}  // namespace

LazyState::LazyState() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  prev_live = r.tail;
  (r.tail ? r.tail->next_live : r.head) = this;
  r.tail = this;
  ++r.count;
}

LazyState::~LazyState() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  (prev_live ? prev_live->next_live : r.head) = next_live;
  (next_live ? next_live->prev_live : r.tail) = prev_live;
  --r.count;
}

std::vector<std::shared_ptr<LazyState>> live_states() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::shared_ptr<LazyState>> out;
  out.reserve(r.count);
  for (LazyState* s = r.head; s != nullptr; s = s->next_live) {
    // Empty while the state is being constructed or destroyed on another thread: skip it.
    if (std::shared_ptr<LazyState> locked = s->weak_from_this().lock()) out.push_back(locked);
  }
  return out;
}

size_t live_state_count() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.count;
}

}  // namespace lazygen::lazy
