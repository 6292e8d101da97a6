// The canonical key of a GroupProgram (group_key.h; See Note [Group keys]).
#include "backend/cpu/fusion/group_key.h"

#include <algorithm>
#include <vector>

namespace lazygen::cpu::fusion {
namespace {

char stride_class(int64_t inner) {
  return inner == 0 ? 'b' : inner == 1 ? 'c' : 's';
}

const char* reduce_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return "sum";
    case ReduceOp::Mean:
      return "mean";
    case ReduceOp::Amax:
      return "amax";
  }
  return "?";
}

// Names the value in each location as the ops write them: l<k> for loads, v<k> for op k.
class ValueNames {
 public:
  explicit ValueNames(const GroupProgram& p)
      : writer_(p.num_locations(), -1), loads_(p.loads.size()) {}
  ::lazygen::fusion::KeyRef ref(uint16_t location) const {
    if (location < loads_) return {'l', location};
    return {'v', static_cast<int>(writer_[location])};
  }
  void wrote(uint16_t location, size_t op) { writer_[location] = static_cast<int64_t>(op); }

 private:
  std::vector<int64_t> writer_;
  size_t loads_;
};

// Per output: the op whose value it stores.
std::vector<size_t> output_ops(const GroupProgram& p) {
  std::vector<size_t> of(p.outputs.size(), 0);
  for (size_t k = 0; k < p.ops.size(); ++k) {
    const GroupProgram::Op& op = p.ops[k];
    if (op.store >= 0) of[static_cast<size_t>(op.store)] = k;
    for (size_t j = 0; j < p.outputs.size(); ++j) {
      if (p.outputs[j].direct && p.outputs[j].location == op.out) of[j] = k;
    }
  }
  return of;
}

}  // namespace

std::string group_key(const GroupProgram& p) {
  ::lazygen::fusion::KernelKey key;
  key.dtype = dtype_name(p.dtype);
  for (size_t a = 0; a < p.loads.size(); ++a) {
    const int64_t inner = p.load_strides[(a + 1) * p.dims.size() - 1];
    key.loads.push_back({std::string(dtype_name(p.loads[a].dtype)), stride_class(inner)});
  }
  ValueNames names(p);
  for (size_t k = 0; k < p.ops.size(); ++k) {
    const GroupProgram::Op& op = p.ops[k];
    ::lazygen::fusion::KeyOp& out = key.ops.emplace_back();
    out.name = op.facts->schema_name;
    for (int j = 0; j < op.num_in; ++j) out.args.push_back(names.ref(op.in[j]));
    for (int j = 0; j < op.num_scalars; ++j) out.args.push_back({'s', op.scalar[j]});
    names.wrote(op.out, k);
  }
  const std::vector<size_t> of = output_ops(p);
  for (size_t j = 0; j < p.outputs.size(); ++j) {
    key.outputs.push_back({static_cast<int>(of[j]), std::string(dtype_name(p.outputs[j].dtype))});
  }
  if (p.has_reduction) {
    const char* layout = p.reduce_layout == ReduceLayout::Leading ? ".lead" : "";
    key.reduce = std::string(reduce_name(p.reduce_op)) + layout;
    key.reduce_from = names.ref(p.reduce_from);
  }
  return ::lazygen::fusion::print_key(key);
}

char load_access(const std::vector<int64_t>& strides, const std::vector<int64_t>& dims) {
  if (std::all_of(strides.begin(), strides.end(), [](int64_t s) { return s == 0; })) return 'B';
  int64_t expected = 1;
  for (size_t d = dims.size(); d-- > 0; expected *= dims[d]) {
    if (dims[d] != 1 && strides[d] != expected) return 'S';
  }
  return 'C';
}

std::string cuda_group_key(const GroupProgram& p) {
  const size_t dims = p.dims.size();
  std::string access;
  for (size_t l = 0; l < p.loads.size(); ++l) {
    const auto first = p.load_strides.begin() + static_cast<ptrdiff_t>(l * dims);
    access += load_access({first, first + static_cast<ptrdiff_t>(dims)}, p.dims);
  }
  return group_key(p) + " cuda=" + std::to_string(dims) + ":" + access;
}

}  // namespace lazygen::cpu::fusion
