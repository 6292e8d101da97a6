// The canonical key of a GroupSpec (group_key.h; See Note [Group keys]).
#include "fusion/group_key.h"

#include <algorithm>
#include <vector>

namespace lazygen::fusion {
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

}  // namespace

KeyRef key_ref(const GroupSpec::Ref& r) {
  return {r.is_load ? 'l' : 'v', static_cast<int>(r.index)};
}

std::string group_key(const GroupSpec& p) {
  KernelKey key;
  key.dtype = dtype_name(p.dtype);
  for (size_t a = 0; a < p.loads.size(); ++a) {
    const int64_t inner = p.load_strides[(a + 1) * p.dims.size() - 1];
    key.loads.push_back({std::string(dtype_name(p.loads[a].dtype)), stride_class(inner)});
  }
  for (const GroupSpec::Op& op : p.ops) {
    KeyOp& out = key.ops.emplace_back();
    out.name = op.facts->schema_name;
    for (int j = 0; j < op.num_in; ++j) out.args.push_back(key_ref(op.in[j]));
    for (int j = 0; j < op.num_scalars; ++j) out.args.push_back({'s', op.scalar[j]});
  }
  for (const GroupSpec::Output& o : p.outputs) {
    key.outputs.push_back({static_cast<int>(o.op), std::string(dtype_name(o.dtype))});
  }
  if (p.has_reduction) {
    const char* layout = p.reduce_layout == ReduceLayout::Leading ? ".lead" : "";
    key.reduce = std::string(reduce_name(p.reduce_op)) + layout;
    key.reduce_from = key_ref(p.reduce_from);
  }
  return print_key(key);
}

char load_access(const std::vector<int64_t>& strides, const std::vector<int64_t>& dims) {
  if (std::all_of(strides.begin(), strides.end(), [](int64_t s) { return s == 0; })) return 'B';
  int64_t expected = 1;
  for (size_t d = dims.size(); d-- > 0; expected *= dims[d]) {
    if (dims[d] != 1 && strides[d] != expected) return 'S';
  }
  return 'C';
}

std::string cuda_group_key(const GroupSpec& p) {
  const size_t dims = p.dims.size();
  std::string access;
  for (size_t l = 0; l < p.loads.size(); ++l) {
    const auto first = p.load_strides.begin() + static_cast<ptrdiff_t>(l * dims);
    access += load_access({first, first + static_cast<ptrdiff_t>(dims)}, p.dims);
  }
  return group_key(p) + " cuda=" + std::to_string(dims) + ":" + access;
}

}  // namespace lazygen::fusion
