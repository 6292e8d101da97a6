// The canonical key of a GroupSpec (group_key.h; See Note [Group keys]).
#include "fusion/group_key.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace lazygen::fusion {
namespace {

char stride_class(int64_t inner) {
  return inner == 0 ? 'b' : inner == 1 ? 'c' : 's';
}

// The stride class of load `a` of `p`: its innermost stride's.
char load_class(const GroupSpec& p, size_t a) {
  return stride_class(p.load_strides[(a + 1) * p.dims.size() - 1]);
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
    key.loads.push_back({std::string(dtype_name(p.loads[a].dtype)), load_class(p, a)});
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

// Field by field as group_key above: a field's count before its entries, so that no two
// sequences of fields read alike.
std::vector<uint64_t> group_signature(const GroupSpec& p) {
  auto ref = [](const GroupSpec::Ref& r) { return uint64_t{r.index} << 1 | (r.is_load ? 1 : 0); };
  std::vector<uint64_t> sig;
  sig.reserve(8 + 2 * p.loads.size() + 8 * p.ops.size() + 2 * p.outputs.size());
  sig.push_back(static_cast<uint64_t>(p.dtype));
  sig.push_back(p.loads.size());
  for (size_t a = 0; a < p.loads.size(); ++a) {
    sig.push_back(static_cast<uint64_t>(p.loads[a].dtype) << 8 |
                  static_cast<unsigned char>(load_class(p, a)));
  }
  sig.push_back(p.ops.size());
  for (const GroupSpec::Op& op : p.ops) {
    sig.push_back(reinterpret_cast<uintptr_t>(op.facts->schema_name));
    sig.push_back(uint64_t{op.num_in} << 8 | op.num_scalars);
    for (int j = 0; j < op.num_in; ++j) sig.push_back(ref(op.in[j]));
    for (int j = 0; j < op.num_scalars; ++j) sig.push_back(op.scalar[j]);
  }
  sig.push_back(p.outputs.size());
  for (const GroupSpec::Output& o : p.outputs) {
    sig.push_back(uint64_t{o.op} << 8 | static_cast<uint64_t>(o.dtype));
  }
  if (p.has_reduction) {
    sig.push_back(1 + (static_cast<uint64_t>(p.reduce_op) << 1 |
                       (p.reduce_layout == ReduceLayout::Leading ? 1 : 0)));
    sig.push_back(ref(p.reduce_from));
  }
  return sig;
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
