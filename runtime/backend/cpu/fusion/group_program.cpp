// Compiling a fusion group's GroupSpec into a GroupProgram (group_program.h).
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

// Lowers a GroupSpec to tile kernels, locations, register chains and a tile length.
class Builder {
 public:
  Builder(const exec::Graph& graph, const GroupSpec& spec, const std::vector<uint32_t>& staged)
      : g_(graph),
        s_(spec),
        staged_(staged),
        last_(spec.last_uses()),
        output_of_op_(spec.output_of_ops()) {}

  GroupProgram build() {
    static_cast<GroupFrame&>(p_) = s_;
    p_.prefetch = p_.numel * static_cast<int64_t>(itemsize(p_.dtype)) >= stream_bytes();
    add_loads();
    for (uint32_t k = 0; k < s_.ops.size(); ++k) add_op(k);
    add_outputs();
    assign_locations();
    find_chains();
    choose_tile();
    return std::move(p_);
  }

 private:
  void add_loads();
  void add_op(uint32_t k);
  void add_outputs();
  void assign_locations();
  int accumulator_slot(uint32_t value, uint32_t k) const;
  bool chainable(uint32_t k) const;
  bool reads_broadcast(uint16_t location) const;
  void find_chains();
  void choose_tile();

  const exec::Graph& g_;
  const GroupSpec& s_;
  const std::vector<uint32_t>& staged_;
  const std::vector<uint32_t> last_;         // per op: its value's last use
  const std::vector<int32_t> output_of_op_;  // per op: the output storing it, or -1
  GroupProgram p_;
};

void Builder::add_loads() {
  const size_t dims = s_.dims.size();
  for (size_t a = 0; a < s_.loads.size(); ++a) {
    const GroupSpec::Load& load = s_.loads[a];
    const int64_t inner = s_.load_strides[(a + 1) * dims - 1];
    const bool in_place = load.dtype == p_.dtype && (inner == 0 || inner == 1);
    p_.loads.push_back(GroupProgram::Load{load.input, load.offset, load.dtype, in_place});
  }
}

void Builder::add_op(uint32_t k) {
  const GroupSpec::Op& spec = s_.ops[k];
  GroupProgram::Op op;
  // The planner took the op in this dtype, in which every fusing backend has its kernel.
  const PointwiseInfo* kernels = pointwise_info(g_.node(spec.node).op());
  op.fn = kernels != nullptr ? kernels->for_dtype(s_.dtype) : nullptr;
  if (op.fn == nullptr) {
    throw std::logic_error(std::string("fusion: no tile kernel of ") + spec.facts->schema_name +
                           " in " + std::string(dtype_name(s_.dtype)));
  }
  op.facts = spec.facts;
  op.chain = kernels->chain;
  op.num_in = spec.num_in;
  op.num_scalars = spec.num_scalars;
  op.scalar = spec.scalar;
  p_.ops.push_back(op);
}

void Builder::add_outputs() {
  for (const GroupSpec::Output& o : s_.outputs) {
    const bool large = p_.numel * static_cast<int64_t>(itemsize(o.dtype)) >= stream_bytes();
    const bool staged = std::find(staged_.begin(), staged_.end(), o.node) != staged_.end();
    p_.outputs.push_back(GroupProgram::Output{
        o.node, o.dtype, o.dtype == s_.dtype && !large && !staged, o.dtype == s_.dtype && large});
  }
}

// Linear scan over the op list; See Note [Tile registers].
void Builder::assign_locations() {
  const auto num_loads = static_cast<uint16_t>(p_.loads.size());
  uint16_t direct = 0;
  for (const GroupProgram::Output& o : p_.outputs) direct += o.direct ? 1 : 0;
  p_.first_reg = static_cast<uint16_t>(num_loads + direct);
  std::vector<uint16_t> location(s_.ops.size());
  std::vector<uint16_t> free_regs;
  uint16_t next_direct = num_loads;
  auto loc_of = [&](const GroupSpec::Ref& r) {
    return r.is_load ? static_cast<uint16_t>(r.index) : location[r.index];
  };
  for (uint32_t k = 0; k < p_.ops.size(); ++k) {
    GroupProgram::Op& op = p_.ops[k];
    const GroupSpec::Op& spec = s_.ops[k];
    for (int j = 0; j < op.num_in; ++j) {
      op.in[j] = loc_of(spec.in[j]);
      const bool repeated =
          std::find(op.in.begin(), op.in.begin() + j, op.in[j]) != op.in.begin() + j;
      if (!spec.in[j].is_load && last_[spec.in[j].index] == k && op.in[j] >= p_.first_reg &&
          !repeated) {
        free_regs.push_back(op.in[j]);
      }
    }
    const int32_t out = output_of_op_[k];
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
    if (last_[k] == k && location[k] >= p_.first_reg) free_regs.push_back(location[k]);
  }
  if (p_.has_reduction) p_.reduce_from = loc_of(s_.reduce_from);
}

// The one tensor slot of op k that reads op `value`'s value, or -1 (none, or several).
int Builder::accumulator_slot(uint32_t value, uint32_t k) const {
  int slot = -1;
  for (int j = 0; j < s_.ops[k].num_in; ++j) {
    const GroupSpec::Ref& in = s_.ops[k].in[j];
    if (in.is_load || in.index != value) continue;
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
  const auto count = static_cast<uint32_t>(p_.ops.size());
  for (uint32_t k = 0; k < count;) {
    uint32_t end = k + 1;
    for (; chainable(k) && end < count && chainable(end); ++end) {
      const int slot = accumulator_slot(end - 1, end);
      if (last_[end - 1] != end || output_of_op_[end - 1] >= 0 || slot < 0) break;
      p_.ops[end].chain_slot = static_cast<int8_t>(slot);
    }
    if (end - k >= 2) {
      p_.chain = kernel;
      p_.ops[k].chain_end = static_cast<uint16_t>(end);
      p_.ops[k].chain_slot = 0;
      p_.ops[k].chain_value_dead = last_[end - 1] == end - 1;
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

GroupProgram compile_group(const exec::Graph& graph, const GroupSpec& spec,
                           const std::vector<uint32_t>& staged) {
  return Builder(graph, spec, staged).build();
}

}  // namespace lazygen::cpu::fusion
