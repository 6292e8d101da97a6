// GraphExecutor (exec/graph_executor.h): collect pending values, build the graph, look it up in
// the computation cache or compile it, feed inputs, execute, hand results to the tensors.
#include "exec/graph_executor.h"

#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/ir/builtin_nodes.h"
#include "core/lazy/lazy_tensor.h"
#include "exec/graph.h"
#include "lazygen/factory.h"
#include "lazygen/metrics.h"

namespace lazygen::exec {

struct GraphExecutor::Cached {
  std::unique_ptr<Executable> executable;
  // What it was compiled for, checked on every hit so that a 64-bit key collision recompiles
  // instead of running the wrong computation.
  std::vector<Shape> input_shapes;
  size_t num_nodes = 0;
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

Input input_of(const ir::Node& node) {
  if (node.op() == ir::OpKind::scalar_param) {
    return Input{Tensor(), static_cast<const ir::ScalarParam&>(node).value()};
  }
  const Tensor& data = static_cast<const ir::DeviceData&>(node).data();
  if (!data.defined()) {
    throw std::logic_error(
        "a pending graph reads a DeviceData node whose data was released at mark_step; "
        "see Note [DeviceData lifetime]");
  }
  return Input{data, Scalar()};
}

std::vector<Input> gather_inputs(const Graph& graph) {
  std::vector<Input> inputs;
  inputs.reserve(graph.inputs().size());
  for (uint32_t i : graph.inputs()) inputs.push_back(input_of(graph.node(i)));
  return inputs;
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

GraphExecutor::GraphExecutor(std::shared_ptr<Backend> backend, size_t cache_capacity)
    : backend_(std::move(backend)), cache_(cache_capacity) {
  if (backend_ == nullptr) throw std::invalid_argument("GraphExecutor: null backend");
}

void GraphExecutor::set_backend(std::shared_ptr<Backend> backend) {
  if (backend == nullptr) throw std::invalid_argument("GraphExecutor::set_backend: null backend");
  std::lock_guard<std::mutex> lock(mutex_);
  backend_ = std::move(backend);
  cache_.clear();
  memo_.clear();
}

void GraphExecutor::clear_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  cache_.clear();
  memo_.clear();
}

std::shared_ptr<Backend> GraphExecutor::backend() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return backend_;
}

void GraphExecutor::set_cache_capacity(size_t capacity) {
  static metrics::Counter& evicted = metrics::counter("computation_cache.evict");
  std::lock_guard<std::mutex> lock(mutex_);
  evicted.add(static_cast<int64_t>(cache_.set_capacity(capacity)));
  memo_.clear();  // it may hold executables the cache just evicted
}

ir::hash_t GraphExecutor::cache_key(const Graph& graph, const Backend& backend) {
  return ir::hash_combine(graph.hash(), ir::hash_value(backend.name()));
}

std::shared_ptr<GraphExecutor::Cached> GraphExecutor::lookup_or_compile(ir::hash_t key,
                                                                        const Graph& graph,
                                                                        Backend& backend) {
  static metrics::Counter& hits = metrics::counter("computation_cache.hit");
  static metrics::Counter& misses = metrics::counter("computation_cache.miss");
  static metrics::Counter& evicted = metrics::counter("computation_cache.evict");
  static metrics::TimedMetric& compile_ms = metrics::timed("exec.compile_ms");
  std::vector<Shape> input_shapes = graph.input_shapes();
  std::shared_ptr<Cached> cached = cache_.get(key);
  if (cached && cached->input_shapes == input_shapes && cached->num_nodes == graph.nodes().size()) {
    hits.add();
    return cached;
  }
  misses.add();
  auto fresh = std::make_shared<Cached>();
  {
    metrics::ScopedTimer timer(compile_ms);
    fresh->executable = backend.compile(graph);
  }
  fresh->input_shapes = std::move(input_shapes);
  fresh->num_nodes = graph.nodes().size();
  evicted.add(static_cast<int64_t>(cache_.add(key, fresh)));
  return fresh;
}

void GraphExecutor::sync(const std::vector<std::shared_ptr<lazy::LazyState>>& states) {
  static metrics::Counter& syncs = metrics::counter("exec.sync");
  static metrics::Counter& graph_nodes = metrics::counter("exec.graph_nodes");
  static metrics::TimedMetric& execute_ms = metrics::timed("exec.execute_ms");
  std::lock_guard<std::mutex> lock(mutex_);
  Pending pending = collect_pending(states);
  if (pending.roots.empty()) return;
  std::shared_ptr<Backend> backend = backend_;
  const Memo::Entry& entry = graph_for(std::move(pending.roots), *backend);
  const Graph& graph = *entry.graph;
  std::vector<Input> inputs = gather_inputs(graph);
  std::vector<Tensor> outputs;
  try {
    metrics::ScopedTimer timer(execute_ms);
    outputs = backend->execute(*entry.payload.cached->executable, inputs);
    check_outputs(graph, outputs, *backend);
  } catch (const std::exception& e) {
    mark_failed(pending.states, e.what());
    throw;
  }
  for (size_t k = 0; k < pending.states.size(); ++k) {
    pending.states[k]->data = outputs[pending.root_of[k]];
    pending.states[k]->value = ir::Value{};
  }
  syncs.add();
  graph_nodes.add(static_cast<int64_t>(graph.nodes().size()));
}

// See Note [Failed executions].
void GraphExecutor::mark_failed(const std::vector<std::shared_ptr<lazy::LazyState>>& states,
                                const char* what) {
  static metrics::Counter& failures = metrics::counter("exec.failed");
  failures.add();
  auto error = std::make_shared<const std::string>(what);
  for (const auto& s : states) {
    s->value = ir::Value{};
    s->error = error;
  }
}

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
    sync(lazy::live_states());
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
  backend()->synchronize();
}

}  // namespace lazygen::exec
