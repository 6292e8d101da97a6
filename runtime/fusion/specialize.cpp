// See specialize.h and Note [Specializing a fusion plan].
#include "fusion/specialize.h"

#include <algorithm>

#include "fusion/row_bands.h"

namespace lazygen::fusion {
namespace {

template <class F>
void for_each_size(const exec::Graph& graph, F&& f) {
  for (const ir::Node* n : graph.nodes()) {
    for (const Shape& s : n->shapes()) {
      for (int64_t v : s.sizes) f(v);
    }
  }
}

// Rebinds one plan to one graph; each step fails by returning false.
class Rebinder {
 public:
  Rebinder(const exec::Graph& graph, FusionPlan& plan) : g_(graph), plan_(plan) {}

  bool run() {
    for (uint32_t i = 0; i < g_.nodes().size(); ++i) {
      if (mapped_view(i) && !resolve_view(i)) return false;
    }
    for (Group& group : plan_.groups) {
      if (!rebind_group(group)) return false;
    }
    return true;
  }

 private:
  bool mapped_view(uint32_t i) const {
    return plan_.traits[i].kind == NodeKind::View && plan_.resolved[i].base.present();
  }
  const Shape& shape_of(const exec::ValueRef& v) const { return g_.node(v.node).shape(v.output); }
  // v as a group reads it: its base, and the layout of the views on the way.
  GroupInput resolve(const exec::ValueRef& v) const {
    if (mapped_view(v.node)) return plan_.resolved[v.node];
    return GroupInput{v, contiguous_layout(shape_of(v).sizes)};
  }

  bool resolve_view(uint32_t i) {
    const exec::ValueRef in = g_.operands(i)[0];
    const GroupInput start = resolve(in);
    std::optional<Layout> out = apply_view(g_.node(i), start.layout, shape_of(in).dtype);
    if (!out) return false;
    plan_.resolved[i].layout = std::move(*out);
    return true;
  }

  bool rebind_group(Group& group) {
    if (!runs(group)) return true;  // unscheduled: nothing of it runs
    if (group.members.empty()) return rebind_lone_reduction(group);
    group.sizes = g_.node(group.members.front()).shape(0).sizes;
    group.inputs.clear();
    std::vector<uint32_t> computed;  // members so far
    for (uint32_t m : group.members) {
      if (g_.node(m).shape(0).sizes != group.sizes) return false;
      const PointwiseFacts& info = *plan_.traits[m].pointwise;
      const auto operands = g_.operands(m);
      for (int k = 0; k < info.num_tensors; ++k) {
        const exec::ValueRef v = operands[static_cast<size_t>(info.tensor_operand[k])];
        if (!add_read(group, computed, v)) return false;
      }
      computed.push_back(m);
    }
    if (group.inputs.size() > static_cast<size_t>(kMaxGroupInputs)) return false;
    if (group.reduction == kNone) return true;
    return folds_as(plan_.traits[group.reduction].reduced, group.sizes, group.reduce_layout);
  }

  // A group that only reduces a value no group computes (Budgets::reduce_inputs).
  bool rebind_lone_reduction(Group& group) {
    const exec::ValueRef v = g_.operands(group.reduction)[0];
    group.sizes = shape_of(v).sizes;
    group.inputs = {resolve(v)};
    if (!is_identity(group.inputs[0].layout, group.sizes)) return false;  // as the planner requires
    return folds_as(plan_.traits[group.reduction].reduced, group.sizes, group.reduce_layout);
  }

  // A member's read of v: in place when it is an earlier member (through an identity only, as
  // the planner decided it), else an input of the group.
  bool add_read(Group& group, const std::vector<uint32_t>& computed, const exec::ValueRef& v) {
    GroupInput in = resolve(v);
    if (std::find(computed.begin(), computed.end(), in.base.node) != computed.end()) {
      return !mapped_view(v.node) || is_identity(in.layout, group.sizes);
    }
    const bool known = std::any_of(
        group.inputs.begin(), group.inputs.end(),
        [&](const GroupInput& x) { return x.base == in.base && x.layout == in.layout; });
    if (!known) group.inputs.push_back(std::move(in));
    return true;
  }

  const exec::Graph& g_;
  FusionPlan& plan_;
};

}  // namespace

SizeClasses::SizeClasses(const exec::Graph& graph) {
  for (const ir::Node* n : graph.nodes()) kinds_.push_back(n->op());
  for_each_size(graph, [&](int64_t v) { zero_.push_back(v == 0); });
}

bool SizeClasses::admits(const exec::Graph& graph) const {
  if (graph.nodes().size() != kinds_.size()) return false;
  for (size_t i = 0; i < kinds_.size(); ++i) {
    if (graph.node(i).op() != kinds_[i]) return false;
  }
  size_t p = 0;
  bool same = true;
  for_each_size(graph, [&](int64_t v) {
    same = same && p < zero_.size() && zero_[p] == (v == 0);
    ++p;
  });
  return same && p == zero_.size();
}

std::optional<FusionPlan> rebind_plan(const FusionPlan& plan, const exec::Graph& graph) {
  FusionPlan rebound = plan;
  if (!Rebinder(graph, rebound).run()) return std::nullopt;
  rebound.bands = find_bands(graph, rebound);  // row counts and block sizes follow the sizes
  return rebound;
}

}  // namespace lazygen::fusion
