// TraceContext: the tracing state that is per thread by default (the live registry, the trie
// cache and the DeviceData nodes bound in the current trace), made bindable so that several
// threads can trace one graph.
//
// Note [Trace contexts]
// By default each thread traces its own graphs (Note [Live tensors per thread], Note [Trie
// cache]). A front end whose ops for one logical step arrive on several threads binds those
// threads to one shared TraceContext for the duration of each call: the PyTorch device does so
// because PyTorch's autograd engine runs the backward pass on a thread of its own, while
// mark_step() is called on the training thread and must sync what backward traced. Bound, a
// thread registers new lazy tensors in the context's registry, traces through the context's trie
// and lets mark_step/end_trace work on the context's live tensors; unbound again, it is back on
// its own state. Nothing else changes: execution, caches and metrics are shared anyway.
//
// Thread safety: a context is not locked. The front end must make sure that at most one thread
// traces through a context at a time (the PyTorch device holds a lock while bound); lazy
// tensors may still be destroyed on any thread (registries are internally locked).
#pragma once

#include <vector>

#include "core/ir/node.h"
#include "core/ir/trie_cache.h"

namespace lazygen::lazy {

struct LiveRegistry;

class TraceContext {
 public:
  TraceContext();
  // REQUIRES: no thread is bound to it. Its lazy tensors may live on; they stay registered in
  // a registry that is recycled, never freed (as with a thread's own, Note [Live tensors per
  // thread]).
  ~TraceContext();
  TraceContext(const TraceContext&) = delete;
  TraceContext& operator=(const TraceContext&) = delete;

  ir::TrieCache& trie() { return trie_; }

 private:
  friend class TraceContextScope;
  friend LiveRegistry& current_registry();
  friend std::vector<ir::NodePtr>& current_bound_device_data();

  LiveRegistry* registry_;
  ir::TrieCache trie_;
  std::vector<ir::NodePtr> bound_device_data_;
};

// Binds the calling thread to `context` until destroyed (scopes nest; the previous binding
// comes back). See Note [Trace contexts].
class TraceContextScope {
 public:
  explicit TraceContextScope(TraceContext& context);
  ~TraceContextScope();
  TraceContextScope(const TraceContextScope&) = delete;
  TraceContextScope& operator=(const TraceContextScope&) = delete;

 private:
  TraceContext* previous_;
  ir::TrieCache::Binding trie_;
};

// The live registry new lazy tensors join and live_states() lists: the bound context's, else the
// calling thread's own.
LiveRegistry& current_registry();
// The DeviceData nodes bound since the last end_trace, of the bound context or the thread.
std::vector<ir::NodePtr>& current_bound_device_data();

}  // namespace lazygen::lazy
