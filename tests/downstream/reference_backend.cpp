// An out-of-tree lazy backend, written against lazygen's installed headers without editing
// lazygen (docs/backends.md walks through it): "reference" interprets each graph node by node,
// calling the eager kernels through lazygen's generated lowering table. It registers itself by
// name when this file is linked; programs select it with set_lazy_backend("reference") or
// LAZYGEN_LAZY_BACKEND=reference.
#include "reference_backend.h"

#include <atomic>
#include <string>

#include "backend/backend.h"
#include "core/ir/builtin_nodes.h"
#include "exec/backend_registry.h"
#include "exec/lowering.h"
#include "exec/lowering.h"  // exec::input_as_tensor

namespace downstream {
namespace {

using namespace lazygen;

std::atomic<int> g_compiles{0};

// One node to run: its lowering, where its operands are and where its outputs go (slots).
struct Call {
  const ir::Node* node;
  exec::LowerFn lower;
  std::vector<int64_t> operands;  // slot per operand, -1 when absent
  uint32_t first_output;
};

struct Program final : exec::Executable {
  std::vector<ir::Value> roots;  // own the nodes `calls` points to
  uint32_t num_slots = 0;
  std::vector<uint32_t> input_slots, output_slots;
  std::vector<Call> calls;
};

class ReferenceBackend final : public exec::Backend {
 public:
  std::string name() const override { return "reference"; }
  Device device() const override { return kCPU; }

  // Checks every op has a lowering (a CompileError names the first that does not) and lays the
  // graph out as slots: output j of node i is slot first[i] + j.
  std::unique_ptr<exec::Executable> compile(const exec::Graph& graph) override {
    auto p = std::make_unique<Program>();
    p->roots = graph.roots();
    const std::vector<uint32_t> first = graph.first_output_slots(&p->num_slots);
    for (uint32_t i : graph.inputs()) p->input_slots.push_back(first[i]);
    for (const exec::ValueRef& r : graph.outputs()) p->output_slots.push_back(first[r.node] + r.output);
    for (size_t i = 0; i < graph.nodes().size(); ++i) {
      const ir::Node& node = graph.node(i);
      if (ir::is_input(node.op())) continue;
      Call call{&node, exec::lowering_for(node.op()), {}, first[i]};
      if (call.lower == nullptr) {
        throw exec::CompileError(std::string("reference: no kernel for ") + ir::op_kind_name(node.op()));
      }
      for (const exec::ValueRef& r : graph.operands(i)) {
        call.operands.push_back(r.present() ? static_cast<int64_t>(first[r.node] + r.output) : -1);
      }
      p->calls.push_back(std::move(call));
    }
    g_compiles.fetch_add(1);
    return p;
  }

  // Feeds the inputs into their slots, runs the calls in post-order, returns the output slots.
  std::vector<Tensor> execute(const exec::Executable& executable,
                              const std::vector<exec::Input>& inputs) override {
    const auto& p = static_cast<const Program&>(executable);
    std::vector<Tensor> slots(p.num_slots);
    for (size_t k = 0; k < inputs.size(); ++k) slots[p.input_slots[k]] = exec::input_as_tensor(inputs[k]);
    std::vector<Tensor> args;
    for (const Call& call : p.calls) {
      args.clear();
      for (int64_t s : call.operands) args.push_back(s < 0 ? Tensor() : slots[static_cast<size_t>(s)]);
      std::vector<Tensor> outs = call.lower(*call.node, args);
      for (size_t j = 0; j < outs.size(); ++j) slots[call.first_output + j] = std::move(outs[j]);
    }
    std::vector<Tensor> out;
    for (uint32_t s : p.output_slots) out.push_back(slots[s]);
    return out;
  }
};

std::shared_ptr<exec::Backend> make_reference_backend() {
  return std::make_shared<ReferenceBackend>();
}

}  // namespace

int reference_compiles() {
  return g_compiles.load();
}

// Registered when the program links this file (an object file, not a static library member).
const bool kReferenceRegistered = [] {
  exec::register_backend_factory("reference", &make_reference_backend);
  return true;
}();

}  // namespace downstream
