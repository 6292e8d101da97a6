// See names.h.
//
// Note [Op identity]: the op id is the schema name made a C identifier: lowercase overload joined
// with '_', and an in-place trailing '_' spelled "_inplace" so that add.Tensor and add_.Tensor,
// both listed, get different ids and classes (PyTorch's generator emits two classes with one name
// there). Every other name (class, functor, shape function, metrics) derives from the op id.
#include "api/names.h"

#include <cctype>
#include <map>

namespace lazygen::gen::api {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// add_inplace_tensor -> AddInplaceTensor. A trailing '_' is kept: range.out_ (RangeOut_) and
// range.out (RangeOut) are both in native_functions.yaml.
std::string pascal(const std::string& id) {
  std::string out;
  bool upper = true;
  for (size_t i = 0; i < id.size(); ++i) {
    char c = id[i];
    if (c == '_' && i + 1 < id.size()) {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

bool is_dunder(const std::string& base) {
  return base.size() > 4 && base.starts_with("__") && base.ends_with("__");
}

}  // namespace

std::string op_id(const OperatorName& name) {
  std::string base = name.base;
  // Dunder names keep their letters only: __and__ -> and, __iand__ (in-place) -> iand.
  if (is_dunder(base)) base = base.substr(2, base.size() - 4);
  else if (name.is_inplace()) base = base.substr(0, base.size() - 1) + "_inplace";
  if (name.overload.empty()) return base;
  return base + "_" + lower(name.overload);
}

std::string class_name(const OperatorName& name) {
  std::string id = op_id(name);
  std::string cls = pascal(id);
  // A leading underscore (_softmax) is kept visible: Softmax and _softmax must not collide.
  return id.front() == '_' ? "Underscore" + cls : cls;
}

std::string api_name(const FunctionSchema& schema) {
  if (schema.kind() == SchemaKind::Out) return schema.name.base + "_out";
  return schema.name.base;
}

std::string shape_fn_name(const OperatorName& name) { return "compute_shape_" + op_id(name); }

std::string functor_name(const OperatorName& name) { return class_name(name); }

namespace {

bool same_inputs(const FunctionSchema& functional, const FunctionSchema& out_op) {
  std::vector<Argument> inputs;
  for (const Argument& a : out_op.arguments) {
    if (!(a.kwarg_only && a.is_write())) inputs.push_back(a);
  }
  if (inputs.size() != functional.arguments.size()) return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].name != functional.arguments[i].name ||
        inputs[i].type != functional.arguments[i].type) {
      return false;
    }
  }
  return true;
}

}  // namespace

const OpEntry* find_functional(const OpEntry& op, const std::vector<OpEntry>& ops) {
  SchemaKind kind = op.schema.kind();
  std::string base = op.schema.name.base;
  if (kind == SchemaKind::Inplace && is_dunder(base)) base.erase(2, 1);  // __iand__ -> __and__
  else if (kind == SchemaKind::Inplace) base.pop_back();
  for (const OpEntry& candidate : ops) {
    const FunctionSchema& s = candidate.schema;
    if (s.kind() != SchemaKind::Functional || s.name.base != base) continue;
    if (kind == SchemaKind::Inplace && s.name.overload == op.schema.name.overload) return &candidate;
    if (kind == SchemaKind::Out && same_inputs(s, op.schema)) return &candidate;
  }
  return nullptr;
}

void check_unique_ids(const std::vector<OpEntry>& ops) {
  // Op ids and class names are checked separately: PascalCase drops underscores, so distinct
  // ids (foo_bar, foo__bar) could still meet in one class name.
  std::map<std::string, const OpEntry*> seen;
  for (const OpEntry& op : ops) {
    for (const std::string& name : {op_id(op.schema.name), class_name(op.schema.name)}) {
      auto [it, inserted] = seen.emplace(name, &op);
      if (inserted || it->second == &op) continue;
      throw GenError(op.func_loc,
                     "'" + op.schema.name.str() + "' and '" + it->second->schema.name.str() + "' (at " +
                         it->second->func_loc.str() + ") both derive the C++ name '" + it->first + "'",
                     "rename one overload");
    }
  }
}

}  // namespace lazygen::gen::api
