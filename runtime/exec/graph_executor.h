// GraphExecutor: turns the pending IR of lazy tensors into results.
//
// sync(states) gathers the pending values of `states` into one Graph (exec/graph.h), looks its
// key up in the computation cache (an LRU of compiled executables; key = Graph::hash() mixed
// with the backend's name, see Note [Graph hash]), compiles on a miss (storing the executable
// only once compile succeeded), feeds the inputs (DeviceData data, ScalarParam values) and
// executes. Each synced tensor then holds its result as data and drops its IR
// (See Note [Lazy tensor state]). mark_step() syncs every live lazy tensor of the calling thread
// and ends its trace (lazy::end_trace: the trie cache returns to its root).
//
// Consequences: the same trace hits the cache from the second step on; a new input shape or
// dtype compiles anew; a new scalar value or new input data does not.
//
// Note [Asynchronous execution]
// Execution is synchronous for now: sync returns with results in place. The API already has the
// shape asynchrony needs: sync() captures everything execution reads (input tensors, scalar
// values) before executing, so a worker thread can take over execute() later, and
// wait_device_ops() (Backend::synchronize) is the barrier callers use.
//
// Syncing the very roots of a recent sync again (every step of a loop) skips building the graph
// and the cache lookup: See Note [Graph memo].
//
// A failed execution marks the tensors it was to compute as failed and rethrows: See Note
// [Failed executions].
//
// Metrics: computation_cache.{hit,miss,evict}, exec.{sync,mark_step,graph_nodes,graph_memo_hit,failed},
// exec.{build_graph_ms,compile_ms,execute_ms}.
// Thread safety: all methods may be called from any thread; syncs are serialized.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "backend/backend.h"
#include "core/ir/hash.h"
#include "core/lazy/lazy_state.h"
#include "exec/graph_memo.h"
#include "exec/lru_cache.h"

namespace lazygen::exec {

class GraphExecutor {
 public:
  static constexpr size_t kDefaultCacheCapacity = 1024;

  GraphExecutor(std::shared_ptr<Backend> backend, size_t cache_capacity = kDefaultCacheCapacity);

  // The process-wide executor behind mark_step(), item(), cpu() and printing. Its backend is
  // cpu-lowering; its cache capacity LAZYGEN_COMPUTATION_CACHE_SIZE, else kDefaultCacheCapacity.
  static GraphExecutor& global();

  // Installs a backend and empties the computation cache.
  void set_backend(std::shared_ptr<Backend> backend);
  std::shared_ptr<Backend> backend() const;
  void set_cache_capacity(size_t capacity);
  size_t cache_size() const { return cache_.size(); }
  // Empties the computation cache (and the graph memo, See Note [Graph memo]).
  void clear_cache();

  // Executes the pending values of `states` as one graph; materialized states are skipped.
  void sync(const std::vector<std::shared_ptr<lazy::LazyState>>& states);
  // Syncs every live lazy tensor of the calling thread, then ends its trace (See Note [Trie
  // reuse of input nodes] and Note [Live tensors per thread]).
  void mark_step();
  // Waits for all launched executions. See Note [Asynchronous execution].
  void wait();

 private:
  struct Cached;  // an executable and what it was compiled for
  struct IdentityHash {
    size_t operator()(ir::hash_t h) const { return static_cast<size_t>(h); }
  };

  struct Compiled {  // a memo entry's computation-cache key and entry
    ir::hash_t key = 0;
    std::shared_ptr<Cached> cached;
  };
  using Memo = GraphMemo<Compiled>;

  static void mark_failed(const std::vector<std::shared_ptr<lazy::LazyState>>& states,
                          const char* what);
  const Memo::Entry& graph_for(std::vector<ir::Value> roots, Backend& backend);
  static ir::hash_t cache_key(const Graph& graph, const Backend& backend);
  std::shared_ptr<Cached> lookup_or_compile(ir::hash_t key, const Graph& graph, Backend& backend);

  mutable std::mutex mutex_;  // serializes syncs and guards backend_
  std::shared_ptr<Backend> backend_;
  LruCache<ir::hash_t, Cached, IdentityHash> cache_;
  Memo memo_;
};

}  // namespace lazygen::exec
