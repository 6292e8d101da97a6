// In-place outputs of fused graphs (in_place.h; See Note [In-place outputs]).
#include "backend/cpu/fusion/in_place.h"

#include <algorithm>

#include "core/ir/node.h"

namespace lazygen::cpu::fusion {
namespace {

// The load of group input `input`, or kNone when the program does not load it.
uint32_t load_of(const GroupProgram& p, uint32_t input) {
  for (uint32_t a = 0; a < p.loads.size(); ++a) {
    if (p.loads[a].input == input) return a;
  }
  return kNone;
}

// No op after op `k` (the one computing the output) reads load `a`.
bool read_no_later(const GroupProgram& p, uint32_t a, size_t k) {
  for (size_t later = k + 1; later < p.ops.size(); ++later) {
    const GroupProgram::Op& op = p.ops[later];
    if (std::find(op.in.begin(), op.in.begin() + op.num_in, a) != op.in.begin() + op.num_in) {
      return false;
    }
  }
  return true;
}

// The group's inputs that read `node`, if every one of them is an identity read; else none.
std::vector<uint32_t> identity_reads(const Group& group, uint32_t node) {
  std::vector<uint32_t> reads;
  for (uint32_t i = 0; i < group.inputs.size(); ++i) {
    if (group.inputs[i].base.node != node) continue;
    if (!is_identity(group.inputs[i].layout, group.sizes)) return {};
    reads.push_back(i);
  }
  return reads;
}

// The value `node` updates: the first operand's, followed through the group's members
// (`w.mul_(a).add_(b)` updates w), so that a tensor keeps its own buffer rather than taking over
// another input's.
uint32_t updated_value(const exec::Graph& graph, const Group& group, uint32_t node) {
  while (std::find(group.members.begin(), group.members.end(), node) != group.members.end()) {
    const auto operands = graph.operands(node);
    if (operands.empty() || !operands[0].present() || operands[0].output != 0) return kNone;
    node = operands[0].node;
  }
  return node;
}

}  // namespace

uint32_t in_place_input(const exec::Graph& graph, const FusionPlan& plan, uint32_t g,
                        const GroupProgram& p, size_t j, const std::vector<uint32_t>& steps_reading,
                        const std::vector<bool>& is_output) {
  const Group& group = plan.groups[g];
  const GroupProgram::Output& out = p.outputs[j];
  if (p.has_reduction || out.dtype != p.dtype || !is_output[out.node]) return kNone;
  const auto member = std::find(group.members.begin(), group.members.end(), out.node);
  const auto k = static_cast<size_t>(member - group.members.begin());
  const uint32_t node = updated_value(graph, group, out.node);
  if (node == kNone || graph.node(node).op() != ir::op_kind("device_data") || is_output[node] ||
      steps_reading[node] != 1 || graph.node(node).shape(0) != graph.node(out.node).shape(0)) {
    return kNone;
  }
  const std::vector<uint32_t> reads = identity_reads(group, node);
  const bool ordered = std::all_of(reads.begin(), reads.end(), [&](uint32_t i) {
    const uint32_t a = load_of(p, i);
    return a == kNone || read_no_later(p, a, k);
  });
  return !reads.empty() && ordered ? node : kNone;
}

}  // namespace lazygen::cpu::fusion
