// The live-state registries of core/lazy/lazy_state.h: one intrusive doubly linked list per
// thread under its own lock, so registering and unregistering are O(1) without allocation.
#include "core/lazy/lazy_state.h"

#include <mutex>
#include <vector>

namespace lazygen::lazy {

// One per thread (recycled after the thread exits); see Note [Live tensors per thread].
struct LiveRegistry {
  std::mutex mutex;
  LazyState* head = nullptr;
  LazyState* tail = nullptr;
  size_t count = 0;
};

namespace {

// Registries of exited threads, for the next new thread. Registries are never freed: a state
// may outlive its thread and still unlink itself from its registry.
struct Pool {
  std::mutex mutex;
  std::vector<LiveRegistry*> free;
};
Pool& pool() {
  static Pool* p = new Pool;  // leaked on purpose, like the registries
  return *p;
}

struct ThreadRegistry {
  LiveRegistry* registry;
  ThreadRegistry() {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (p.free.empty()) {
      registry = new LiveRegistry;
    } else {
      registry = p.free.back();
      p.free.pop_back();
    }
  }
  ~ThreadRegistry() {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    p.free.push_back(registry);
  }
};

LiveRegistry& this_thread_registry() {
  thread_local ThreadRegistry r;
  return *r.registry;
}

}  // namespace

LazyState::LazyState() : registry_(&this_thread_registry()) {
  LiveRegistry& r = *registry_;
  std::lock_guard<std::mutex> lock(r.mutex);
  prev_live = r.tail;
  (r.tail ? r.tail->next_live : r.head) = this;
  r.tail = this;
  ++r.count;
}

LazyState::~LazyState() {
  LiveRegistry& r = *registry_;
  std::lock_guard<std::mutex> lock(r.mutex);
  (prev_live ? prev_live->next_live : r.head) = next_live;
  (next_live ? next_live->prev_live : r.tail) = prev_live;
  --r.count;
}

void LazyState::take_launch_if_done() {
  if (launch == nullptr || !launch->done()) return;
  if (launch->error() != nullptr) error = launch->error();
  else data = launch->output(launch_index);
  launch = nullptr;
}

const Tensor& LazyState::materialized() {
  if (launch != nullptr) {
    const std::shared_ptr<ir::Launch> l = launch;
    l->wait();
    take_launch_if_done();
    // The first read of a failed result raises what the kernel raised; later ones ExecutionFailed.
    if (l->exception()) std::rethrow_exception(l->exception());
  }
  if (failed()) throw ExecutionFailed("this lazy tensor's computation failed: " + *error);
  return data;
}

std::vector<std::shared_ptr<LazyState>> live_states() {
  LiveRegistry& r = this_thread_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::shared_ptr<LazyState>> out;
  out.reserve(r.count);
  for (LazyState* s = r.head; s != nullptr; s = s->next_live) {
    // Empty while the state is being destroyed on another thread: skip it.
    if (std::shared_ptr<LazyState> locked = s->weak_from_this().lock()) out.push_back(locked);
  }
  return out;
}

size_t live_state_count() {
  LiveRegistry& r = this_thread_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.count;
}

}  // namespace lazygen::lazy
