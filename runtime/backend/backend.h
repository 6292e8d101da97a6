// The backend contract: what the graph executor asks of a device that runs lazy graphs.
//
// The executor (exec/graph_executor.h) turns the pending IR of some lazy tensors into an
// exec::Graph (backend/graph.h), looks it up in its computation cache by Graph::hash() mixed with
// Backend::name(), and on a miss calls specialize() or compile(); then it calls execute() with
// the graph's inputs.
// It knows no backend by name: backends are installed with GraphExecutor::set_backend().
//
// compile(graph) -> Executable
//   Called once per distinct graph key. May take long (fusion, code generation); its result is
//   cached and reused for every later graph with the same key, so it must not depend on
//   anything the key does not cover:
//     - it may read each node's op kind, attributes, operands (as graph positions) and shapes;
//     - it must NOT read DeviceData::data() or ScalarParam::value(): those change between runs
//       and arrive as execute() inputs instead.
//   It may keep the graph's roots (and so its nodes) alive, e.g. to call lowerings later.
//   On failure it throws (CompileError for unsupported graphs); nothing is cached then.
//
// specialize(compiled, graph) -> Executable or null
//   Called on a cache miss when the executor holds executables compiled for graphs of graph's
//   structure (Graph::structure_hash: the key without sizes; See Note [Dynamic shapes] in
//   backend/graph.h): the executable for `graph`, whose sizes differ, made from `compiled` more
//   cheaply than compile would, or null when `compiled` cannot serve these sizes (then compile
//   runs). Compile's rules apply. The default returns null: every new size compiles.
//
// execute(executable, inputs) -> outputs
//   inputs: one Input per graph input, in Graph::inputs() order:
//     DeviceData input  -> Input::tensor, the data, on this backend's device;
//     ScalarParam input -> Input::scalar, the value (Input::tensor undefined). Scalars travel as
//                          values, not tensors: a step feeds dozens of them, and a 0-dim tensor
//                          each would cost more than executing a small cached graph.
//   Inputs are read-only: a backend must never write into them (lazy tensors share buffers),
//   except a donated one (Input::donated): nothing but the execution can read it any more, so the
//   backend may write an output into its storage and return that tensor (See Note [In-place
//   outputs] in backend/cpu/fusion/in_place.h).
//   outputs: one tensor per graph output, in Graph::outputs() order, with exactly the
//   output's shape (dtype and sizes); the executor checks this. Outputs may alias inputs or
//   each other but must not be written after execute returns.
//   Execution may be asynchronous: execute may return tensors whose contents are still being
//   produced, provided any read through the tensor API waits for them (see synchronize()).
//
// synchronize()
//   Blocks until all work launched by earlier execute() calls has finished (wait_device_ops()).
//
// Thread safety: the executor serializes compile and execute calls on one backend; an
// Executable may be executed again while an earlier execution of it is still in flight.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/graph.h"
#include "lazygen/device.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen::exec {

// A graph the backend cannot compile (an op without lowering, an unsupported dtype, ...).
class CompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One execute() input: a DeviceData node's tensor, or (tensor undefined) a ScalarParam's value.
struct Input {
  Tensor tensor;
  Scalar scalar;
  // The caller holds the only reference to `tensor` and to its storage and reads neither after
  // execute: the backend may overwrite it.
  bool donated = false;
  bool is_scalar() const { return !tensor.defined(); }
};

// A compiled graph. Backends subclass it with whatever execute() needs.
class Executable {
 public:
  virtual ~Executable() = default;
  // Memory it keeps between executions (the fused backend's outputs kept for reuse, Note [Memory
  // across executions]); the computation cache bounds the total (LAZYGEN_COMPUTATION_CACHE_BYTES).
  virtual size_t retained_bytes() const { return 0; }
};

class Backend {
 public:
  virtual ~Backend() = default;

  // Stable identifier, part of the computation cache key ("cpu-lowering", "null").
  virtual std::string name() const = 0;
  // Where inputs must be and outputs will be.
  virtual Device device() const = 0;

  virtual std::unique_ptr<Executable> compile(const Graph& graph) = 0;
  // `compiled` (from this backend's compile of a graph with graph's structure_hash; See Note
  // [Dynamic shapes] in backend/graph.h) made to run `graph`, whose sizes may differ; null when the
  // backend cannot reuse it for these sizes (the executor then compiles). The default: null.
  virtual std::unique_ptr<Executable> specialize(const Executable& compiled, const Graph& graph) {
    (void)compiled;
    (void)graph;
    return nullptr;
  }
  virtual std::vector<Tensor> execute(const Executable& executable,
                                      const std::vector<Input>& inputs) = 0;
  virtual void synchronize() {}
  // Whether this backend recomputes a node of `kind` from its operands for no more than it would
  // cost to store the node's value and load it again (a pointwise op it fuses, a view). A partial
  // sync leaves out live tensors whose pending subgraph is only such nodes (See Note [Syncing
  // what the graph computes anyway] in exec/graph_executor.cpp). The default, false for every
  // kind, makes every live tensor the graph computes an output.
  virtual bool recomputes_cheaply(ir::OpKind kind) const {
    (void)kind;
    return false;
  }
};

}  // namespace lazygen::exec
