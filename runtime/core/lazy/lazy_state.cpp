// LazyState (core/lazy/lazy_state.h): joining and leaving a live registry, and taking a launch's
// result.
#include "core/lazy/lazy_state.h"

#include <mutex>
#include <vector>

#include "core/lazy/trace_context.h"

namespace lazygen::lazy {

LazyState::LazyState() : registry_(&current_registry()) {
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
  LiveRegistry& r = current_registry();
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
  LiveRegistry& r = current_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.count;
}

}  // namespace lazygen::lazy
