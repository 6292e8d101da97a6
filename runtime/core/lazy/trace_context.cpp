// Trace contexts (core/lazy/trace_context.h) and the live registries they hold: one intrusive
// doubly linked list each under its own lock, so registering and unregistering are O(1) without
// allocation.
#include "core/lazy/trace_context.h"

#include <mutex>

#include "core/lazy/lazy_state.h"
#include "lazygen/tls.h"

namespace lazygen::lazy {
namespace {

// Registries of exited threads and destroyed contexts, for the next ones. Registries are never
// freed: a state may outlive its thread or context and still unlink itself from its registry.
struct Pool {
  std::mutex mutex;
  std::vector<LiveRegistry*> free;
};
Pool& pool() {
  static Pool* p = new Pool;  // leaked on purpose, like the registries
  return *p;
}

LiveRegistry* acquire_registry() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  if (p.free.empty()) return new LiveRegistry;
  LiveRegistry* r = p.free.back();
  p.free.pop_back();
  return r;
}

void recycle_registry(LiveRegistry* r) {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.free.push_back(r);
}

// A thread's own state; see Note [Live tensors per thread].
struct ThreadState {
  LiveRegistry* registry = acquire_registry();
  std::vector<ir::NodePtr> bound_device_data;
  ~ThreadState() { recycle_registry(registry); }
};

ThreadState& this_thread() {
  thread_local ThreadState state;
  return state;
}

thread_local TraceContext* t_bound LAZYGEN_FAST_TLS = nullptr;

}  // namespace

TraceContext::TraceContext() : registry_(acquire_registry()) {}

TraceContext::~TraceContext() {
  recycle_registry(registry_);
}

TraceContextScope::TraceContextScope(TraceContext& context)
    : previous_(t_bound), trie_(context.trie_) {
  t_bound = &context;
}

TraceContextScope::~TraceContextScope() {
  t_bound = previous_;
}

LiveRegistry& current_registry() {
  return t_bound != nullptr ? *t_bound->registry_ : *this_thread().registry;
}

std::vector<ir::NodePtr>& current_bound_device_data() {
  return t_bound != nullptr ? t_bound->bound_device_data_ : this_thread().bound_device_data;
}

}  // namespace lazygen::lazy
