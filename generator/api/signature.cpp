// See signature.h.
#include "api/signature.h"

#include "api/names.h"

#include <algorithm>
#include <set>

namespace lazygen::gen::api {
namespace {

std::string params_text(const std::vector<CppParam>& params, bool with_defaults) {
  std::string out;
  for (size_t i = 0; i < params.size(); ++i) {
    const CppParam& p = params[i];
    out += (i ? ", " : "") + p.type + " " + p.name;
    if (with_defaults && !p.default_value.empty()) out += " = " + p.default_value;
  }
  return out;
}

// C++ allows defaults only on a suffix of the parameter list.
void drop_non_trailing_defaults(std::vector<CppParam>& params) {
  bool all_later_defaulted = true;
  for (auto it = params.rbegin(); it != params.rend(); ++it) {
    if (it->default_value.empty()) all_later_defaulted = false;
    if (!all_later_defaulted) it->default_value.clear();
  }
}

}  // namespace

std::string cpp_name(const std::string& schema_name) {
  static const std::set<std::string> kReserved = {"default", "int", "float", "bool", "double", "char",
                                                  "long", "short", "new", "delete", "this", "operator",
                                                  "class", "struct", "union", "template", "namespace",
                                                  "Tensor", "Scalar", "Shape", "DType", "Device"};
  return kReserved.count(schema_name) ? schema_name + "_" : schema_name;
}

std::string CppSignature::declaration() const {
  return return_type + " " + name + "(" + params_text(params, true) + ")" + suffix + ";";
}

std::string CppSignature::definition(const std::string& qualifier) const {
  return return_type + " " + qualifier + name + "(" + params_text(params, false) + ")" + suffix;
}

std::string CppSignature::call_args() const {
  std::string out;
  for (size_t i = 0; i < params.size(); ++i) out += (i ? ", " : "") + params[i].name;
  return out;
}

CppSignature CppSignature::without_defaults() const {
  CppSignature out = *this;
  for (CppParam& p : out.params) p.default_value.clear();
  return out;
}

CppSignature op_signature(const OpEntry& op, const std::string& name, TypeUse use) {
  CppSignature sig;
  sig.name = name;
  sig.return_type = use == TypeUse::ShapeFn ? "std::vector<Shape>" : cpp_return_type(op.schema, op.func_loc);
  if (use == TypeUse::Api && sig.return_type == "Tensor&") sig.return_type = "const Tensor&";
  for (const Argument& a : op.schema.arguments) {
    std::string type = cpp_type(a, use, op.func_loc);
    if (type == "Tensor&") type = "const Tensor&";  // handles: mutation goes through the shared impl
    std::string def = use == TypeUse::Api ? cpp_default(a, op.func_loc) : "";
    sig.params.push_back({type, cpp_name(a.name), def, &a});
  }
  if (use == TypeUse::Api && op.schema.kind() == SchemaKind::Out) {
    // PyTorch's C++ convention: add_out(out, self, other, alpha=1), out arguments first.
    std::stable_partition(sig.params.begin(), sig.params.end(),
                          [](const CppParam& p) { return p.arg->kwarg_only && p.arg->is_write(); });
  }
  drop_non_trailing_defaults(sig.params);
  return sig;
}

CppSignature method_signature(const OpEntry& op) {
  CppSignature sig = op_signature(op, api_name(op.schema), TypeUse::Api);
  std::erase_if(sig.params, [](const CppParam& p) { return p.name == "self"; });
  sig.suffix = " const";
  return sig;
}

CppSignature view_inverse_signature(const OpEntry& op) {
  CppSignature sig = op_signature(op, op_id(op.schema.name), TypeUse::Api).without_defaults();
  const Argument* viewed = op.schema.viewed_argument();
  std::erase_if(sig.params, [&](const CppParam& p) { return p.arg == viewed; });
  sig.params.insert(sig.params.begin(), {{"const Tensor&", "base", "", nullptr},
                                         {"const Tensor&", "mutated_view", "", nullptr}});
  sig.return_type = "Tensor";
  return sig;
}

}  // namespace lazygen::gen::api
