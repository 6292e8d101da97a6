// See validate.h. One function per rule; validate_ops runs them in file order.
#include "model/validate.h"

#include <map>

#include "model/expr_scan.h"
#include "model/kernel_dtypes.h"
#include "model/pointwise_functions.h"
#include "model/suggest.h"

namespace lazygen::gen {
namespace {

std::vector<std::string> argument_names(const FunctionSchema& s, bool tensors_and_scalars_only) {
  std::vector<std::string> names;
  for (const Argument& a : s.arguments) {
    bool value_like = (a.type.base == BaseType::Tensor || a.type.base == BaseType::Scalar) &&
                      !a.type.is_list && !a.type.is_optional();
    if (!tensors_and_scalars_only || value_like) names.push_back(a.name);
  }
  return names;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  for (const auto& s : v) if (s == x) return true;
  return false;
}

// A call of a table function: its arity, and for an Integral-domain one (bitwise_*), no floating
// compute dtype (See Note [Kernel dtypes] in kernel_dtypes.h).
void check_call(const OpEntry& op, const ExprIdent& call) {
  const PointwiseFunction& f = *find_pointwise_function(call.name);
  const SourceLoc at = op.pointwise_loc.advanced(call.offset);
  if (call.arity != f.arity) {
    throw GenError(at, op.schema.name.str() + ": " + call.name + " takes " + std::to_string(f.arity) +
                   " argument" + (f.arity == 1 ? "" : "s") + ", got " + std::to_string(call.arity),
                   "`lazygen --functions` lists each function with its arguments");
  }
  if (f.domain != PointwiseFunction::Domain::Integral) return;
  for (const std::string& d : compute_dtypes(op)) {
    if (d != "float32" && d != "float64") continue;
    throw GenError(at, op.schema.name.str() + ": " + call.name + " takes bool and integral values, but the op "
                   "would compute in " + d,
                   "declare the dtypes it takes: 'dtypes: [bool, int32, int64]'");
  }
}

// "did you mean 'exp'? `lazygen --functions` lists the 58 functions" (the table is too long to print).
std::string function_hint(const std::string& name) {
  const std::vector<std::string>& all = pointwise_functions();
  const std::string near = nearest(name, all);
  return (near.empty() ? "" : "did you mean '" + near + "'? ") + "`lazygen --functions` lists the " +
         std::to_string(all.size()) + " functions";
}

void check_pointwise(const OpEntry& op) {
  if (!op.pointwise) return;
  const auto& returns = op.schema.returns;
  if (returns.size() != 1 || returns[0].type.base != BaseType::Tensor || returns[0].type.is_list) {
    throw GenError(op.pointwise_loc, op.schema.name.str() + ": 'pointwise' needs an op returning one Tensor",
                   "use 'kernel: custom' for ops with several or non-tensor results");
  }
  if (op.custom_kernel) {
    throw GenError(op.kernel_loc, op.schema.name.str() + ": both 'pointwise' and 'kernel: custom' given",
                   "keep one: 'pointwise:' generates the kernel, 'kernel: custom' means it is hand-written");
  }
  std::vector<std::string> inputs = argument_names(op.schema, true);
  for (const ExprIdent& id : scan_identifiers(*op.pointwise)) {
    if (id.is_member) continue;
    const auto& known = id.is_call ? pointwise_functions() : inputs;
    if (contains(known, id.name)) {
      if (id.is_call) check_call(op, id);
      continue;
    }
    std::string what = id.is_call ? "unknown function '" : "unknown input '";
    throw GenError(op.pointwise_loc.advanced(id.offset),
                   op.schema.name.str() + ": pointwise expression uses " + what + id.name + "'",
                   id.is_call ? function_hint(id.name) : suggest_hint(id.name, known));
  }
}

void check_derivatives(const OpEntry& op) {
  std::vector<std::string> tensors;
  for (const Argument* a : op.schema.tensor_arguments()) tensors.push_back(a->name);
  std::vector<std::string> variables = argument_names(op.schema, false);
  variables.push_back("grad");
  variables.push_back("non_differentiable");  // `<input>: non_differentiable`: no gradient, on purpose
  variables.push_back("true");
  variables.push_back("false");
  for (const auto& [name, index] : op.schema.result_names()) variables.push_back(name);
  for (const Derivative& d : op.derivatives) {
    if (!contains(tensors, d.argument)) {
      throw GenError(d.key_loc, op.schema.name.str() + ": derivative for '" + d.argument +
                     "', which is not a Tensor argument of " + op.func,
                     suggest_hint(d.argument, tensors));
    }
    for (const ExprIdent& id : scan_identifiers(d.formula)) {
      if (id.is_call || id.is_member || contains(variables, id.name)) continue;
      throw GenError(d.loc.advanced(id.offset),
                     op.schema.name.str() + ": formula names '" + id.name + "', which " + op.func + " lacks",
                     suggest_hint(id.name, variables));
    }
  }
}

// Only hooks the entry asks for: a Native entry without `shape:` has ShapeRule::Custom by
// default but names no hook.
void check_hooks_have_tensors(const OpEntry& op) {
  bool custom_shape = op.shape_loc.line > 0 && op.has_custom_shape();
  if (!custom_shape && !op.custom_kernel) return;
  if (!op.schema.tensor_arguments().empty()) return;
  const SourceLoc& at = op.custom_kernel ? op.kernel_loc : op.shape_loc;
  throw GenError(at, op.schema.name.str() + ": a custom hook needs at least one Tensor argument",
                 "ops without tensor inputs are factories: write them in runtime/ops by hand");
}

void check_computable(const OpEntry& op) {
  if (op.shape_loc.line == 0) {
    throw GenError(op.entry_loc, op.schema.name.str() + ": missing 'shape:'",
                   "add 'shape: same|broadcast|reduce|view|custom'");
  }
  if (!op.pointwise && !op.custom_kernel) {
    throw GenError(op.entry_loc, op.schema.name.str() + ": no kernel",
                   "add 'pointwise: <expression>' or 'kernel: custom' (hand-written lazygen::cpu kernel)");
  }
  if (op.shape == ShapeRule::Reduce && !op.schema.find_argument("self")) {
    throw GenError(op.shape_loc, op.schema.name.str() + ": 'shape: reduce' needs a 'self' argument",
                   "use 'shape: custom' and write compute_shape_<op> by hand");
  }
}

// An adapter-only entry is a PyTorch op, not a lazygen one: nothing but the adapter to declare.
void check_adapter_only(const OpEntry& op) {
  if (op.derivatives.empty() && op.domains.empty() && op.samples.empty() && !op.method_variant) return;
  throw GenError(op.torch_loc, op.schema.name.str() + ": an entry with 'torch: adapter' and no "
                 "'shape:' only declares a PyTorch adapter",
                 "remove its variants/derivatives/domain/samples, or make it a lazygen op with "
                 "'shape:' and a kernel");
}

void check_unique(const OpsFile& file) {
  std::map<std::string, const OpEntry*> seen;
  std::vector<const OpEntry*> entries;
  for (const OpEntry& op : file.ops) entries.push_back(&op);
  for (const OpEntry& op : file.torch_adapters) entries.push_back(&op);
  for (const OpEntry* e : entries) {
    const OpEntry& op = *e;
    auto [it, inserted] = seen.emplace(op.schema.name.str(), &op);
    if (inserted) continue;
    // A PyTorch adapter may take the name of a lazygen op the device does not serve itself.
    if (is_adapter_only(op) && it->second->torch == TorchKernel::None) continue;
    throw GenError(op.func_loc, "duplicate op '" + op.schema.name.str() + "'",
                   "it is already defined at " + it->second->func_loc.str() + "; remove one entry");
  }
}

}  // namespace

const std::vector<std::string>& pointwise_functions() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const PointwiseFunction& f : pointwise_function_table()) names.emplace_back(f.name);
    return names;
  }();
  return kNames;
}

bool is_adapter_only(const OpEntry& op) {
  return op.torch == TorchKernel::Adapter && op.shape_loc.line == 0 && !op.pointwise &&
         !op.custom_kernel;
}

void validate_ops(const OpsFile& file, OpsDialect dialect) {
  check_unique(file);
  for (const OpEntry& op : file.torch_adapters) check_adapter_only(op);
  for (const OpEntry& op : file.ops) {
    if (dialect == OpsDialect::Lazygen) check_computable(op);
    check_pointwise(op);
    check_derivatives(op);
    check_hooks_have_tensors(op);
  }
}

std::vector<OpEntry> select_ops(const OpsFile& file, const std::vector<std::string>& select) {
  std::vector<std::string> names;
  for (const OpEntry& op : file.ops) names.push_back(op.schema.name.str());
  for (const std::string& name : select) {
    if (contains(names, name)) continue;
    std::string near = nearest(name, names);
    throw GenError({file.path, 0, 0}, "--ops names '" + name + "', which " + file.path + " lacks",
                   near.empty() ? "no op has a similar name; `lazygen --dump-schema " + file.path +
                                      "` lists every schema"
                                : "did you mean '" + near + "'?");
  }
  std::vector<OpEntry> out;
  for (const OpEntry& op : file.ops) {
    if (contains(select, op.schema.name.str())) out.push_back(op);
  }
  return out;
}

}  // namespace lazygen::gen
