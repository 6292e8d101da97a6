// GraphExecutor: turns the pending IR of lazy tensors into results.
//
// sync(states) gathers the pending values of `states` into one Graph (backend/graph.h), looks its
// key up in the computation cache (an LRU of compiled executables; key = Graph::hash() mixed
// with the backend's name, see Note [Graph hash]), compiles on a miss (storing the executable
// only once compile succeeded), gathers the inputs (DeviceData data or launch outputs,
// ScalarParam values) and executes, or launches (See Note [Asynchronous execution]). Each synced
// tensor then holds its result as data, or is in flight, and drops its IR (See Note [Lazy tensor
// state]). mark_step() syncs every live lazy tensor of the calling thread
// and ends its trace (lazy::end_trace: the trie cache returns to its root).
//
// A sync also computes the other live tensors whose values its graph computes anyway: See Note
// [Syncing what the graph computes anyway] in graph_executor.cpp.
//
// Consequences: the same trace hits the cache from the second step on; a new input dtype
// compiles anew, a new input shape specializes the computation of the graph's structure (See
// Note [Dynamic shapes] in backend/graph.h); a new scalar value or new input data does neither.
//
// Note [Asynchronous execution]
// An asynchronous executor (the global one unless LAZYGEN_ASYNC=0) compiles on the calling
// thread, as before (so compile errors still raise at the sync), then hands the execution to its
// worker thread and returns: each synced tensor becomes in flight, holding the ir::Launch that
// will compute it (See Note [Lazy tensor state]). Tracing goes on meanwhile. A traced op that
// reads an in-flight tensor binds a DeviceData node to the launch's output instead of data, so
// the next step's graph is traced, compiled and queued without waiting; the worker runs launches
// in order, so a launch's inputs are ready when it runs. Reading data (item(), cpu(), printing)
// waits for its launch; wait_device_ops() waits for all. An execution error is kept in the
// launch: the tensors it was to compute raise it when read (and a launch reading one fails with
// the same message), as a GPU stream reports errors at the next synchronization; mark_step does
// not raise it. A synchronous executor (the default for executors made directly; tests) runs
// the launch on the calling thread after the queue drains, resolves the tensors and rethrows.
//
// Note [Short launches run inline]
// Handing a launch to the worker costs a thread wake-up (about 5-10 us on these machines), more
// than a small graph takes to run. So when the queue is empty and the cached computation's last
// execution took under kInlineNs, the calling thread runs it itself, at once; its errors are
// still only raised when a result is read. Executions never overlap each other either way.
//
// Syncing the very roots of a recent sync again (every step of a loop) skips building the graph
// and the cache lookup: See Note [Graph memo].
//
// A failed execution marks the tensors it was to compute as failed and rethrows: See Note
// [Failed executions].
//
// Metrics: computation_cache.{hit,miss,specialize,evict} (a miss is a compile),
// exec.{sync,mark_step,graph_nodes,graph_memo_hit,failed},
// exec.{build_graph_ms,compile_ms,specialize_ms,execute_ms}.
// Thread safety: all methods may be called from any thread; syncs are serialized, and launches
// execute one at a time in the order they were synced.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
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
  static constexpr size_t kDefaultCacheBytes = size_t{2} << 30;  // Executable::retained_bytes

  GraphExecutor(std::shared_ptr<Backend> backend, size_t cache_capacity = kDefaultCacheCapacity,
                bool async = false);
  // Runs the queued launches, then stops the worker.
  ~GraphExecutor();
  GraphExecutor(const GraphExecutor&) = delete;
  GraphExecutor& operator=(const GraphExecutor&) = delete;

  // The process-wide executor behind mark_step(), item(), cpu() and printing. Its backend is
  // cpu-fused (cpu-lowering with fusion off); its cache capacity
  // LAZYGEN_COMPUTATION_CACHE_SIZE and LAZYGEN_COMPUTATION_CACHE_BYTES, else
  // kDefaultCacheCapacity and kDefaultCacheBytes.
  static GraphExecutor& global();

  // Installs a backend and empties the computation cache.
  void set_backend(std::shared_ptr<Backend> backend);
  std::shared_ptr<Backend> backend() const;
  // Bounds the cache to `capacity` computations retaining `bytes` between them at most (the
  // most recent one stays, however much it retains); evicted ones count in
  // computation_cache.evict.
  void set_cache_capacity(size_t capacity, size_t bytes = kDefaultCacheBytes);
  size_t cache_size() const { return cache_.size(); }
  size_t cache_bytes() const;  // what the cached computations retain
  // Empties the computation cache (and the graph memo, See Note [Graph memo]).
  void clear_cache();

  // See Note [Dynamic shapes] in backend/graph.h: on by default (LAZYGEN_DYNAMIC=0 turns the
  // global executor's off); off, every new graph hash compiles.
  void set_dynamic(bool dynamic);
  bool dynamic() const;

  // See Note [Asynchronous execution]. Waits for the queued launches when turning it off.
  void set_async(bool async);
  bool async() const;

  // Executes (or launches: See Note [Asynchronous execution]) the pending values of `states` as
  // one graph; materialized and in-flight states are skipped.
  void sync(const std::vector<std::shared_ptr<lazy::LazyState>>& states);
  // Syncs every live lazy tensor of the calling thread, then ends its trace (See Note [Trie
  // reuse of input nodes] and Note [Live tensors per thread]).
  void mark_step();
  // Waits for all launched executions. See Note [Asynchronous execution].
  void wait();
  // From now on each thread that launches asynchronously waits for the launches when it ends:
  // std::exit destroys the exiting thread's thread_locals before any static, so a program's end
  // waits for its last step while every library the step uses is still up (See Note [Finishing
  // asynchronous work at exit] in core/exit_wait.h). REQUIRES: this executor outlives every
  // such thread (the lazy device's is never destroyed).
  void wait_at_launching_thread_exit();
  // Launches queued or running now.
  size_t queued() const;

 private:
  struct Cached;     // an executable and what it was compiled for
  struct Structure;  // the computations compiled for one graph structure
  // Compiles kept per structure to specialize from (a plan made for a batch of 1, or an empty
  // one, may not serve others: See Note [Specializing a fusion plan]).
  static constexpr size_t kStructurePlans = 4;
  void add_to_structure(ir::hash_t key, std::shared_ptr<Structure> structure,
                        const std::shared_ptr<Cached>& compiled);
  std::unique_ptr<Executable> specialize(const Structure& structure, const Graph& graph, Backend& backend);
  struct IdentityHash {
    size_t operator()(ir::hash_t h) const { return static_cast<size_t>(h); }
  };

  struct Compiled {  // a memo entry's computation-cache key and entry
    ir::hash_t key = 0;
    std::shared_ptr<Cached> cached;
  };
  using Memo = GraphMemo<Compiled>;
  struct Job;  // one launch: what the worker executes

  void sync_states(const std::vector<std::shared_ptr<lazy::LazyState>>& states, bool whole_trace);
  static void run(Job& job);
  static std::mutex& run_mutex();
  // See Note [Short launches run inline].
  static constexpr int64_t kInlineNs = 20'000;
  void enqueue(std::shared_ptr<Job> job);
  void wait_idle() const;
  void work();
  const Memo::Entry& graph_for(std::vector<ir::Value> roots, Backend& backend);
  static ir::hash_t cache_key(const Graph& graph, const Backend& backend);
  std::shared_ptr<Cached> lookup_or_compile(ir::hash_t key, const Graph& graph, Backend& backend);

  mutable std::mutex mutex_;  // serializes syncs and guards backend_
  std::shared_ptr<Backend> backend_;
  LruCache<ir::hash_t, Cached, IdentityHash> cache_;
  // Per graph structure (and backend): the computations compiled for it that cache_ still
  // holds, which new sizes of that structure specialize.
  LruCache<ir::hash_t, Structure, IdentityHash> structures_;
  bool dynamic_ = true;
  Memo memo_;

  // The launch queue (front: running or next); guarded by queue_mutex_.
  mutable std::mutex queue_mutex_;
  mutable std::condition_variable queue_cv_;  // a job was queued, or stop
  mutable std::condition_variable idle_cv_;   // a job finished
  std::deque<std::shared_ptr<Job>> queue_;
  bool async_ = false;
  bool stop_ = false;
  bool wait_at_thread_exit_ = false;
  std::thread worker_;  // started by the first asynchronous launch
};

}  // namespace lazygen::exec
