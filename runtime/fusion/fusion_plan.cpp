// The fusion planner's sweep (fusion_plan.h; See Note [Greedy fusion]).
#include "fusion/fusion_plan.h"

#include <algorithm>
#include <optional>

#include "fusion/row_bands.h"

namespace lazygen::fusion {
namespace {

// A value as a group reads it: a base buffer through the index map of the views on the way.
struct Resolved {
  exec::ValueRef base;
  const Layout* layout = nullptr;  // null: base read directly, in its own contiguous layout
};

// What joining a group would add to it.
struct Additions {
  std::vector<uint32_t> recompute;
  std::vector<GroupInput> inputs;
  int scalars = 0;
};

// True when, size-1 dims aside, every dim `first` marks precedes every dim it does not mark.
bool marked_dims_lead(const std::vector<bool>& reduced, const std::vector<int64_t>& sizes,
                      bool first) {
  bool seen_other = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    if (seen_other && reduced[d] == first) return false;
    seen_other = seen_other || reduced[d] != first;
  }
  return true;
}

// How a reduction over `reduced` of a group of `sizes` folds, if it can (See Note [Folded
// reduction layouts]); a reduction that is both (all dims or none of size > 1) is Trailing.
std::optional<ReduceLayout> fold_layout(const std::vector<bool>& reduced,
                                        const std::vector<int64_t>& sizes) {
  if (marked_dims_lead(reduced, sizes, false)) return ReduceLayout::Trailing;
  if (marked_dims_lead(reduced, sizes, true)) return ReduceLayout::Leading;
  return std::nullopt;
}

class Planner {
 public:
  Planner(const exec::Graph& graph, const Budgets& budgets, FusionPlan& plan)
      : g_(graph), budgets_(budgets), plan_(plan) {}

  void run() {
    analyze();
    for (uint32_t i = 0; i < g_.nodes().size(); ++i) visit(i);
    if (open_ != kNone) close(EndReason::EndOfGraph);
    for (const exec::ValueRef& out : g_.outputs()) emit_view(out.node);
    finalize_storage();
  }

 private:
  const NodeTraits& traits(uint32_t i) const { return plan_.traits[i]; }
  bool mapped_view(uint32_t i) const {
    return traits(i).kind == NodeKind::View && plan_.resolved[i].base.present();
  }
  const std::vector<int64_t>& sizes_of(uint32_t i) const { return g_.node(i).shape(0).sizes; }

  // Operands that carry data into node i: a pointwise node's functor tensors, else all.
  template <class F>
  void for_each_data_operand(uint32_t i, F&& f) const {
    const auto ops = g_.operands(i);
    if (traits(i).kind == NodeKind::Pointwise) {
      const PointwiseFacts& info = *traits(i).pointwise;
      for (int k = 0; k < info.num_tensors; ++k)
        f(ops[static_cast<size_t>(info.tensor_operand[k])]);
      return;
    }
    for (const exec::ValueRef& r : ops) {
      if (r.present()) f(r);
    }
  }

  void analyze();
  void resolve_view(uint32_t i);
  Resolved resolve(exec::ValueRef v) const {
    if (mapped_view(v.node)) return {plan_.resolved[v.node].base, &plan_.resolved[v.node].layout};
    return {v, nullptr};
  }
  bool in_open_group(const Resolved& r) const {
    return open_ != kNone && computed_in_[r.base.node] == open_;
  }

  void visit(uint32_t i) {
    switch (traits(i).kind) {
      case NodeKind::Input:
      case NodeKind::View:
        return;  // fed, or read through index maps / lowered on demand
      case NodeKind::Pointwise:
        visit_pointwise(i);
        return;
      case NodeKind::Reduction:
        visit_reduction(i);
        return;
      case NodeKind::Library:
        visit_lowered(i);
        return;
    }
  }
  void visit_pointwise(uint32_t i);
  void visit_reduction(uint32_t i);
  bool reduce_alone(uint32_t i);
  void visit_lowered(uint32_t i);
  void emit_view(uint32_t i);
  void close(EndReason reason) {
    plan_.groups[open_].end = reason;
    plan_.schedule.push_back({Step::Kind::Group, open_});
    open_ = kNone;
  }
  uint32_t fold_target(uint32_t i, ReduceLayout& layout) const;
  bool stores_a_graph_output(const Group& group) const;

  bool reads_member_through_view(uint32_t i) const;
  bool recomputable(uint32_t v, DType dtype, const std::vector<int64_t>& sizes) const;
  void add_input(const Group& group, Additions& add, const Resolved& r) const;
  Additions additions(uint32_t i, bool recompute) const;
  std::optional<EndReason> over_budget(const Group& group, const Additions& add) const;
  void commit(uint32_t i, const Additions& add);

  Materialization need_of(uint32_t n) const;
  void finalize_storage();
  void drop_dead_members(Group& group, uint32_t g);
  void unschedule_empty_groups();

  const exec::Graph& g_;
  Budgets budgets_;
  FusionPlan& plan_;
  std::vector<std::vector<uint32_t>> users_;  // per node: nodes reading its data
  std::vector<bool> is_output_;
  std::vector<uint32_t> computed_in_;  // per node: the latest group computing it
  std::vector<bool> emitted_;          // per mapped view: lowered as a tensor
  uint32_t open_ = kNone;
};

void Planner::resolve_view(uint32_t i) {
  const exec::ValueRef in = g_.operands(i)[0];
  const Resolved r = resolve(in);
  const Layout start =
      r.layout ? *r.layout : contiguous_layout(g_.node(in.node).shape(in.output).sizes);
  const DType dtype = g_.node(in.node).shape(in.output).dtype;
  if (std::optional<Layout> out = apply_view(g_.node(i), start, dtype)) {
    plan_.resolved[i] = GroupInput{r.base, std::move(*out)};
  } else {
    plan_.traits[i].kind = NodeKind::Library;  // an opaque view: a real tensor op
  }
}

void Planner::analyze() {
  const size_t n = g_.nodes().size();
  plan_.traits.resize(n);
  plan_.resolved.resize(n);
  plan_.group_of.assign(n, kNone);
  plan_.storage.assign(n, Materialization::None);
  users_.assign(n, {});
  is_output_.assign(n, false);
  computed_in_.assign(n, kNone);
  emitted_.assign(n, false);
  for (uint32_t i = 0; i < n; ++i) {
    plan_.traits[i] = classify(g_, i);
    if (traits(i).kind == NodeKind::View) resolve_view(i);
    for_each_data_operand(i, [&](const exec::ValueRef& r) { users_[r.node].push_back(i); });
  }
  for (const exec::ValueRef& out : g_.outputs()) is_output_[out.node] = true;
}

bool Planner::reads_member_through_view(uint32_t i) const {
  bool reorders = false;
  for_each_data_operand(i, [&](const exec::ValueRef& v) {
    const Resolved r = resolve(v);
    if (r.layout && in_open_group(r) && !is_identity(*r.layout, sizes_of(i))) reorders = true;
  });
  return reorders;
}

// See Note [Recompute instead of materialize].
bool Planner::recomputable(uint32_t v, DType dtype, const std::vector<int64_t>& sizes) const {
  const NodeTraits& t = traits(v);
  if (t.kind != NodeKind::Pointwise || !t.cheap || is_output_[v]) return false;
  if (plan_.group_of[v] == kNone || t.compute != dtype || sizes_of(v) != sizes) {
    return false;
  }
  for (uint32_t u : users_[v]) {  // others would need V in memory anyway
    if (traits(u).kind != NodeKind::Pointwise && traits(u).kind != NodeKind::Reduction) {
      return false;
    }
  }
  bool from_materialized = true;
  for_each_data_operand(v, [&](const exec::ValueRef& r) {
    const NodeKind k = traits(resolve(r).base.node).kind;
    if (k != NodeKind::Input && k != NodeKind::Library && k != NodeKind::Reduction) {
      from_materialized = false;
    }
  });
  return from_materialized;
}

void Planner::add_input(const Group& group, Additions& add, const Resolved& r) const {
  GroupInput in{r.base, r.layout
                            ? *r.layout
                            : contiguous_layout(g_.node(r.base.node).shape(r.base.output).sizes)};
  auto same = [&](const GroupInput& x) { return x.base == in.base && x.layout == in.layout; };
  if (std::any_of(group.inputs.begin(), group.inputs.end(), same)) return;
  if (std::any_of(add.inputs.begin(), add.inputs.end(), same)) return;
  add.inputs.push_back(std::move(in));
}

// What node i brings into the open group (or a new one when none is open), recomputing cheap
// operands where allowed (See Note [Recompute instead of materialize]).
Additions Planner::additions(uint32_t i, bool recompute) const {
  static const Group kEmpty;
  const Group& group = open_ != kNone ? plan_.groups[open_] : kEmpty;
  Additions add;
  add.scalars = traits(i).pointwise->num_scalars;
  for_each_data_operand(i, [&](const exec::ValueRef& v) {
    const Resolved r = resolve(v);
    if (in_open_group(r)) return;  // a member (read in place: reorderings ended the group)
    const uint32_t b = r.base.node;
    const bool fresh =
        std::find(add.recompute.begin(), add.recompute.end(), b) == add.recompute.end();
    if (recompute && !r.layout && plan_.group_of[b] != open_ &&
        recomputable(b, traits(i).compute, sizes_of(i))) {
      if (!fresh) return;
      add.recompute.push_back(b);
      add.scalars += traits(b).pointwise->num_scalars;
      for_each_data_operand(b, [&](const exec::ValueRef& w) { add_input(group, add, resolve(w)); });
      return;
    }
    add_input(group, add, r);
  });
  return add;
}

std::optional<EndReason> Planner::over_budget(const Group& group, const Additions& add) const {
  const size_t nodes = group.members.size() + add.recompute.size() + 1;
  if (nodes > static_cast<size_t>(budgets_.max_nodes)) return EndReason::NodeBudget;
  if (group.inputs.size() + add.inputs.size() > static_cast<size_t>(budgets_.max_inputs)) {
    return EndReason::InputBudget;
  }
  if (group.num_scalars + add.scalars > budgets_.max_scalars) return EndReason::ScalarBudget;
  return std::nullopt;
}

void Planner::commit(uint32_t i, const Additions& add) {
  Group& group = plan_.groups[open_];
  for (uint32_t v : add.recompute) {
    group.members.push_back(v);
    group.recomputed.push_back(v);
    computed_in_[v] = open_;
  }
  for (const GroupInput& in : add.inputs) group.inputs.push_back(in);
  group.num_scalars += add.scalars;
  group.members.push_back(i);
  plan_.group_of[i] = open_;
  computed_in_[i] = open_;
}

void Planner::visit_pointwise(uint32_t i) {
  const NodeTraits& t = traits(i);
  if (open_ != kNone) {
    const Group& group = plan_.groups[open_];
    if (group.dtype != t.compute) {
      close(EndReason::DTypeChange);
    } else if (group.sizes != sizes_of(i)) {
      close(EndReason::ShapeChange);
    } else if (reads_member_through_view(i)) {
      close(EndReason::ViewOfGroupValue);
    }
  }
  Additions add = additions(i, true);
  if (open_ != kNone) {
    if (std::optional<EndReason> reason = over_budget(plan_.groups[open_], add)) {
      close(*reason);
      add = additions(i, true);
    }
  }
  if (open_ == kNone) {
    open_ = static_cast<uint32_t>(plan_.groups.size());
    Group fresh;
    fresh.dtype = t.compute;
    fresh.sizes = sizes_of(i);
    plan_.groups.push_back(std::move(fresh));
    // A node alone always fits; recomputing its operands might not.
    if (over_budget(plan_.groups[open_], add)) add = additions(i, false);
  }
  commit(i, add);
}

// The group reduction i folds into, or kNone: the open group, else the earlier group that
// computes its input (See Note [Late folds]). The input must be a pointwise member read in
// place, of the group's dtype, reduced over a layout of Note [Folded reduction layouts].
uint32_t Planner::fold_target(uint32_t i, ReduceLayout& layout) const {
  const Resolved r = resolve(g_.operands(i)[0]);
  if (r.layout || traits(r.base.node).kind != NodeKind::Pointwise) return kNone;
  const uint32_t g = in_open_group(r) ? open_ : plan_.group_of[r.base.node];
  if (g == kNone) return kNone;
  const Group& group = plan_.groups[g];
  if (group.reduction != kNone || traits(i).compute != group.dtype) return kNone;
  if (g != open_ && stores_a_graph_output(group)) return kNone;
  std::optional<ReduceLayout> l = fold_layout(traits(i).reduced, group.sizes);
  if (!l) return kNone;
  layout = *l;
  return g;
}

// Groups that store graph outputs may update tensors in place, which groups that reduce never
// do (in_place.h): a late fold stays out of them.
bool Planner::stores_a_graph_output(const Group& group) const {
  return std::any_of(group.members.begin(), group.members.end(),
                     [&](uint32_t m) { return is_output_[m]; });
}

// A reduction of a value no group computes, as a group of its own without members (See
// Budgets::reduce_inputs); false when it cannot be one.
bool Planner::reduce_alone(uint32_t i) {
  if (!budgets_.reduce_inputs) return false;
  const Resolved r = resolve(g_.operands(i)[0]);
  const NodeKind k = traits(r.base.node).kind;
  if (k != NodeKind::Input && k != NodeKind::Library) return false;
  const Shape& in = g_.node(g_.operands(i)[0].node).shape(g_.operands(i)[0].output);
  // The fold reads the loaded tile as it lies in memory: only an identity read gives it the
  // elements in order (an expand or a transpose needs a member to gather them first).
  if (r.layout != nullptr && !is_identity(*r.layout, in.sizes)) return false;
  const Shape& base = g_.node(r.base.node).shape(r.base.output);
  if (in.dtype != traits(i).compute || base.dtype != in.dtype) return false;
  const std::optional<ReduceLayout> layout = fold_layout(traits(i).reduced, in.sizes);
  if (!layout) return false;
  bool keeps_rows = false;  // else a full reduction, which no band takes
  for (size_t d = 0; d < in.sizes.size(); ++d)
    keeps_rows |= !traits(i).reduced[d] && in.sizes[d] > 1;
  const bool empty = std::find(in.sizes.begin(), in.sizes.end(), 0) != in.sizes.end();
  if (!keeps_rows || empty) return false;
  Group group;
  group.dtype = in.dtype;
  group.sizes = in.sizes;
  group.reduction = i;
  group.reduce_layout = *layout;
  group.end = *layout == ReduceLayout::Leading ? EndReason::LeadingReduction : EndReason::Reduction;
  Additions add;
  add_input(group, add, r);
  group.inputs = std::move(add.inputs);
  const auto g = static_cast<uint32_t>(plan_.groups.size());
  plan_.groups.push_back(std::move(group));
  plan_.group_of[i] = g;
  computed_in_[i] = g;
  plan_.schedule.push_back({Step::Kind::Group, g});
  return true;
}

void Planner::visit_reduction(uint32_t i) {
  ReduceLayout layout = ReduceLayout::Trailing;
  const uint32_t g = fold_target(i, layout);
  if (g == kNone) {
    if (reduce_alone(i)) return;
    plan_.traits[i].kind = NodeKind::Library;  // not foldable: the eager kernel runs it
    visit_lowered(i);
    return;
  }
  Group& group = plan_.groups[g];
  group.reduction = i;
  group.reduce_layout = layout;
  group.late_fold = g != open_;
  plan_.group_of[i] = g;
  computed_in_[i] = g;
  if (g == open_) {
    close(layout == ReduceLayout::Leading ? EndReason::LeadingReduction : EndReason::Reduction);
  }
}

void Planner::visit_lowered(uint32_t i) {
  bool reads_open = false;
  for (const exec::ValueRef& v : g_.operands(i)) {
    if (v.present() && open_ != kNone && plan_.group_of[resolve(v).base.node] == open_) {
      reads_open = true;
    }
  }
  if (reads_open) close(EndReason::LibraryConsumer);
  for (const exec::ValueRef& v : g_.operands(i)) {
    if (v.present()) emit_view(v.node);
  }
  plan_.schedule.push_back({Step::Kind::Lower, i});
}

// Lowers mapped view i (and the mapped views under it) as a tensor, once.
void Planner::emit_view(uint32_t i) {
  if (!mapped_view(i) || emitted_[i]) return;
  emit_view(g_.operands(i)[0].node);
  emitted_[i] = true;
  plan_.schedule.push_back({Step::Kind::Lower, i});
}

Materialization Planner::need_of(uint32_t n) const {
  if (is_output_[n]) return Materialization::Tensor;
  Materialization need = Materialization::None;
  const uint32_t own = plan_.group_of[n];
  for (uint32_t u : users_[n]) {
    const NodeKind k = traits(u).kind;
    if (k == NodeKind::Library || (k == NodeKind::View && emitted_[u])) {
      return Materialization::Tensor;
    }
    if (k == NodeKind::View) {
      need = Materialization::Arena;
      continue;
    }
    const uint32_t gu = plan_.group_of[u];
    const std::vector<uint32_t>& again = plan_.groups[gu].recomputed;
    if (gu == own || std::find(again.begin(), again.end(), n) != again.end()) continue;
    need = Materialization::Arena;
  }
  return need;
}

// Members nobody reads: recomputable nodes whose every reader computed them again.
void Planner::drop_dead_members(Group& group, uint32_t g) {
  auto dead = [&](uint32_t m) {
    if (plan_.group_of[m] != g || plan_.storage[m] != Materialization::None) return false;
    return std::none_of(users_[m].begin(), users_[m].end(),
                        [&](uint32_t u) { return plan_.group_of[u] == g; });
  };
  group.members.erase(std::remove_if(group.members.begin(), group.members.end(), dead),
                      group.members.end());
}

void Planner::finalize_storage() {
  for (uint32_t i = 0; i < g_.nodes().size(); ++i) {
    switch (traits(i).kind) {
      case NodeKind::Input:
      case NodeKind::Library:
        plan_.storage[i] = Materialization::Tensor;
        break;
      case NodeKind::View:
        plan_.storage[i] = emitted_[i] ? Materialization::Tensor : Materialization::None;
        break;
      case NodeKind::Pointwise:
        plan_.storage[i] = need_of(i);
        break;
      case NodeKind::Reduction:
        plan_.storage[i] = std::max(need_of(i), Materialization::Arena);
        break;
    }
  }
  for (uint32_t g = 0; g < plan_.groups.size(); ++g) drop_dead_members(plan_.groups[g], g);
  unschedule_empty_groups();
}

// A group left without members (its every value recomputed where it is read: a zero_ that an
// accumulating add_ recomputes) would run an empty program; it keeps its index, so that group_of
// stays valid, but loses its step. Specializing such a plan has nothing of it to re-derive.
void Planner::unschedule_empty_groups() {
  std::erase_if(plan_.schedule, [&](const Step& s) {
    return s.kind == Step::Kind::Group && !runs(plan_.groups[s.index]);
  });
}

}  // namespace

bool runs(const Group& g) {
  return !g.members.empty() || g.reduction != kNone;
}

bool folds_as(const std::vector<bool>& reduced, const std::vector<int64_t>& sizes,
              ReduceLayout layout) {
  return marked_dims_lead(reduced, sizes, layout == ReduceLayout::Leading);
}

FusionPlan plan_fusion(const exec::Graph& graph, const Budgets& budgets) {
  FusionPlan plan;
  Budgets b = budgets;
  b.max_inputs = std::min(b.max_inputs, kMaxGroupInputs);  // the interpreter's fixed arrays
  Planner(graph, b, plan).run();
  plan.bands = find_bands(graph, plan);
  return plan;
}

}  // namespace lazygen::fusion
