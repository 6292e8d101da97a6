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

Pending collect_pending(const std::vector<std::shared_ptr<lazy::LazyState>>& states) {
  Pending p;
  std::map<std::pair<const ir::Node*, uint32_t>, size_t> index;
  for (const auto& s : states) {
    if (s == nullptr || !s->pending()) continue;
    auto [it, inserted] =
        index.emplace(std::pair(s->value.node.get(), s->value.index), p.roots.size());
    if (inserted) p.roots.push_back(s->value);
    p.states.push_back(s);
    p.root_of.push_back(it->second);
  }
  return p;
}

Tensor input_tensor(const ir::Node& node) {
  if (node.op() == ir::OpKind::scalar_param) {
    const Scalar& v = static_cast<const ir::ScalarParam&>(node).value();
    return scalar_tensor(v, v.dtype());
  }
  const Tensor& data = static_cast<const ir::DeviceData&>(node).data();
  if (!data.defined()) {
    throw std::logic_error(
        "a pending graph reads a DeviceData node whose data was released at mark_step; "
        "see Note [DeviceData lifetime]");
  }
  return data;
}

std::vector<Tensor> gather_inputs(const Graph& graph) {
  std::vector<Tensor> inputs;
  inputs.reserve(graph.inputs().size());
  for (uint32_t i : graph.inputs()) inputs.push_back(input_tensor(graph.node(i)));
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
}

std::shared_ptr<Backend> GraphExecutor::backend() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return backend_;
}

void GraphExecutor::set_cache_capacity(size_t capacity) {
  static metrics::Counter& evicted = metrics::counter("computation_cache.evict");
  evicted.add(static_cast<int64_t>(cache_.set_capacity(capacity)));
}

std::shared_ptr<GraphExecutor::Cached> GraphExecutor::lookup_or_compile(const Graph& graph,
                                                                        Backend& backend) {
  static metrics::Counter& hits = metrics::counter("computation_cache.hit");
  static metrics::Counter& misses = metrics::counter("computation_cache.miss");
  static metrics::Counter& evicted = metrics::counter("computation_cache.evict");
  static metrics::TimedMetric& compile_ms = metrics::timed("exec.compile_ms");
  ir::hash_t key = ir::hash_combine(graph.hash(), ir::hash_value(backend.name()));
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
  static metrics::TimedMetric& build_ms = metrics::timed("exec.build_graph_ms");
  static metrics::TimedMetric& execute_ms = metrics::timed("exec.execute_ms");
  std::lock_guard<std::mutex> lock(mutex_);
  Pending pending = collect_pending(states);
  if (pending.roots.empty()) return;
  std::shared_ptr<Backend> backend = backend_;
  std::unique_ptr<Graph> graph;
  {
    metrics::ScopedTimer timer(build_ms);
    graph = std::make_unique<Graph>(std::move(pending.roots));
  }
  std::shared_ptr<Cached> cached = lookup_or_compile(*graph, *backend);
  std::vector<Tensor> inputs = gather_inputs(*graph);
  std::vector<Tensor> outputs;
  {
    metrics::ScopedTimer timer(execute_ms);
    outputs = backend->execute(*cached->executable, inputs);
  }
  check_outputs(*graph, outputs, *backend);
  for (size_t k = 0; k < pending.states.size(); ++k) {
    pending.states[k]->data = outputs[pending.root_of[k]];
    pending.states[k]->value = ir::Value{};
  }
  syncs.add();
  graph_nodes.add(static_cast<int64_t>(graph->nodes().size()));
}

void GraphExecutor::mark_step() {
  static metrics::Counter& steps = metrics::counter("exec.mark_step");
  sync(lazy::live_states());
  lazy::end_trace();
  steps.add();
}

void GraphExecutor::wait() {
  backend()->synchronize();
}

}  // namespace lazygen::exec
