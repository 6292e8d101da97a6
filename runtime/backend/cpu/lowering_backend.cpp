// The cpu-lowering backend (lowering_backend.h): a compiled plan of slots and steps.
#include "backend/cpu/lowering_backend.h"

#include <cstdint>

#include "core/ir/builtin_nodes.h"
#include "exec/backend_registry.h"
#include "exec/kernel_lowering.h"
#include "lazygen/factory.h"

namespace lazygen::cpu {

using exec::CompileError;
using exec::Executable;
using exec::Graph;
using exec::Input;
using exec::LowerFn;
using exec::ValueRef;

namespace {

constexpr uint32_t kNoSlot = UINT32_MAX;

struct Step {
  const ir::Node* node;
  LowerFn lower;
  std::vector<uint32_t> operand_slots;  // kNoSlot for an absent operand
  uint32_t first_output_slot;
  std::vector<uint32_t> dead_after;  // slots nothing reads after this step
};

struct Plan final : Executable {
  std::vector<ir::Value> keep_alive;  // the graph's roots: owners of every node in `steps`
  uint32_t num_slots = 0;
  std::vector<uint32_t> input_slots;
  std::vector<uint32_t> output_slots;
  std::vector<Step> steps;
};

// Slot of output j of node i is first_slot[i] + j.
std::vector<uint32_t> assign_slots(const Graph& graph, uint32_t& num_slots) {
  std::vector<uint32_t> first_slot(graph.nodes().size());
  uint32_t next = 0;
  for (size_t i = 0; i < graph.nodes().size(); ++i) {
    first_slot[i] = next;
    next += static_cast<uint32_t>(graph.node(i).num_outputs());
  }
  num_slots = next;
  return first_slot;
}

void add_steps(const Graph& graph, const std::vector<uint32_t>& first_slot, LoweringLookup lookup,
               Plan& plan) {
  for (size_t i = 0; i < graph.nodes().size(); ++i) {
    const ir::Node& node = graph.node(i);
    if (ir::is_input(node.op())) continue;
    LowerFn lower = lookup(node.op());
    if (lower == nullptr) {
      throw CompileError(std::string("cpu-lowering: no lowering for op ") +
                         ir::op_kind_name(node.op()) + " (" + node.to_string() + ")");
    }
    Step step{&node, lower, {}, first_slot[i], {}};
    for (const ValueRef& r : graph.operands(i)) {
      step.operand_slots.push_back(r.present() ? first_slot[r.node] + r.output : kNoSlot);
    }
    plan.steps.push_back(std::move(step));
  }
}

// Marks each intermediate slot dead after the last step that reads it. Outputs and inputs stay:
// outputs are returned, inputs belong to the caller.
void plan_releases(Plan& plan) {
  std::vector<bool> pinned(plan.num_slots, false);
  for (uint32_t s : plan.output_slots) pinned[s] = true;
  for (uint32_t s : plan.input_slots) pinned[s] = true;
  std::vector<bool> seen(plan.num_slots, false);
  for (size_t k = plan.steps.size(); k-- > 0;) {
    for (uint32_t s : plan.steps[k].operand_slots) {
      if (s == kNoSlot || pinned[s] || seen[s]) continue;
      seen[s] = true;
      plan.steps[k].dead_after.push_back(s);
    }
  }
}

}  // namespace

LoweringBackend::LoweringBackend(LoweringLookup lookup, std::string name)
    : lookup_(lookup), name_(std::move(name)) {}

std::unique_ptr<Executable> LoweringBackend::compile(const Graph& graph) {
  auto plan = std::make_unique<Plan>();
  plan->keep_alive = graph.roots();
  std::vector<uint32_t> first_slot = assign_slots(graph, plan->num_slots);
  for (uint32_t i : graph.inputs()) plan->input_slots.push_back(first_slot[i]);
  for (const ValueRef& r : graph.outputs())
    plan->output_slots.push_back(first_slot[r.node] + r.output);
  add_steps(graph, first_slot, lookup_, *plan);
  plan_releases(*plan);
  return plan;
}

std::vector<Tensor> LoweringBackend::execute(const Executable& executable,
                                             const std::vector<Input>& inputs) {
  const Plan& plan = static_cast<const Plan&>(executable);
  std::vector<Tensor> slots(plan.num_slots);
  for (size_t k = 0; k < inputs.size(); ++k)
    slots[plan.input_slots[k]] = exec::input_as_tensor(inputs[k]);
  std::vector<Tensor> args;
  for (const Step& step : plan.steps) {
    args.clear();
    for (uint32_t s : step.operand_slots) args.push_back(s == kNoSlot ? Tensor() : slots[s]);
    std::vector<Tensor> outs = step.lower(*step.node, args);
    if (outs.size() != step.node->num_outputs()) {
      throw std::logic_error("cpu-lowering: the lowering of " + step.node->to_string() +
                             " returned " + std::to_string(outs.size()) + " tensors, expected " +
                             std::to_string(step.node->num_outputs()));
    }
    for (size_t j = 0; j < outs.size(); ++j) slots[step.first_output_slot + j] = std::move(outs[j]);
    for (uint32_t s : step.dead_after) slots[s] = Tensor();
  }
  std::vector<Tensor> out;
  out.reserve(plan.output_slots.size());
  for (uint32_t s : plan.output_slots) out.push_back(slots[s]);
  return out;
}

}  // namespace lazygen::cpu

// The unfused reference backend, registered by name like every backend (exec/backend_registry.h):
// the lazy device picks it when fusion is off. Programs linking a runtime keep it through their
// reference to lazygen_cpu_lowering_backend_linked (runtime/linked_registrations.cpp).
// Beside it, "cpu-kernels": the same backend over the device-neutral lowering table, bound to the
// cpu kernels registered as the cpu device's (Note [Kernel lowering] in exec/kernel_lowering.h),
// so that the consistency suite checks that table on every op; ops without an entry (factories)
// take the cpu lowering.
namespace {

lazygen::exec::LowerFn kernel_or_cpu_lowering(lazygen::ir::OpKind kind) {
  const lazygen::exec::KernelLowering* k = lazygen::exec::kernel_lowering_for(kind);
  return k != nullptr ? k->fn : lazygen::exec::lowering_for(kind);
}

}  // namespace

extern const bool lazygen_cpu_lowering_backend_linked;
const bool lazygen_cpu_lowering_backend_linked = [] {
  lazygen::exec::register_backend_factory("cpu-lowering", [] {
    return std::shared_ptr<lazygen::exec::Backend>(
        std::make_shared<lazygen::cpu::LoweringBackend>());
  });
  lazygen::exec::register_backend_factory("cpu-kernels", [] {
    lazygen::exec::register_cpu_device_kernels();
    return std::shared_ptr<lazygen::exec::Backend>(
        std::make_shared<lazygen::cpu::LoweringBackend>(&kernel_or_cpu_lowering, "cpu-kernels"));
  });
  return true;
}();
