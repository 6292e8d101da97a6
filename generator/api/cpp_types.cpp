// See cpp_types.h.
#include "api/cpp_types.h"

namespace lazygen::gen::api {
namespace {

// The value type of one element of `base` as stored (Member) or passed (Api).
std::string element_type(BaseType base, TypeUse use, const SourceLoc& loc) {
  switch (base) {
    case BaseType::Tensor: return use == TypeUse::ShapeFn ? "Shape" : "Tensor";
    case BaseType::Int:
    case BaseType::SymInt: return "int64_t";
    case BaseType::Float: return "double";
    case BaseType::Bool: return "bool";
    case BaseType::Str: return use == TypeUse::Member ? "std::string" : "std::string_view";
    case BaseType::Scalar: return "Scalar";
    case BaseType::ScalarType: return "DType";
    case BaseType::Layout: return "Layout";
    case BaseType::Device: return "Device";
    case BaseType::MemoryFormat: return "MemoryFormat";
    case BaseType::Generator: return "Generator";
    case BaseType::Dimname: return "std::string";
    case BaseType::Storage: return "std::shared_ptr<Storage>";  // shared, like a tensor's; not copyable
    case BaseType::Stream: return "Stream";
    case BaseType::QScheme:
    case BaseType::ConstQuantizerPtr: break;
  }
  throw GenError(loc, "type '" + std::string(base_type_name(base)) + "' has no C++ mapping in lazygen",
                 "quantized ops are not supported; leave this op out of the selection");
}

bool passed_by_value(const std::string& t) {
  const std::string opt = "std::optional<";
  if (t.starts_with(opt)) return passed_by_value(t.substr(opt.size(), t.size() - opt.size() - 1));
  return t == "int64_t" || t == "double" || t == "bool" || t == "DType" || t == "Layout" ||
         t == "Device" || t == "MemoryFormat" || t == "std::string_view" || t == "Stream";
}

std::string by_const_ref(const std::string& t, TypeUse use) {
  if (use == TypeUse::Member || passed_by_value(t)) return t;
  return "const " + t + "&";
}

}  // namespace

bool is_scalar(const Argument& arg) {
  return arg.type.base == BaseType::Scalar && !arg.type.is_list && !arg.type.elem_optional;
}

bool is_operand(const Argument& arg) {
  return arg.type.base == BaseType::Tensor || is_scalar(arg);
}

std::string cpp_type(const Argument& arg, TypeUse use, const SourceLoc& loc) {
  const Type& t = arg.type;
  std::string elem = element_type(t.base, use, loc);
  if (t.is_list) {
    if (t.elem_optional) elem = "std::optional<" + elem + ">";
    std::string list = (elem == "bool" ? "std::vector<bool>" : "std::vector<" + elem + ">");
    if (t.list_optional) list = "std::optional<" + list + ">";
    return by_const_ref(list, use);
  }
  if (t.base == BaseType::Tensor && arg.is_write() && use == TypeUse::Api) return "Tensor&";
  if (t.elem_optional) return by_const_ref("std::optional<" + elem + ">", use);
  return by_const_ref(elem, use);
}

std::string cpp_return_type(const FunctionSchema& schema, const SourceLoc& loc) {
  const auto& returns = schema.returns;
  if (returns.empty()) return "void";
  auto one = [&](const Return& r) {
    Argument as_arg{r.name, r.type, r.annotation, std::nullopt, false};
    std::string t = cpp_type(as_arg, TypeUse::Member, loc);
    return (r.annotation && r.annotation->is_write && !r.type.is_list) ? t + "&" : t;
  };
  if (returns.size() == 1) return one(returns[0]);
  std::string out = "std::tuple<";
  for (size_t i = 0; i < returns.size(); ++i) {
    Return plain = returns[i];
    plain.annotation.reset();  // tuples hold handles, never references
    out += (i ? ", " : "") + one(plain);
  }
  return out + ">";
}

}  // namespace lazygen::gen::api
