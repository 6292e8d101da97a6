// GraphExecutor (exec/graph_executor.h): collect pending values, build the graph, look it up in
// the computation cache or compile it, feed inputs, execute, hand results to the tensors.
#include "exec/graph_executor.h"

#include <atomic>
#include <chrono>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#include "backend/graph.h"
#include "core/ir/builtin_nodes.h"
#include "core/ir/trie_cache.h"
#include "core/lazy/lazy_tensor.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/distributed/communicator.h"
#include "lazygen/factory.h"
#include "lazygen/metrics.h"

namespace lazygen::exec {

struct GraphExecutor::Structure {
  // Newest first; weak: a computation the cache evicted is forgotten here too, so the cache's
  // bounds bound the memory computations keep.
  std::vector<std::weak_ptr<Cached>> compiled;
};

struct GraphExecutor::Cached {
  std::unique_ptr<Executable> executable;
  ir::hash_t key = 0;  // its computation cache key
  // What it was compiled for, checked on every hit so that a 64-bit key collision recompiles
  // instead of running the wrong computation.
  std::vector<Shape> input_shapes;
  size_t num_nodes = 0;
  // How long its last execution took (-1: never ran); See Note [Short launches run inline].
  std::atomic<int64_t> last_execute_ns{-1};
};

namespace {

// The distinct pending values of some states, and which one each state waits for.
struct Pending {
  std::vector<std::shared_ptr<lazy::LazyState>> states;
  std::vector<size_t> root_of;  // per state, its index in roots
  std::vector<ir::Value> roots;
};

// Position of `v` in `roots`, or roots.size(). Linear: syncs have few distinct roots, and a
// map would allocate per root on every step.
size_t find_root(const std::vector<ir::Value>& roots, const ir::Value& v) {
  for (size_t i = 0; i < roots.size(); ++i) {
    if (roots[i].node == v.node && roots[i].index == v.index) return i;
  }
  return roots.size();
}

Pending collect_pending(const std::vector<std::shared_ptr<lazy::LazyState>>& states) {
  constexpr size_t kLinearLimit = 64;  // beyond it, index the roots
  Pending p;
  std::map<std::pair<const ir::Node*, uint32_t>, size_t> index;
  for (const auto& s : states) {
    if (s == nullptr || !s->pending() || s->stale()) continue;  // See Note [Lazy views]
    size_t root = p.roots.size();
    if (p.roots.size() < kLinearLimit) {
      root = find_root(p.roots, s->value);
    } else {
      if (index.empty()) {
        for (size_t i = 0; i < p.roots.size(); ++i)
          index.emplace(std::pair(p.roots[i].node.get(), p.roots[i].index), i);
      }
      root = index.emplace(std::pair(s->value.node.get(), s->value.index), root).first->second;
    }
    if (root == p.roots.size()) p.roots.push_back(s->value);
    p.states.push_back(s);
    p.root_of.push_back(root);
  }
  return p;
}

// Note [Syncing what the graph computes anyway]
// A sync of some tensors (item(), cpu()) also makes other live pending tensors of the thread
// whose value the graph computes anyway (its node is among the graph's) outputs of it: no more
// work, one more buffer written and kept. Without it the next sync (mark_step, or a read of that
// tensor) computes those values again from the same inputs: a loss read with item() before
// mark_step shares the forward pass with the backward, and the tutorial's evaluation reads the
// loss before it traces the accuracy on the same model output. A live tensor whose pending
// subgraph the backend recomputes cheaply (Backend::recomputes_cheaply: for the fusing backends,
// views and pointwise ops) stays pending: recomputing it reads the inputs it was computed from,
// about what reading it back would cost, while making it an output writes it now, needed or not.
// C++ keeps every temporary of an expression alive until the expression ends, so
// `(relu(x * 2 + 1) - 0.5).cpu()` would otherwise write x * 2, x * 2 + 1 and the relu too, and the
// fused chain would lose its single-output kernel (the prebuilt one among them). A state whose
// node the graph does not compute stays pending.

// The non-input nodes `states` depend on, each mapped to whether it and every node it depends on
// is an input or recomputes cheaply on `backend`.
std::unordered_map<const ir::Node*, bool> computed_nodes(
    const std::vector<std::shared_ptr<lazy::LazyState>>& states, const Backend& backend) {
  std::unordered_map<const ir::Node*, bool> cheap;
  std::vector<std::pair<const ir::Node*, bool>> stack;  // (node, its operands are done)
  for (const auto& s : states) {
    if (s != nullptr && s->pending() && !s->stale()) stack.emplace_back(s->value.node.get(), false);
  }
  while (!stack.empty()) {
    auto [n, operands_done] = stack.back();
    stack.pop_back();
    if (ir::is_input(n->op())) continue;
    if (operands_done) {
      bool all = backend.recomputes_cheaply(n->op());
      for (const ir::Value& v : n->operands()) {
        if (v.present() && !ir::is_input(v.node->op())) all = all && cheap.at(v.node.get());
      }
      cheap[n] = all;
      continue;
    }
    if (!cheap.emplace(n, false).second) continue;  // visited
    stack.emplace_back(n, true);
    for (const ir::Value& v : n->operands()) {
      if (v.present() && cheap.count(v.node.get()) == 0) stack.emplace_back(v.node.get(), false);
    }
  }
  return cheap;
}

std::vector<std::shared_ptr<lazy::LazyState>> with_computed_siblings(
    std::vector<std::shared_ptr<lazy::LazyState>> states, const Backend& backend) {
  std::unordered_map<const ir::Node*, bool> computed = computed_nodes(states, backend);
  if (computed.empty()) return states;
  for (auto& s : lazy::live_states()) {
    if (!s->pending() || s->stale()) continue;
    auto it = computed.find(s->value.node.get());
    if (it != computed.end() && !it->second) states.push_back(std::move(s));
  }
  return states;
}

// A DeviceData node bound to a launch (See Note [Asynchronous execution]): its input is filled
// in when the job runs.
struct LaunchInput {
  uint32_t input = 0;
  std::shared_ptr<ir::Launch> launch;
  uint32_t index = 0;
};

Input input_of(const ir::Node& node) {
  if (node.op() == ir::op_kind("scalar_param")) {
    return Input{Tensor(), static_cast<const ir::ScalarParam&>(node).value()};
  }
  const auto& device_data = static_cast<const ir::DeviceData&>(node);
  if (!device_data.data().defined() && device_data.launch() == nullptr) {
    throw std::logic_error(
        "a pending graph reads a DeviceData node whose data was released at mark_step; "
        "see Note [DeviceData lifetime]");
  }
  return Input{device_data.data(), Scalar()};
}

std::vector<Input> gather_inputs(const Graph& graph, std::vector<LaunchInput>& from_launches) {
  std::vector<Input> inputs;
  inputs.reserve(graph.inputs().size());
  for (uint32_t i : graph.inputs()) {
    const ir::Node& node = graph.node(i);
    inputs.push_back(input_of(node));
    if (node.op() != ir::op_kind("device_data")) continue;
    const auto& device_data = static_cast<const ir::DeviceData&>(node);
    if (device_data.launch() != nullptr) {
      from_launches.push_back({static_cast<uint32_t>(inputs.size() - 1), device_data.launch(),
                               device_data.launch_index()});
    }
  }
  return inputs;
}

// Whether `from` is the only reader of its launch's output: nothing else holds the launch (no
// tensor in flight on it, no DeviceData node bound to it) and no other input reads that output.
bool sole_reader(const std::vector<LaunchInput>& from_launches, const LaunchInput& from) {
  long holders = 0;
  for (const LaunchInput& other : from_launches) {
    if (other.launch != from.launch) continue;
    if (other.index == from.index && &other != &from) return false;
    ++holders;
  }
  return from.launch.use_count() == holders;
}

// See Note [In-place outputs]: the execution may overwrite an input nobody else references.
void mark_donated(std::vector<Input>& inputs) {
  for (Input& in : inputs) {
    in.donated = !in.is_scalar() && in.tensor.impl_ptr().use_count() == 1 &&
                 in.tensor.impl()->storage().use_count() == 1;
  }
}

std::vector<Shape> root_shapes(const Graph& graph) {
  std::vector<Shape> shapes;
  shapes.reserve(graph.roots().size());
  for (const ir::Value& root : graph.roots()) shapes.push_back(root.shape());
  return shapes;
}

void check_outputs(const Graph& graph, const std::vector<Tensor>& outputs, const Backend& b) {
  if (outputs.size() != graph.outputs().size()) {
    throw std::logic_error("backend " + b.name() + " returned " + std::to_string(outputs.size()) +
                           " outputs for a graph with " + std::to_string(graph.outputs().size()));
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Shape& want = graph.roots()[k].shape();
    if (!outputs[k].defined() || outputs[k].shape() != want) {
      throw std::logic_error(
          "backend " + b.name() + " returned output " + std::to_string(k) + " of shape " +
          (outputs[k].defined() ? outputs[k].shape().str() : "?") + ", expected " + want.str());
    }
  }
}

}  // namespace

struct GraphExecutor::Job {
  std::shared_ptr<Cached> cached;  // keeps the executable alive if the cache evicts it
  std::shared_ptr<const Graph> graph;
  std::shared_ptr<Backend> backend;
  std::vector<Input> inputs;
  std::vector<LaunchInput> from_launches;
  std::shared_ptr<ir::Launch> launch;
};

GraphExecutor::GraphExecutor(std::shared_ptr<Backend> backend, size_t cache_capacity, bool async)
    : backend_(std::move(backend)),
      cache_(cache_capacity, kDefaultCacheBytes),
      structures_(cache_capacity),
      async_(async) {
  if (backend_ == nullptr) throw std::invalid_argument("GraphExecutor: null backend");
}

GraphExecutor::~GraphExecutor() {
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    stop_ = true;
  }
  queue_cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void GraphExecutor::set_async(bool async) {
  std::lock_guard<std::mutex> lock(mutex_);  // no sync is between launching and enqueuing
  if (!async) wait_idle();
  std::lock_guard<std::mutex> queue_lock(queue_mutex_);
  async_ = async;
}

void GraphExecutor::set_dynamic(bool dynamic) {
  std::lock_guard<std::mutex> lock(mutex_);
  dynamic_ = dynamic;
  structures_.clear();
}

bool GraphExecutor::dynamic() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dynamic_;
}

bool GraphExecutor::async() const {
  std::lock_guard<std::mutex> lock(queue_mutex_);
  return async_;
}

size_t GraphExecutor::queued() const {
  std::lock_guard<std::mutex> lock(queue_mutex_);
  return queue_.size();
}

void GraphExecutor::set_backend(std::shared_ptr<Backend> backend) {
  if (backend == nullptr) throw std::invalid_argument("GraphExecutor::set_backend: null backend");
  std::lock_guard<std::mutex> lock(mutex_);
  backend_ = std::move(backend);
  cache_.clear();
  structures_.clear();
  memo_.clear();
}

void GraphExecutor::clear_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  cache_.clear();
  structures_.clear();
  memo_.clear();
}

std::shared_ptr<Backend> GraphExecutor::backend() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return backend_;
}

void GraphExecutor::set_cache_capacity(size_t capacity, size_t bytes) {
  static metrics::Counter& evicted = metrics::counter("computation_cache.evict");
  std::lock_guard<std::mutex> lock(mutex_);
  evicted.add(static_cast<int64_t>(cache_.set_capacity(capacity, bytes)));
  structures_.set_capacity(capacity);
  memo_.clear();  // it may hold executables the cache just evicted
}

size_t GraphExecutor::cache_bytes() const {
  return cache_.weight();
}

ir::hash_t GraphExecutor::cache_key(const Graph& graph, const Backend& backend) {
  return ir::hash_combine(graph.hash(), ir::hash_value(backend.name()));
}

// See Note [Dynamic shapes] in backend/graph.h: a miss first tries to specialize the computation
// compiled for the graph's structure; a compile then becomes that structure's computation.
std::shared_ptr<GraphExecutor::Cached> GraphExecutor::lookup_or_compile(ir::hash_t key,
                                                                        const Graph& graph,
                                                                        Backend& backend) {
  static metrics::Counter& hits = metrics::counter("computation_cache.hit");
  static metrics::Counter& misses = metrics::counter("computation_cache.miss");
  static metrics::Counter& specialized = metrics::counter("computation_cache.specialize");
  static metrics::Counter& evicted = metrics::counter("computation_cache.evict");
  static metrics::TimedMetric& compile_ms = metrics::timed("exec.compile_ms");
  static metrics::TimedMetric& specialize_ms = metrics::timed("exec.specialize_ms");
  std::vector<Shape> input_shapes = graph.input_shapes();
  std::shared_ptr<Cached> cached = cache_.get(key);
  if (cached && cached->input_shapes == input_shapes && cached->num_nodes == graph.nodes().size()) {
    hits.add();
    return cached;
  }
  auto fresh = std::make_shared<Cached>();
  fresh->key = key;
  fresh->input_shapes = std::move(input_shapes);
  fresh->num_nodes = graph.nodes().size();
  const ir::hash_t structure_key = ir::hash_combine(graph.structure_hash(), ir::hash_value(backend.name()));
  std::shared_ptr<Structure> structure = dynamic_ ? structures_.get(structure_key) : nullptr;
  if (structure) {
    metrics::ScopedTimer timer(specialize_ms);
    fresh->executable = specialize(*structure, graph, backend);
  }
  if (fresh->executable) {
    specialized.add();
  } else {
    misses.add();
    metrics::ScopedTimer timer(compile_ms);
    fresh->executable = backend.compile(graph);
    if (dynamic_) add_to_structure(structure_key, std::move(structure), fresh);  // weakly
  }
  evicted.add(static_cast<int64_t>(cache_.add(key, fresh, fresh->executable->retained_bytes())));
  return fresh;
}

// `graph` specialized from the first of `structure`'s computations that can serve it, or null.
std::unique_ptr<Executable> GraphExecutor::specialize(const Structure& structure, const Graph& graph,
                                                      Backend& backend) {
  for (const std::weak_ptr<Cached>& weak : structure.compiled) {
    const std::shared_ptr<Cached> compiled = weak.lock();
    if (!compiled || compiled->num_nodes != graph.nodes().size()) continue;
    std::unique_ptr<Executable> e = backend.specialize(*compiled->executable, graph);
    if (!e) continue;
    cache_.get(compiled->key);  // in use: as recent as what it specializes to
    return e;
  }
  return nullptr;
}

// The newest compile first; the oldest beyond kStructurePlans is forgotten.
void GraphExecutor::add_to_structure(ir::hash_t key, std::shared_ptr<Structure> structure,
                                     const std::shared_ptr<Cached>& compiled) {
  auto next = std::make_shared<Structure>();
  next->compiled.push_back(compiled);
  if (structure) {
    for (const std::weak_ptr<Cached>& c : structure->compiled) {
      if (next->compiled.size() < kStructurePlans && !c.expired()) next->compiled.push_back(c);
    }
  }
  structures_.add(key, std::move(next));
}

void GraphExecutor::sync(const std::vector<std::shared_ptr<lazy::LazyState>>& states) {
  sync_states(with_computed_siblings(states, *backend()),
              false);  // See Note [Syncing what the graph ...]
}

// `whole_trace`: the states are every live tensor of the thread (mark_step).
void GraphExecutor::sync_states(const std::vector<std::shared_ptr<lazy::LazyState>>& states,
                                bool whole_trace) {
  static metrics::Counter& syncs = metrics::counter("exec.sync");
  static metrics::Counter& graph_nodes = metrics::counter("exec.graph_nodes");
  auto job = std::make_shared<Job>();
  Pending pending;
  bool async = false, inline_run = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending = collect_pending(states);
    if (pending.roots.empty()) return;
    job->backend = backend_;
    const Memo::Entry& entry = graph_for(std::move(pending.roots), *job->backend);
    job->graph = entry.graph;
    job->cached = entry.payload.cached;
    job->inputs = gather_inputs(*job->graph, job->from_launches);
    if (whole_trace) lazy::release_bound_device_data();  // See Note [In-place outputs]
    job->launch = std::make_shared<ir::Launch>(job->backend->device(), root_shapes(*job->graph));
    for (size_t k = 0; k < pending.states.size(); ++k) {
      lazy::LazyState& s = *pending.states[k];
      s.launch = job->launch;
      s.launch_index = static_cast<uint32_t>(pending.root_of[k]);
      s.value = ir::Value{};
    }
    syncs.add();
    graph_nodes.add(static_cast<int64_t>(job->graph->nodes().size()));
    std::unique_lock<std::mutex> queue_lock(queue_mutex_);
    async = async_;
    const int64_t last_ns = job->cached->last_execute_ns.load(std::memory_order_relaxed);
    inline_run = !async || (queue_.empty() && last_ns >= 0 && last_ns < kInlineNs);
    // One launch queued at most: this step's trace overlapped the previous step's execution;
    // waiting here keeps the tracing thread from running further ahead (and memory bounded).
    // Enqueued under mutex_, so launches run in the order their graphs were traced.
    if (!inline_run) {
      idle_cv_.wait(queue_lock, [this] { return queue_.empty(); });
      enqueue(job);
    }
  }
  if (!inline_run) return;
  if (!async) wait_idle();
  run(*job);
  for (const auto& s : pending.states) s->take_launch_if_done();
  if (!async && job->launch->exception()) std::rethrow_exception(job->launch->exception());
}

// Executes one launch (on the worker, or inline when synchronous); never throws: a failure is
// kept in the launch (See Note [Failed executions]).
void GraphExecutor::run(Job& job) {
  static metrics::Counter& failures = metrics::counter("exec.failed");
  static metrics::TimedMetric& execute_ms = metrics::timed("exec.execute_ms");
  std::lock_guard<std::mutex> lock(run_mutex());
  const auto start = std::chrono::steady_clock::now();
  try {
    for (const LaunchInput& from : job.from_launches) {
      from.launch->wait();  // already done: launches run in order
      if (from.launch->error() != nullptr) throw lazy::ExecutionFailed(*from.launch->error());
      job.inputs[from.input].tensor = sole_reader(job.from_launches, from)
                                          ? from.launch->take_output(from.index)
                                          : from.launch->output(from.index);
    }
    mark_donated(job.inputs);
    std::vector<Tensor> outputs;
    {
      metrics::ScopedTimer timer(execute_ms);
      const distributed::GraphTag tag(job.graph->hash());  // See Note [Collective fingerprints]
      outputs = job.backend->execute(*job.cached->executable, job.inputs);
    }
    check_outputs(*job.graph, outputs, *job.backend);
    job.cached->last_execute_ns.store(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now() - start)
                                          .count(),
                                      std::memory_order_relaxed);
    job.launch->finish(std::move(outputs));
  } catch (const std::exception& e) {
    failures.add();
    job.launch->fail(std::current_exception(), e.what());
  }
  job.inputs.clear();  // inputs go back to the allocator as early as possible
  job.from_launches.clear();
}

// Executions are serialized: an executable's scratch memory is reused by its next execution, and
// both cores belong to the running one.
std::mutex& GraphExecutor::run_mutex() {
  static std::mutex mutex;
  return mutex;
}

namespace {

// The calling thread waits for `executor`'s launches when it ends (wait_at_launching_thread_exit).
void wait_at_this_thread_exit(GraphExecutor* executor) {
  struct Waiter {
    GraphExecutor* executor = nullptr;
    ~Waiter() {
      if (executor == nullptr) return;
      try {
        executor->wait();
      } catch (...) {  // a failed launch reports to its tensors' next sync, which never comes
      }
    }
  };
  thread_local Waiter waiter;
  waiter.executor = executor;
}

}  // namespace

void GraphExecutor::wait_at_launching_thread_exit() {
  std::lock_guard<std::mutex> lock(queue_mutex_);
  wait_at_thread_exit_ = true;
}

// REQUIRES: queue_mutex_ held.
void GraphExecutor::enqueue(std::shared_ptr<Job> job) {
  if (wait_at_thread_exit_) wait_at_this_thread_exit(this);
  if (!worker_.joinable()) worker_ = std::thread([this] { work(); });
  queue_.push_back(std::move(job));
  queue_cv_.notify_one();
}

void GraphExecutor::work() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(queue_mutex_);
      queue_cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to run
      job = queue_.front();        // stays queued while it runs, for wait_idle
    }
    run(*job);
    job.reset();  // the queue's reference is the last: what the job held is freed by pop_front
    {
      std::lock_guard<std::mutex> lock(queue_mutex_);
      queue_.pop_front();
    }
    idle_cv_.notify_all();
  }
}

void GraphExecutor::wait_idle() const {
  std::unique_lock<std::mutex> lock(queue_mutex_);
  idle_cv_.wait(lock, [this] { return queue_.empty(); });
}

// See Note [Graph memo]: the memo keeps a graph for each size whose nodes a trie position keeps.
static_assert(GraphMemo<int>::kCapacity >= ir::TrieCache::kMaxVariants);

// See Note [Graph memo]: a memo hit skips building the graph and looking it up.
const GraphExecutor::Memo::Entry& GraphExecutor::graph_for(std::vector<ir::Value> roots,
                                                           Backend& backend) {
  static metrics::Counter& memo_hits = metrics::counter("exec.graph_memo_hit");
  static metrics::Counter& cache_hits = metrics::counter("computation_cache.hit");
  static metrics::TimedMetric& build_ms = metrics::timed("exec.build_graph_ms");
  if (const Memo::Entry* hit = memo_.find(roots)) {
    if (cache_.get(hit->payload.key) == hit->payload.cached) {  // also refreshes its recency
      memo_hits.add();
      cache_hits.add();
      return *hit;
    }
    memo_.erase_front();  // evicted from the computation cache since
  }
  std::shared_ptr<const Graph> graph;
  {
    metrics::ScopedTimer timer(build_ms);
    graph = std::make_shared<const Graph>(std::move(roots));
  }
  const ir::hash_t key = cache_key(*graph, backend);
  std::shared_ptr<Cached> cached = lookup_or_compile(key, *graph, backend);
  return memo_.add({std::move(graph), {key, std::move(cached)}});
}

void GraphExecutor::mark_step() {
  static metrics::Counter& steps = metrics::counter("exec.mark_step");
  try {
    sync_states(lazy::live_states(), true);
  } catch (const CompileError&) {
    throw;  // nothing ran and nothing is lost: the tensors stay pending and a retry compiles
  } catch (...) {
    lazy::end_trace();  // the failed tensors hold no IR now (See Note [Failed executions])
    steps.add();
    throw;
  }
  lazy::end_trace();
  steps.add();
}

void GraphExecutor::wait() {
  wait_idle();
  backend()->synchronize();
}

}  // namespace lazygen::exec
