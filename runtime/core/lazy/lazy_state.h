// LazyState: what a lazy tensor's TensorImpl holds instead of a Storage, and the registry of
// every live one (so that mark_step can sync them all).
//
// Note [Lazy tensor state]
// A lazy tensor is in one of two states:
//   pending       `data` is undefined and `value` is the IR value that will compute it;
//   materialized  `data` holds the result on the backend's device (cpu for now), and `value` is
//                 either absent or the DeviceData node that feeds `data` to graphs traced in the
//                 current trace (bound by lazy::ir_value through the trie cache).
//   in flight    `data` is undefined and `launch` is the executor's launch computing it (See
//                Note [Asynchronous execution]): materialized() waits for it and takes its output.
// Ops create pending tensors; syncing (mark_step, item(), cpu(), printing) executes the pending
// value (or launches it) and makes the tensor materialized (or in flight), dropping its IR. An
// in-place op sets a new pending value and drops the old data reference (set_ir_value), so a tensor
// updated every step holds one graph and, after each sync, one buffer: neither grows. Data is never
// written while anything can read it: a new value is a new buffer, or the old one if only the
// execution holds it (Note [In-place outputs]).
//
// Note [Live tensors per thread]
// Each thread traces its own graphs (its own trie cache, core/ir/trie_cache.h), and mark_step
// syncs and ends the calling thread's trace. So the registry of live states is per thread too: a
// state registers with the registry of the thread that created it, and live_states() lists the
// calling thread's. A thread's mark_step therefore never touches tensors another thread is
// tracing. A state may die on another thread (it unlinks itself under its registry's lock); a
// registry outlives its thread and is handed to the next new thread, with any states still in it.
// A front end may bind several threads to one shared registry and trie: See Note [Trace
// contexts] in trace_context.h.
//
// Note [Failed executions]
// When executing a graph throws (an index out of range is only seen by the kernel), its launch
// keeps the error and every tensor that graph was to compute becomes failed when it takes the
// launch's result: no IR, no data, the error message kept. The first read raises what the
// kernel raised; later reads and uses raise ExecutionFailed with the same message (naming the op
// that failed), and a graph fed by a failed tensor fails with it. All else goes on: the thread's
// trace ends normally at that mark_step, and later steps do not try the failed graph again. An
// in-place op cannot revive a failed tensor (it reads its value first); assigning a new tensor
// to the variable does.
//
// Views: a lazy view (transpose, slice, view, ...) aliases its base as on the cpu; its state keeps
// the root of its view chain and the root's generation its value was computed from. See Note
// [Lazy views] in lazy_view.h.
//
// Thread safety: a LazyState follows Tensor's rule (one writer at a time). Registries are
// internally locked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/launch.h"
#include "core/ir/node.h"
#include "lazygen/tensor.h"

namespace lazygen::lazy {

struct LazyState;
struct View;

// The live states of one thread or trace context (See Note [Trace contexts] in
// trace_context.h): an intrusive doubly linked list under its own lock, so joining and leaving
// are O(1) without allocation.
struct LiveRegistry {
  std::mutex mutex;
  LazyState* head = nullptr;
  LazyState* tail = nullptr;
  size_t count = 0;
};

// A lazy tensor whose computation failed (See Note [Failed executions]).
class ExecutionFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LazyState : std::enable_shared_from_this<LazyState> {
  // Registers with the calling thread's live registry (or its bound trace context's);
  // unregisters in the destructor.
  LazyState();
  ~LazyState();
  LazyState(const LazyState&) = delete;
  LazyState& operator=(const LazyState&) = delete;

  bool failed() const { return error != nullptr; }
  bool in_flight() const { return launch != nullptr; }
  bool pending() const { return !data.defined() && !failed() && !in_flight(); }
  // The data, waiting for the launch computing it first. Throws ExecutionFailed when the
  // execution that was to compute it failed. REQUIRES: !pending().
  const Tensor& materialized();
  // Takes the launch's output or error once it has finished (without waiting).
  void take_launch_if_done();
  // Becomes pending on `v`, letting go of any data, error or launch.
  void set_pending(ir::Value v) {
    value = std::move(v);
    data = Tensor();
    error = nullptr;
    launch = nullptr;
  }

  ir::Value value;  // See Note [Lazy tensor state]
  Tensor data;
  // Why the execution computing this tensor failed; See Note [Failed executions].
  std::shared_ptr<const std::string> error;
  // In flight: the launch computing this tensor, and which of its outputs it is.
  std::shared_ptr<ir::Launch> launch;
  uint32_t launch_index = 0;

  // See Note [Lazy views]. A root counts its in-place updates in `generation`; a view holds its
  // chain and the root's generation its value and data were computed from.
  uint64_t generation = 0;
  std::shared_ptr<const View> view;
  uint64_t view_generation = 0;
  // The root's state when this tensor is a view (the root is never a view itself), else null.
  const std::shared_ptr<LazyState>& view_root() const;
  // A view whose root was updated in place since its value was computed: its value and data
  // are out of date, and lazy_state() recomputes them from the root before anyone reads them.
  bool stale() const { return view != nullptr && view_generation != view_root()->generation; }

  // Registry links, guarded by the registry's lock.
  LiveRegistry* const registry_;
  LazyState* prev_live = nullptr;
  LazyState* next_live = nullptr;
};

// Every LazyState created by the calling thread (or in the trace context it is bound to) and
// alive now (pending or not), oldest first. See Note [Live tensors per thread].
std::vector<std::shared_ptr<LazyState>> live_states();
size_t live_state_count();  // of the calling thread or its bound context

}  // namespace lazygen::lazy
