// The derived, read-only views of the schema model: names of enums, operator-name properties and
// the classification of a schema (functional / in-place / out / mutable) that every later stage of
// the generator branches on. Parsing and printing live in schema_parser.cpp / schema_printer.cpp.
#include <array>

#include "model/schema.h"

namespace lazygen::gen {
namespace {

// PyTorch's augmented-assignment dunders: `__iand__` is the in-place form of `__and__`. Only these
// `__i*__` names are in-place; a dunder such as `__index__` would not be.
constexpr std::array<std::string_view, 11> kAugmentedAssignmentNames = {
    "add", "sub", "mul", "div", "mod", "pow", "lshift", "rshift", "and", "xor", "or"};

bool is_dunder(std::string_view name) {
  return name.size() > 4 && name.starts_with("__") && name.ends_with("__");
}

bool is_inplace_dunder(std::string_view name) {
  std::string_view inner = name.substr(2, name.size() - 4);
  if (!inner.starts_with('i')) return false;
  inner.remove_prefix(1);
  for (std::string_view op : kAugmentedAssignmentNames) {
    if (inner == op) return true;
  }
  return false;
}

}  // namespace

std::string_view base_type_name(BaseType t) {
  switch (t) {
    case BaseType::Tensor:
      return "Tensor";
    case BaseType::Int:
      return "int";
    case BaseType::SymInt:
      return "SymInt";
    case BaseType::Float:
      return "float";
    case BaseType::Bool:
      return "bool";
    case BaseType::Str:
      return "str";
    case BaseType::Scalar:
      return "Scalar";
    case BaseType::ScalarType:
      return "ScalarType";
    case BaseType::Layout:
      return "Layout";
    case BaseType::Device:
      return "Device";
    case BaseType::MemoryFormat:
      return "MemoryFormat";
    case BaseType::Generator:
      return "Generator";
    case BaseType::Dimname:
      return "Dimname";
    case BaseType::Storage:
      return "Storage";
    case BaseType::Stream:
      return "Stream";
    case BaseType::QScheme:
      return "QScheme";
    case BaseType::ConstQuantizerPtr:
      return "ConstQuantizerPtr";
  }
  return "?";
}

std::string_view schema_kind_name(SchemaKind k) {
  switch (k) {
    case SchemaKind::Functional:
      return "functional";
    case SchemaKind::Inplace:
      return "inplace";
    case SchemaKind::Out:
      return "out";
    case SchemaKind::Mutable:
      return "mutable";
  }
  return "?";
}

bool OperatorName::is_inplace() const {
  if (is_dunder(base)) return is_inplace_dunder(base);
  return !base.empty() && base.back() == '_';
}

std::string OperatorName::str() const {
  return overload.empty() ? base : base + "." + overload;
}

SchemaKind FunctionSchema::kind() const {
  // Same precedence as torchgen: the name decides in-place first, then out arguments, then any
  // other written argument.
  if (name.is_inplace()) return SchemaKind::Inplace;
  if (!out_arguments().empty()) return SchemaKind::Out;
  for (const Argument& arg : arguments) {
    if (arg.is_write()) return SchemaKind::Mutable;
  }
  return SchemaKind::Functional;
}

std::vector<const Argument*> FunctionSchema::tensor_arguments() const {
  std::vector<const Argument*> out;
  for (const Argument& arg : arguments) {
    if (arg.type.is_tensor_like()) out.push_back(&arg);
  }
  return out;
}

std::vector<const Argument*> FunctionSchema::out_arguments() const {
  std::vector<const Argument*> out;
  for (const Argument& arg : arguments) {
    if (arg.kwarg_only && arg.is_write()) out.push_back(&arg);
  }
  return out;
}

const Argument* FunctionSchema::find_argument(std::string_view name) const {
  for (const Argument& arg : arguments) {
    if (arg.name == name) return &arg;
  }
  return nullptr;
}

const Argument* FunctionSchema::viewed_argument() const {
  if (returns.size() != 1 || !returns[0].annotation || returns[0].annotation->is_write) return nullptr;
  const Annotation& r = *returns[0].annotation;
  for (const Argument& arg : arguments) {
    if (arg.type.is_tensor_like() && !arg.type.is_list && arg.annotation && !arg.annotation->is_write &&
        arg.annotation->alias_sets == r.alias_sets)
      return &arg;
  }
  return nullptr;
}

std::vector<std::pair<std::string, int>> FunctionSchema::result_names() const {
  std::vector<std::pair<std::string, int>> names;
  if (!returns.empty()) names.push_back({"result", 0});
  for (size_t i = 0; i < returns.size() && returns.size() > 1; ++i) {
    names.push_back({"result" + std::to_string(i), static_cast<int>(i)});
  }
  for (size_t i = 0; i < returns.size(); ++i) {
    if (!returns[i].name.empty()) names.push_back({returns[i].name, static_cast<int>(i)});
  }
  return names;
}

}  // namespace lazygen::gen
