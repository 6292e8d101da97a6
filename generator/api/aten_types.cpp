// See aten_types.h.
#include "api/aten_types.h"


namespace lazygen::gen::api {
namespace {

[[noreturn]] void no_mapping(const Type& t, const SourceLoc& loc) {
  throw GenError(loc, "type '" + print_type(t) + "' has no PyTorch kernel mapping in lazygen",
                 "give the op `torch: none` in ops.yaml, or serve it with a `torch: adapter`");
}

std::string element(BaseType base, const Type& t, const SourceLoc& loc) {
  switch (base) {
    case BaseType::Tensor: return "at::Tensor";
    case BaseType::Int:
    case BaseType::SymInt: return "int64_t";
    case BaseType::Float: return "double";
    case BaseType::Bool: return "bool";
    case BaseType::Str: return "c10::string_view";
    case BaseType::Scalar: return "at::Scalar";
    case BaseType::ScalarType: return "at::ScalarType";
    case BaseType::Layout: return "at::Layout";
    case BaseType::Device: return "at::Device";
    case BaseType::MemoryFormat: return "at::MemoryFormat";
    case BaseType::Generator: return "at::Generator";
    default: break;
  }
  no_mapping(t, loc);
}

std::string list_param(const Argument& a, bool structured, const SourceLoc& loc) {
  const Type& t = a.type;
  if (t.base == BaseType::Int || t.base == BaseType::SymInt) {
    return t.list_optional ? "at::OptionalIntArrayRef" : "c10::IntArrayRef";
  }
  if (t.base == BaseType::Float && t.list_optional) return "c10::optional<c10::ArrayRef<double>>";
  if (t.list_optional) no_mapping(t, loc);
  if (t.base == BaseType::Tensor && t.elem_optional) return "const c10::List<c10::optional<at::Tensor>>&";
  if (t.base == BaseType::Tensor) return structured ? "const at::ITensorListRef&" : "at::TensorList";
  if (t.base == BaseType::Bool && t.list_size) {
    return "::std::array<bool," + std::to_string(*t.list_size) + ">";
  }
  if (t.base == BaseType::Float) return "c10::ArrayRef<double>";
  no_mapping(t, loc);
}

std::string param_type(const Argument& a, const OpEntry& op) {
  const bool structured = op.torch_structured;
  const SourceLoc& loc = op.func_loc;
  const Type& t = a.type;
  if (t.is_list) return list_param(a, structured, loc);
  const std::string elem = element(t.base, t, loc);
  const bool by_ref = t.base == BaseType::Tensor || t.base == BaseType::Scalar;
  if (t.elem_optional) {
    const std::string opt = "c10::optional<" + elem + ">";
    return by_ref ? "const " + opt + "&" : opt;
  }
  if (t.base == BaseType::Tensor) {
    return a.is_write() && !op.torch_const_mutable_refs ? "at::Tensor&" : "const at::Tensor&";
  }
  return by_ref ? "const " + elem + "&" : elem;
}

// A written return is a reference, const for an op with PyTorch's
// use_const_ref_for_mutable_tensors.
std::string return_type(const Return& r, const OpEntry& op) {
  const SourceLoc& loc = op.func_loc;
  if (r.type.is_list) {
    if (r.type.base != BaseType::Tensor) no_mapping(r.type, loc);
    return "::std::vector<at::Tensor>";
  }
  const std::string elem = element(r.type.base, r.type, loc);
  if (r.type.elem_optional) return "c10::optional<" + elem + ">";
  if (!r.annotation || !r.annotation->is_write) return elem;
  return op.torch_const_mutable_refs ? "const " + elem + "&" : elem + "&";
}

}  // namespace

CppSignature aten_signature(const OpEntry& op, const std::string& name) {
  const FunctionSchema& schema = op.schema;
  CppSignature sig;
  sig.name = name;
  for (const Argument& a : schema.arguments) {
    sig.params.push_back({param_type(a, op), cpp_name(a.name), "", &a});
  }
  if (schema.returns.empty()) {
    sig.return_type = "void";
  } else if (schema.returns.size() == 1) {
    sig.return_type = return_type(schema.returns[0], op);
  } else {
    // Written returns stay references inside the tuple (max.dim_max: tuple<Tensor&, Tensor&>).
    sig.return_type = "::std::tuple<";
    for (const Return& r : schema.returns) {
      sig.return_type += (&r == &schema.returns.front() ? "" : ", ") + return_type(r, op);
    }
    sig.return_type += ">";
  }
  return sig;
}

}  // namespace lazygen::gen::api
