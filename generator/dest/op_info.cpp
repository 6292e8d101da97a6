// Emits src/op_info_<shard>.cpp: an OpInfo record per op (schema facts, ops.yaml's shape/dtype
// rules and test inputs) with a boxed caller that unboxes its arguments and calls the op API, the
// ops spread over shards (See Note [Op shards] in pointwise.cpp); and src/op_info.cpp, the table in
// ops.yaml's order. The record types live in the runtime (runtime/include/lazygen/op_info.h); only
// the table is generated.
#include <cctype>
#include <map>

#include "api/cpp_types.h"
#include "api/names.h"
#include "api/signature.h"
#include "dest/common.h"
#include "dest/emit.h"
#include "model/kernel_dtypes.h"

namespace lazygen::gen::dest {
namespace {

std::string quoted(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// "broadcast" -> "Broadcast": model names spelled as the runtime's enumerators.
std::string enumerator(std::string_view name) {
  std::string out(name);
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

std::string arg_kind(const Type& t) {
  switch (t.base) {
    case BaseType::Tensor:
      return t.is_list ? "TensorList" : "Tensor";
    case BaseType::Int:
    case BaseType::SymInt:
      return t.is_list ? "IntList" : "Int";
    case BaseType::Scalar:
      return t.is_list ? "Other" : "Scalar";
    case BaseType::Float:
      return t.is_list ? "Other" : "Float";
    case BaseType::Bool:
      return t.is_list ? "Other" : "Bool";
    case BaseType::ScalarType:
      return t.is_list ? "Other" : "ScalarType";
    default:
      return "Other";
  }
}

std::string domain_literal(const ValueDomain& d) {
  static const char* const kKinds[] = {"Any", "Positive", "Nonzero", "Bool", "Index"};
  return "Domain{Domain::" + std::string(kKinds[static_cast<int>(d.kind)]) + ", " +
         std::to_string(d.bound) + "}";
}

std::string ints_literal(const std::vector<int64_t>& v) {
  std::vector<std::string> parts;
  for (int64_t x : v) parts.push_back(std::to_string(x));
  return "{" + join(parts, ", ") + "}";
}

std::string tensor_sample(const SampleValue& v) {
  return "TensorSample{" + ints_literal(v.sizes) +
         (v.domain ? ", " + domain_literal(*v.domain) : "") + "}";
}

std::string sample_value(const SampleValue& v) {
  switch (v.kind) {
    case SampleValue::Kind::Tensor:
      return tensor_sample(v);
    case SampleValue::Kind::TensorList: {
      std::vector<std::string> parts;
      for (const SampleValue& t : v.tensors) parts.push_back(tensor_sample(t));
      return "std::vector<TensorSample>{" + join(parts, ", ") + "}";
    }
    case SampleValue::Kind::None:
      return "Arg()";
    case SampleValue::Kind::Int:
      return "Arg(int64_t{" + v.text + "})";
    case SampleValue::Kind::IntList:
      return "Arg(std::vector<int64_t>" + ints_literal(v.sizes) + ")";
    case SampleValue::Kind::Float:
      return "Arg(" + v.text + ")";
    case SampleValue::Kind::Bool:
      return "Arg(" + v.text + ")";
    case SampleValue::Kind::Str:
      return "Arg(std::string(\"" + v.text + "\"))";
    case SampleValue::Kind::ScalarType:
      break;
  }
  static const std::map<std::string, std::string> kDTypes = {{"bool", "Bool"},
                                                             {"int32", "Int32"},
                                                             {"int64", "Int64"},
                                                             {"float32", "Float32"},
                                                             {"float64", "Float64"}};
  return "Arg(DType::" + kDTypes.at(v.text) + ")";
}

std::string sample_line(const OpSample& s) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : s.values)
    parts.push_back("{\"" + name + "\", " + sample_value(value) + "}");
  return "Sample{{" + join(parts, ", ") + "}},";
}

std::string arg_line(const OpEntry& op, const Argument& a) {
  std::string line = "{.name = \"" + a.name + "\", .kind = ArgKind::" + arg_kind(a.type);
  if (a.type.is_optional()) line += ", .optional = true";
  if (a.is_write()) line += ", .written = true";
  if (a.kwarg_only) line += ", .kwarg_only = true";
  std::string def = api::cpp_default(a, op.func_loc);
  if (!def.empty())
    line += ", .default_value = detail::box<" +
            api::cpp_type(a, api::TypeUse::Member, op.func_loc) + ">(" + def + ")";
  for (const auto& [name, domain] : op.domains) {
    if (name == a.name) line += ", .domain = " + domain_literal(domain);
  }
  return line + "},";
}

// "Tensor (*)(const Tensor&, const Scalar&)": the API function's exact type.
std::string function_type(const api::CppSignature& sig) {
  std::vector<std::string> types;
  for (const api::CppParam& p : sig.params) types.push_back(p.type);
  return sig.return_type + " (*)(" + join(types, ", ") + ")";
}

std::string caller(const EmitContext& ctx, const OpEntry& op) {
  api::CppSignature sig = api::op_signature(op, api::api_name(op.schema), api::TypeUse::Api);
  std::vector<std::string> args;
  for (const api::CppParam& p : sig.params) {
    size_t index = static_cast<size_t>(p.arg - op.schema.arguments.data());
    args.push_back("detail::unbox<" + api::cpp_type(*p.arg, api::TypeUse::Member, op.func_loc) +
                   ">(args, " + std::to_string(index) + ")");
  }
  return ctx.templates.render("op_info_caller.cpp.tmpl", {
                                                             {"schema", op.func},
                                                             {"op_id", api::op_id(op.schema.name)},
                                                             {"fn_type", function_type(sig)},
                                                             {"api_name", api::api_name(op.schema)},
                                                             {"unboxed_args", join(args, ", ")},
                                                         });
}

std::string entry(const EmitContext& ctx, const OpEntry& op) {
  std::vector<std::string> args, samples;
  for (const Argument& a : op.schema.arguments) args.push_back(arg_line(op, a));
  for (const OpSample& s : op.samples) samples.push_back(sample_line(s));
  const OpEntry* functional = api::find_functional(op, ctx.ops);
  return ctx.templates.render("op_info_entry.cpp.tmpl",
                              {
                                  {"schema", op.func},
                                  {"schema_name", op.schema.name.str()},
                                  {"op_id", api::op_id(op.schema.name)},
                                  {"schema_literal", quoted(op.func)},
                                  {"functional", functional ? functional->schema.name.str() : ""},
                                  {"shape", enumerator(shape_rule_name(op.shape))},
                                  {"dtype", enumerator(dtype_rule_name(op.dtype))},
                                  {"kind", enumerator(schema_kind_name(op.schema.kind()))},
                                  {"pointwise", op.pointwise ? "true" : "false"},
                                  {"dtypes", hex_literal(dtype_mask(accepted_dtypes(op)))},
                                  {"args", args},
                                  {"num_outputs", std::to_string(op.schema.returns.size())},
                                  {"samples", samples},
                              });
}

}  // namespace

std::vector<GeneratedFile> emit_op_info(const EmitContext& ctx) {
  std::vector<GeneratedFile> files;
  std::vector<std::string> declarations, calls, ids;
  const std::vector<std::vector<const OpEntry*>> shards = op_shards(ctx.ops);
  for (size_t k = 0; k < shards.size(); ++k) {
    std::vector<std::string> headers, callers, entries;
    for (const OpEntry* op : shards[k]) {
      headers.push_back(op_api_header(api::api_name(op->schema)));
      callers.push_back(caller(ctx, *op));
      entries.push_back(entry(ctx, *op));
    }
    const std::string shard = std::to_string(k);
    files.push_back(
        {"src/op_info_" + shard + ".cpp",
         ctx.templates.render("op_info_shard.cpp.tmpl", {{"source", ctx.source},
                                                         {"shard", shard},
                                                         {"includes", include_lines(headers)},
                                                         {"callers", callers},
                                                         {"entries", entries}})});
    declarations.push_back("void add_op_infos_" + shard + "(std::vector<OpInfo>& table);");
    calls.push_back("add_op_infos_" + shard + "(records);");
  }
  for (const OpEntry& op : ctx.ops) ids.push_back("\"" + api::op_id(op.schema.name) + "\",");
  files.push_back({"src/op_info.cpp",
                   ctx.templates.render("op_info.cpp.tmpl", {{"source", ctx.source},
                                                             {"shard_declarations", declarations},
                                                             {"shard_calls", calls},
                                                             {"ids", ids}})});
  return files;
}

}  // namespace lazygen::gen::dest
