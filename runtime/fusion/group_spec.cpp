// Describing a fusion group as a GroupSpec (group_spec.h).
#include "fusion/group_spec.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "fusion/index_map.h"

namespace lazygen::fusion {
namespace {

constexpr uint32_t kUnused = UINT32_MAX;

// The access of a Trailing reduction's output: contiguous over kept dims and constant over
// reduced ones, so that collapsing merges no kept dim with a reduced one.
std::vector<int64_t> trailing_output_strides(const std::vector<bool>& reduced,
                                             const std::vector<int64_t>& sizes) {
  std::vector<int64_t> s(sizes.size(), 0);
  int64_t stride = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (reduced[d]) continue;
    s[d] = stride;
    stride *= sizes[d];
  }
  return s;
}

class Describer {
 public:
  Describer(const exec::Graph& graph, const FusionPlan& plan, uint32_t g)
      : g_(graph), plan_(plan), group_(plan.groups[g]), gi_(g) {}

  GroupSpec describe() {
    s_.dtype = group_.dtype;
    s_.numel = checked_numel("fusion group", group_.sizes);
    load_of_input_.assign(group_.inputs.size(), kUnused);
    for (uint32_t k = 0; k < group_.members.size(); ++k) add_op(k);
    collect_outputs();
    add_reduction();
    collapse_space();
    return std::move(s_);
  }

 private:
  GroupSpec::Ref operand_ref(const exec::ValueRef& v);
  void add_op(uint32_t k);
  void collect_outputs();
  void add_reduction();
  void collapse_space();

  const exec::Graph& g_;
  const FusionPlan& plan_;
  const Group& group_;
  uint32_t gi_;
  GroupSpec s_;
  uint32_t described_ = 0;                             // members[0, described_) have ops
  std::vector<uint32_t> load_of_input_;                // per group input: its load
};

GroupSpec::Ref Describer::operand_ref(const exec::ValueRef& v) {
  exec::ValueRef base = v;
  Layout layout;
  const bool viewed = plan_.traits[v.node].kind == NodeKind::View;
  if (viewed) {
    base = plan_.resolved[v.node].base;
    layout = plan_.resolved[v.node].layout;
  } else {
    layout = contiguous_layout(g_.node(v.node).shape(v.output).sizes);
  }
  // A member is op k: the members described so far are few, so a scan beats a map.
  const auto begin = group_.members.begin(), end = begin + described_;
  const auto op = std::find(begin, end, base.node);
  if (op != end && (!viewed || is_identity(layout, group_.sizes))) {
    return GroupSpec::Ref{false, static_cast<uint32_t>(op - begin)};
  }
  for (uint32_t i = 0; i < group_.inputs.size(); ++i) {
    if (!(group_.inputs[i].base == base) || !(group_.inputs[i].layout == layout)) continue;
    if (load_of_input_[i] == kUnused) {
      load_of_input_[i] = static_cast<uint32_t>(s_.loads.size());
      const DType dtype = g_.node(base.node).shape(base.output).dtype;
      s_.loads.push_back(GroupSpec::Load{i, group_.inputs[i].layout.offset, dtype});
    }
    return GroupSpec::Ref{true, load_of_input_[i]};
  }
  throw std::logic_error("fusion: group " + std::to_string(gi_) + " reads %" +
                         std::to_string(base.node) + " that is neither a member nor an input");
}

void Describer::add_op(uint32_t k) {
  const uint32_t m = group_.members[k];
  const PointwiseFacts& facts = *plan_.traits[m].pointwise;
  const auto operands = g_.operands(m);
  GroupSpec::Op op;
  op.node = m;
  op.facts = &facts;
  op.num_in = static_cast<uint8_t>(facts.num_tensors);
  op.num_scalars = static_cast<uint8_t>(facts.num_scalars);
  for (int j = 0; j < facts.num_tensors; ++j) {
    op.in[j] = operand_ref(operands[static_cast<size_t>(facts.tensor_operand[j])]);
  }
  for (int j = 0; j < facts.num_scalars; ++j) {
    op.scalar[j] = static_cast<uint16_t>(s_.scalar_nodes.size());
    s_.scalar_nodes.push_back(operands[static_cast<size_t>(facts.scalar_operand[j])].node);
  }
  s_.ops.push_back(op);
  described_ = k + 1;
}

void Describer::collect_outputs() {
  for (uint32_t k = 0; k < group_.members.size(); ++k) {
    const uint32_t m = group_.members[k];
    if (plan_.group_of[m] != gi_ || plan_.storage[m] == Materialization::None) continue;
    s_.outputs.push_back(GroupSpec::Output{m, g_.node(m).shape(0).dtype, k});
  }
}

void Describer::add_reduction() {
  if (group_.reduction == kNone) return;
  const NodeTraits& t = plan_.traits[group_.reduction];
  s_.has_reduction = true;
  s_.reduce_op = t.reduce_op;
  s_.reduce_layout = group_.reduce_layout;
  s_.reduce_node = group_.reduction;
  s_.reduce_from = operand_ref(g_.operands(group_.reduction)[0]);
  s_.reduce_run = 1;
  s_.reduce_inner = 1;
  for (size_t d = 0; d < group_.sizes.size(); ++d) {
    (t.reduced[d] ? s_.reduce_run : s_.reduce_inner) *= group_.sizes[d];
  }
}

// Loads' strides over the group's sizes, collapsed; a Trailing reduction's output access
// collapses with them (a Leading one follows flat indices and needs none).
void Describer::collapse_space() {
  std::vector<std::vector<int64_t>> strides;
  for (const GroupSpec::Load& load : s_.loads) {
    strides.push_back(broadcast_strides(group_.inputs[load.input].layout, group_.sizes));
  }
  if (s_.has_reduction && s_.reduce_layout == ReduceLayout::Trailing) {
    strides.push_back(
        trailing_output_strides(plan_.traits[group_.reduction].reduced, group_.sizes));
  }
  Collapsed c = collapse(group_.sizes, strides);
  if (c.sizes.empty()) {
    c.sizes = {1};
    for (auto& st : c.strides) st = {0};
  }
  s_.dims = c.sizes;
  for (size_t a = 0; a < s_.loads.size(); ++a) {
    s_.load_strides.insert(s_.load_strides.end(), c.strides[a].begin(), c.strides[a].end());
  }
}

}  // namespace

std::vector<uint32_t> GroupSpec::last_uses() const {
  std::vector<uint32_t> last(ops.size());
  for (uint32_t k = 0; k < last.size(); ++k) last[k] = k;
  for (uint32_t k = 0; k < ops.size(); ++k) {
    for (int j = 0; j < ops[k].num_in; ++j) {
      if (!ops[k].in[j].is_load) last[ops[k].in[j].index] = k;
    }
  }
  if (has_reduction && !reduce_from.is_load) {
    last[reduce_from.index] = static_cast<uint32_t>(ops.size());
  }
  return last;
}

std::vector<int32_t> GroupSpec::output_of_ops() const {
  std::vector<int32_t> of(ops.size(), -1);
  for (size_t j = 0; j < outputs.size(); ++j) of[outputs[j].op] = static_cast<int32_t>(j);
  return of;
}

GroupSpec describe_group(const exec::Graph& graph, const FusionPlan& plan, uint32_t g) {
  return Describer(graph, plan, g).describe();
}

}  // namespace lazygen::fusion
