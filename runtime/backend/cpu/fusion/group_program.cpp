// Compiling a fusion group into a GroupProgram (group_program.h).
#include "backend/cpu/fusion/group_program.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <unordered_map>

namespace lazygen::cpu::fusion {
namespace {

constexpr int64_t kScratchBytes = 16 * 1024;  // See Note [Tile registers]
constexpr int64_t kMinTile = 256;
constexpr int64_t kStreamTile = 2048;               // See Note [Streaming groups]
constexpr int64_t kMinStreamBytes = int64_t{4} << 20;  // See Note [Streaming groups]

// The L3 cache of cpu 0 as the kernel describes it ("32768K"), or 0. Not sysconf: glibc's
// _SC_LEVEL3_CACHE_SIZE reports the whole package's L3 (256 MiB on a 32 MiB-per-CCD EPYC).
int64_t l3_bytes() {
  std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index3/size");
  int64_t value = 0;
  char unit = 0;
  if (!(in >> value)) return 0;
  in >> unit;
  return unit == 'K' ? value << 10 : unit == 'M' ? value << 20 : value;
}


constexpr uint32_t kUnused = UINT32_MAX;

// A tile operand before locations exist: load `index`, or the value of member `index`.
struct Ref {
  bool is_load = false;
  uint32_t index = 0;
};

class Builder {
 public:
  Builder(const exec::Graph& graph, const FusionPlan& plan, uint32_t g,
          const std::vector<uint32_t>& staged)
      : g_(graph), plan_(plan), group_(plan.groups[g]), gi_(g), staged_(staged) {}

  GroupProgram build() {
    p_.dtype = group_.dtype;
    p_.numel = checked_numel("fusion group", group_.sizes);
    p_.prefetch = p_.numel * static_cast<int64_t>(itemsize(p_.dtype)) >= stream_bytes();
    load_of_input_.assign(group_.inputs.size(), kUnused);
    for (uint32_t k = 0; k < group_.members.size(); ++k) add_op(k);
    collect_outputs();
    add_reduction();
    collapse_space();
    assign_locations();
    find_chains();
    choose_tile();
    return std::move(p_);
  }

 private:
  Ref operand_ref(const exec::ValueRef& v);
  void add_op(uint32_t k);
  void collect_outputs();
  void add_reduction();
  void collapse_space();
  std::vector<uint32_t> last_uses() const;
  void assign_locations();
  int accumulator_slot(uint32_t value, uint32_t k) const;
  bool chainable(uint32_t k) const;
  bool reads_broadcast(uint16_t location) const;
  void find_chains();
  void choose_tile();

  const exec::Graph& g_;
  const FusionPlan& plan_;
  const Group& group_;
  uint32_t gi_;
  const std::vector<uint32_t>& staged_;
  GroupProgram p_;
  std::unordered_map<uint32_t, uint32_t> member_of_node_;  // members computed so far
  std::vector<uint32_t> load_of_input_;                    // per group input: its load
  std::vector<std::array<Ref, kMaxTileInputs>> refs_;      // per op
  std::vector<int32_t> output_of_member_;                  // per member: output index or -1
  Ref reduce_ref_;
};

Ref Builder::operand_ref(const exec::ValueRef& v) {
  exec::ValueRef base = v;
  Layout layout;
  const bool viewed = plan_.traits[v.node].kind == NodeKind::View;
  if (viewed) {
    base = plan_.resolved[v.node].base;
    layout = plan_.resolved[v.node].layout;
  } else {
    layout = contiguous_layout(g_.node(v.node).shape(v.output).sizes);
  }
  auto member = member_of_node_.find(base.node);
  if (member != member_of_node_.end() && (!viewed || is_identity(layout, group_.sizes))) {
    return Ref{false, member->second};
  }
  for (uint32_t i = 0; i < group_.inputs.size(); ++i) {
    if (!(group_.inputs[i].base == base) || !(group_.inputs[i].layout == layout)) continue;
    if (load_of_input_[i] == kUnused) {
      load_of_input_[i] = static_cast<uint32_t>(p_.loads.size());
      const DType dtype = g_.node(base.node).shape(base.output).dtype;
      p_.loads.push_back(GroupProgram::Load{i, group_.inputs[i].layout.offset, dtype, false});
    }
    return Ref{true, load_of_input_[i]};
  }
  throw std::logic_error("fusion: group " + std::to_string(gi_) + " reads %" +
                         std::to_string(base.node) + " that is neither a member nor an input");
}

void Builder::add_op(uint32_t k) {
  const uint32_t m = group_.members[k];
  const PointwiseFacts& info = *plan_.traits[m].pointwise;
  const auto operands = g_.operands(m);
  GroupProgram::Op op;
  // The planner took the op in this dtype, in which every fusing backend has its kernel.
  const PointwiseInfo* kernels = pointwise_info(g_.node(m).op());
  op.fn = kernels != nullptr ? kernels->for_dtype(group_.dtype) : nullptr;
  if (op.fn == nullptr) {
    throw std::logic_error(std::string("fusion: no tile kernel of ") + info.schema_name + " in " +
                           std::string(dtype_name(group_.dtype)));
  }
  op.facts = &info;
  op.chain = kernels->chain;
  op.num_in = static_cast<uint8_t>(info.num_tensors);
  op.num_scalars = static_cast<uint8_t>(info.num_scalars);
  std::array<Ref, kMaxTileInputs> refs{};
  for (int j = 0; j < info.num_tensors; ++j) {
    refs[j] = operand_ref(operands[static_cast<size_t>(info.tensor_operand[j])]);
  }
  for (int j = 0; j < info.num_scalars; ++j) {
    op.scalar[j] = static_cast<uint16_t>(p_.scalar_nodes.size());
    p_.scalar_nodes.push_back(operands[static_cast<size_t>(info.scalar_operand[j])].node);
  }
  p_.ops.push_back(op);
  refs_.push_back(refs);
  member_of_node_[m] = k;
}

void Builder::collect_outputs() {
  output_of_member_.assign(group_.members.size(), -1);
  for (uint32_t k = 0; k < group_.members.size(); ++k) {
    const uint32_t m = group_.members[k];
    if (plan_.group_of[m] != gi_ || plan_.storage[m] == Materialization::None) continue;
    const DType dtype = g_.node(m).shape(0).dtype;
    const bool large = p_.numel * static_cast<int64_t>(itemsize(dtype)) >= stream_bytes();
    const bool staged = std::find(staged_.begin(), staged_.end(), m) != staged_.end();
    output_of_member_[k] = static_cast<int32_t>(p_.outputs.size());
    GroupProgram::Output out{m, dtype, dtype == group_.dtype && !large && !staged,
                             dtype == group_.dtype && large};
    p_.outputs.push_back(out);
  }
}

void Builder::add_reduction() {
  if (group_.reduction == kNone) return;
  const NodeTraits& t = plan_.traits[group_.reduction];
  p_.has_reduction = true;
  p_.reduce_op = t.reduce_op;
  p_.reduce_layout = group_.reduce_layout;
  p_.reduce_node = group_.reduction;
  reduce_ref_ = operand_ref(g_.operands(group_.reduction)[0]);
  p_.reduce_run = 1;
  p_.reduce_inner = 1;
  for (size_t d = 0; d < group_.sizes.size(); ++d) {
    (t.reduced[d] ? p_.reduce_run : p_.reduce_inner) *= group_.sizes[d];
  }
}

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

// Loads' strides over the group's sizes, collapsed; a Trailing reduction's output access
// collapses with them (a Leading one follows flat indices and needs none).
void Builder::collapse_space() {
  std::vector<std::vector<int64_t>> strides;
  for (const GroupProgram::Load& load : p_.loads) {
    strides.push_back(broadcast_strides(group_.inputs[load.input].layout, group_.sizes));
  }
  if (p_.has_reduction && p_.reduce_layout == ReduceLayout::Trailing) {
    strides.push_back(
        trailing_output_strides(plan_.traits[group_.reduction].reduced, group_.sizes));
  }
  Collapsed c = collapse(group_.sizes, strides);
  if (c.sizes.empty()) {
    c.sizes = {1};
    for (auto& s : c.strides) s = {0};
  }
  p_.dims = c.sizes;
  for (size_t a = 0; a < p_.loads.size(); ++a) {
    p_.load_strides.insert(p_.load_strides.end(), c.strides[a].begin(), c.strides[a].end());
    const int64_t inner = c.strides[a].back();
    p_.loads[a].in_place = p_.loads[a].dtype == p_.dtype && (inner == 0 || inner == 1);
  }
}

// Per member: the index of the last op that needs its tile value (ops.size() for the reduction).
std::vector<uint32_t> Builder::last_uses() const {
  std::vector<uint32_t> last(group_.members.size());
  for (uint32_t k = 0; k < last.size(); ++k) last[k] = k;
  for (uint32_t k = 0; k < p_.ops.size(); ++k) {
    for (int j = 0; j < p_.ops[k].num_in; ++j) {
      if (!refs_[k][j].is_load) last[refs_[k][j].index] = k;
    }
  }
  if (p_.has_reduction && !reduce_ref_.is_load) {
    last[reduce_ref_.index] = static_cast<uint32_t>(p_.ops.size());
  }
  return last;
}

// Linear scan over the op list; See Note [Tile registers].
void Builder::assign_locations() {
  const auto num_loads = static_cast<uint16_t>(p_.loads.size());
  uint16_t direct = 0;
  for (const GroupProgram::Output& o : p_.outputs) direct += o.direct ? 1 : 0;
  p_.first_reg = static_cast<uint16_t>(num_loads + direct);
  const std::vector<uint32_t> last = last_uses();
  std::vector<uint16_t> location(group_.members.size());
  std::vector<uint16_t> free_regs;
  uint16_t next_direct = num_loads;
  auto loc_of = [&](const Ref& r) {
    return r.is_load ? static_cast<uint16_t>(r.index) : location[r.index];
  };
  for (uint32_t k = 0; k < p_.ops.size(); ++k) {
    GroupProgram::Op& op = p_.ops[k];
    for (int j = 0; j < op.num_in; ++j) {
      op.in[j] = loc_of(refs_[k][j]);
      const bool repeated =
          std::find(op.in.begin(), op.in.begin() + j, op.in[j]) != op.in.begin() + j;
      if (!refs_[k][j].is_load && last[refs_[k][j].index] == k && op.in[j] >= p_.first_reg &&
          !repeated) {
        free_regs.push_back(op.in[j]);
      }
    }
    const int32_t out = output_of_member_[k];
    if (out >= 0 && p_.outputs[out].direct) {
      location[k] = next_direct++;
      p_.outputs[out].location = location[k];
    } else if (!free_regs.empty()) {
      location[k] = free_regs.back();
      free_regs.pop_back();
    } else {
      location[k] = static_cast<uint16_t>(p_.first_reg + p_.num_regs++);
    }
    op.out = location[k];
    if (out >= 0 && !p_.outputs[out].direct) op.store = static_cast<int16_t>(out);
    if (last[k] == k && location[k] >= p_.first_reg) free_regs.push_back(location[k]);
  }
  if (p_.has_reduction) p_.reduce_from = loc_of(reduce_ref_);
}

// The one tensor slot of op k that reads member `value`, or -1 (none, or several).
int Builder::accumulator_slot(uint32_t value, uint32_t k) const {
  int slot = -1;
  for (int j = 0; j < p_.ops[k].num_in; ++j) {
    if (refs_[k][j].is_load || refs_[k][j].index != value) continue;
    if (slot >= 0) return -1;
    slot = j;
  }
  return slot;
}

bool Builder::chainable(uint32_t k) const {
  return p_.ops[k].chain >= 0 && p_.ops[k].num_in > 0;
}

// Whether `location` is read with innermost stride 0 (a load broadcast along the row).
bool Builder::reads_broadcast(uint16_t location) const {
  return location < p_.loads.size() && p_.load_strides[(location + 1) * p_.dims.size() - 1] == 0;
}

// Maximal runs of two or more ops, each op's value read only by the next op, in one slot, and
// neither an output nor reduced (See Note [Register chains]).
void Builder::find_chains() {
  const ChainFn kernel = chain_kernel(p_.dtype);
  if (kernel == nullptr) return;
  const std::vector<uint32_t> last = last_uses();
  const auto count = static_cast<uint32_t>(p_.ops.size());
  for (uint32_t k = 0; k < count;) {
    uint32_t end = k + 1;
    for (; chainable(k) && end < count && chainable(end); ++end) {
      const int slot = accumulator_slot(end - 1, end);
      if (last[end - 1] != end || output_of_member_[end - 1] >= 0 || slot < 0) break;
      p_.ops[end].chain_slot = static_cast<int8_t>(slot);
    }
    if (end - k >= 2) {
      p_.chain = kernel;
      p_.ops[k].chain_end = static_cast<uint16_t>(end);
      p_.ops[k].chain_slot = 0;
      p_.ops[k].chain_value_dead = last[end - 1] == end - 1;
      for (uint32_t j = k; j < end; ++j) {
        for (int i = 0; i < p_.ops[j].num_in; ++i) {
          const bool splat = i != p_.ops[j].chain_slot || j == k;
          p_.num_splats += splat && reads_broadcast(p_.ops[j].in[i]) ? 1 : 0;
        }
      }
    }
    k = end;
  }
}

void Builder::choose_tile() {
  for (const GroupProgram::Load& load : p_.loads) p_.num_gathered += load.in_place ? 0 : 1;
  const int64_t buffers = std::max<int64_t>(1, p_.num_regs + p_.num_gathered);
  int64_t tile = p_.prefetch && !p_.has_reduction ? kStreamTile : kAotTile;
  while (tile > kMinTile &&
         tile * buffers * static_cast<int64_t>(itemsize(p_.dtype)) > kScratchBytes) {
    tile /= 2;
  }
  p_.tile = tile;
}

}  // namespace

int64_t stream_bytes() {
  static const int64_t bytes = std::max(kMinStreamBytes, l3_bytes());
  return bytes;
}

GroupProgram compile_group(const exec::Graph& graph, const FusionPlan& plan, uint32_t g,
                           const std::vector<uint32_t>& staged) {
  return Builder(graph, plan, g, staged).build();
}

}  // namespace lazygen::cpu::fusion
