// Emits the op list (op_list.inc) and the op API: ops.h, tensor_methods.inc and src/ops_<shard>.cpp
// (See Note [Op shards] in pointwise.cpp).
#include <map>

#include "api/names.h"
#include "api/signature.h"
#include "dest/common.h"
#include "dest/emit.h"
#include "model/expr_scan.h"
#include "model/kernel_dtypes.h"
#include "model/pointwise_functions.h"

namespace lazygen::gen::dest {
namespace {

std::string dispatcher(const EmitContext& ctx, const OpEntry& op) {
  api::CppSignature sig = api::op_signature(op, "dispatch_" + api::op_id(op.schema.name), api::TypeUse::Api);
  return ctx.templates.render("op_dispatch.cpp.tmpl", {
      {"schema", op.func},
      {"signature", sig.definition()},
      {"schema_name", op.schema.name.str()},
      {"device_args", device_args(op)},
      {"op_id", api::op_id(op.schema.name)},
      {"call_args", sig.call_args()},
  });
}

// "{detail::input_of(self), ...}, {&alpha}": the tensors and Scalars whose PyTorch result_type
// is the dtype an op computes in: every tensor input but out= tensors and bool/index-domain ones,
// and the promoting Scalars.
std::string promotion_inputs(const OpEntry& op) {
  std::vector<std::string> inputs, scalars;
  for (const Argument* a : promoting_scalars(op)) scalars.push_back("&" + api::cpp_name(a->name));
  for (const Argument& a : op.schema.arguments) {
    if (a.type.base != BaseType::Tensor || a.type.is_list || (a.kwarg_only && a.is_write())) continue;
    bool fixed = false;
    for (const auto& [name, domain] : op.domains) {
      fixed |= name == a.name && (domain.kind == ValueDomain::Kind::Bool || domain.kind == ValueDomain::Kind::Index);
    }
    if (!fixed) inputs.push_back("detail::input_of(" + api::cpp_name(a.name) + ")");
  }
  return "{" + join(inputs, ", ") + "}, {" + join(scalars, ", ") + "}";
}

// "detail::check_dtypes(\"neg\", {DType::Int32, ...}, {detail::input_of(self)}, {});" for an op
// that does not accept every dtype (See Note [Kernel dtypes] in generator/model/kernel_dtypes.h).
std::string dtypes_guard(const OpEntry& op) {
  static const std::map<std::string, std::string> kEnumerators = {
      {"bool", "Bool"}, {"int32", "Int32"}, {"int64", "Int64"}, {"float32", "Float32"}, {"float64", "Float64"}};
  std::vector<std::string> allowed;
  for (const std::string& d : accepted_dtypes(op)) allowed.push_back("DType::" + kEnumerators.at(d));
  return "detail::check_dtypes(\"" + op.schema.name.str() + "\", {" + join(allowed, ", ") + "}, " +
         promotion_inputs(op) + ");";
}

// "detail::check_integral_divisor(\"remainder.Tensor\", other, {...}, {...});" for each call in
// the op's `pointwise:` expression of a table function with an integral-operand rule (Note
// [Pointwise functions]) whose second operand is one of the op's arguments.
std::vector<std::string> integral_operand_checks(const OpEntry& op) {
  if (!op.pointwise) return {};
  using Rule = PointwiseFunction::IntegralOperand;
  std::vector<std::string> out;
  for (const ExprIdent& id : scan_identifiers(*op.pointwise)) {
    const PointwiseFunction* f = id.is_call ? find_pointwise_function(id.name) : nullptr;
    if (!f || f->integral_operand == Rule::Any || id.arguments.size() < 2) continue;
    const Argument* operand = op.schema.find_argument(id.arguments[1]);
    if (!operand || operand->type.is_list) continue;
    if (f->integral_operand == Rule::NonnegativeScalar && !api::is_scalar(*operand)) continue;
    const char* check = f->integral_operand == Rule::Nonzero ? "check_integral_divisor" : "check_integral_exponent";
    out.push_back(std::string("detail::") + check + "(\"" + op.schema.name.str() + "\", " +
                  api::cpp_name(operand->name) + ", " + promotion_inputs(op) + ");");
  }
  return out;
}

// "autograd::check_differentiable(\"cat\", result, {&self});" for a functional op whose tensor
// inputs ops.yaml gives neither a formula nor `non_differentiable` (See Note [No silent gradient
// loss] in runtime/autograd/function.h); "" when there are none.
std::string differentiability_check(const OpEntry& op) {
  if (op.schema.kind() != SchemaKind::Functional) return "";  // in-place/out=: check_inplace
  std::vector<std::string> uncovered;
  std::string list;
  for (const Argument& a : op.schema.arguments) {
    if (a.type.base != BaseType::Tensor) continue;
    bool covered = false;
    for (const Derivative& d : op.derivatives) covered |= d.argument == a.name;
    for (const auto& [name, domain] : op.domains) {
      covered |= name == a.name && (domain.kind == ValueDomain::Kind::Bool || domain.kind == ValueDomain::Kind::Index);
    }
    if (covered) continue;
    if (a.type.is_list) list = api::cpp_name(a.name);
    else uncovered.push_back(a.type.is_optional() ? "detail::input_of(" + api::cpp_name(a.name) + ")"
                                                  : "&" + api::cpp_name(a.name));
  }
  const std::string op_name = "\"" + op.schema.name.str() + "\"";
  if (!list.empty()) return "autograd::check_differentiable(" + op_name + ", result, " + list + ");";
  if (uncovered.empty()) return "";
  return "autograd::check_differentiable(" + op_name + ", result, {" + join(uncovered, ", ") + "});";
}

// "detail::check_fits(\"add.Tensor\", alpha, result.dtype());" for each scaling Scalar (See Note
// [Scaling scalars]): checked against the written tensor's dtype before an in-place or out= op
// (nothing is written when it fails), against the result's after a functional one.
std::vector<std::string> fits_checks(const OpEntry& op, bool before) {
  const Argument* written = written_argument(op);
  if ((written != nullptr) != before) return {};
  if (!written && (op.schema.returns.size() != 1 || op.schema.returns[0].type.is_list)) return {};
  std::vector<std::string> out;
  for (const Argument& a : op.schema.arguments) {
    if (!api::is_scalar(a) || promotes(a)) continue;
    const std::string dtype = written ? api::cpp_name(written->name) + ".dtype()" : "result.dtype()";
    out.push_back("detail::check_fits(\"" + op.schema.name.str() + "\", " + api::cpp_name(a.name) + ", " + dtype + ");");
  }
  return out;
}

// The functional op whose result out= op `op` writes (add.Tensor for add.out): the same name and
// the same arguments but the out tensor; null when ops.yaml has none.
const OpEntry* functional_sibling(const EmitContext& ctx, const OpEntry& op) {
  std::vector<const Argument*> inputs;
  for (const Argument& a : op.schema.arguments) {
    if (!(a.kwarg_only && a.is_write())) inputs.push_back(&a);
  }
  for (const OpEntry& f : ctx.ops) {
    if (f.schema.kind() != SchemaKind::Functional || f.schema.name.base != op.schema.name.base ||
        f.schema.arguments.size() != inputs.size()) {
      continue;
    }
    bool same = true;
    for (size_t i = 0; i < inputs.size(); ++i) {
      same = same && f.schema.arguments[i].name == inputs[i]->name && f.schema.arguments[i].type == inputs[i]->type;
    }
    if (same) return &f;
  }
  return nullptr;
}

// "detail::resize_empty_out(out, compute_shape_add_tensor(...)[0].sizes);" for an out= op with
// one out tensor and a functional sibling: PyTorch's idiom of an empty out tensor (Note [Out
// tensors] in ops/out_tensors.h). "" otherwise.
std::string out_resize(const EmitContext& ctx, const OpEntry& op) {
  const Argument* out = written_argument(op);
  if (op.schema.kind() != SchemaKind::Out || out == nullptr || op.schema.returns.size() != 1) return "";
  const OpEntry* functional = functional_sibling(ctx, op);
  if (functional == nullptr) return "";
  return "detail::resize_empty_out(" + api::cpp_name(out->name) + ", " + shape_call(*functional) + "[0].sizes);";
}

// The API function: dispatch, then record autograd history (ops with derivatives) and refuse
// gradients that would be lost (Note [No silent gradient loss]).
std::string function_definition(const EmitContext& ctx, const OpEntry& op) {
  api::CppSignature sig = api::op_signature(op, api::api_name(op.schema), api::TypeUse::Api);
  const std::string check = differentiability_check(op);
  const std::vector<std::string> fits_after = fits_checks(op, false);
  bool records = !differentiable(op).empty() || !check.empty() || !fits_after.empty();
  std::vector<std::string> record = fits_after, result_return;
  if (!check.empty()) record.push_back(check);
  if (!differentiable(op).empty()) record.push_back(record_statement(op));
  if (records) result_return.push_back("return result;");
  // In-place and out= ops record no history: writing into a tensor autograd needs is an error.
  std::vector<std::string> guards = fits_checks(op, true);
  if (!accepts_every_dtype(op)) guards.push_back(dtypes_guard(op));
  for (std::string& c : integral_operand_checks(op)) guards.push_back(std::move(c));
  if (const Argument* w = written_argument(op)) {
    guards.push_back("autograd::check_inplace(" + api::cpp_name(w->name) + ", \"" + op.schema.name.str() + "\");");
  }
  if (std::string resize = out_resize(ctx, op); !resize.empty()) guards.push_back(std::move(resize));
  return ctx.templates.render("op_function.cpp.tmpl", {
      {"schema", op.func},
      {"signature", sig.definition()},
      {"guards", guards},
      {"result_decl", records ? "decltype(auto) result = " : "return "},
      {"op_id", api::op_id(op.schema.name)},
      {"call_args", sig.call_args()},
      {"record", record},
      {"result_return", result_return},
  });
}

std::string method_definition(const EmitContext& ctx, const OpEntry& op) {
  api::CppSignature sig = api::method_signature(op);
  std::vector<std::string> args;
  for (const api::CppParam& p : api::op_signature(op, "", api::TypeUse::Api).params) {
    args.push_back(p.name == "self" ? "*this" : p.name);
  }
  return ctx.templates.render("tensor_method.cpp.tmpl", {
      {"schema", op.func},
      {"signature", sig.definition("Tensor::")},
      {"api_name", api::api_name(op.schema)},
      {"call_args", join(args, ", ")},
  });
}

bool has_method(const OpEntry& op) {
  return op.method_variant && op.schema.find_argument("self") != nullptr;
}

}  // namespace

std::vector<GeneratedFile> emit_op_list(const EmitContext& ctx) {
  std::vector<std::string> lines;
  for (const OpEntry& op : ctx.ops) {
    lines.push_back("LAZYGEN_OP(" + api::op_id(op.schema.name) + ", \"" + op.schema.name.str() + "\", " +
                    api::class_name(op.schema.name) + ")");
  }
  std::string text = ctx.templates.render("op_list.inc.tmpl", {{"source", ctx.source}, {"op_lines", lines}});
  return {{std::string(kIncludeDir) + "op_list.inc", text}};
}

// Note [Per-op headers]
// Adding an op to ops.yaml should recompile a bounded set of units, not every unit that calls
// some op. So the op API is declared in one header per API name, include/lazygen/generated/
// ops/<name>.h (all overloads of `add` in ops/add.h), which changes only when that name's ops do;
// ops.h includes them all, for programs that want every op. The runtime's own units include the
// per-name headers they call, as the kernel shards include only their ops' functor headers
// (Note [Op shards]).
std::vector<GeneratedFile> emit_op_api(const EmitContext& ctx) {
  std::vector<std::string> method_decls;
  std::vector<std::vector<std::string>> dispatchers(kOpShards), functions(kOpShards),
      methods(kOpShards), headers(kOpShards);
  std::map<std::string, std::vector<std::string>> decls;  // by API name
  for (const OpEntry& op : ctx.ops) {
    const size_t k = static_cast<size_t>(op_shard(op));
    api::CppSignature sig = api::op_signature(op, api::api_name(op.schema), api::TypeUse::Api);
    // Method-only ops get the free function too: methods forward to it.
    decls[api::api_name(op.schema)].push_back("// " + op.func + "\n" + sig.declaration());
    dispatchers[k].push_back(dispatcher(ctx, op));
    functions[k].push_back(function_definition(ctx, op));
    for (std::string h :
         {op_api_header(api::api_name(op.schema)), cpu_kernel_header(op), lazy_op_header(op)}) {
      headers[k].push_back(std::move(h));
    }
    if (!differentiable(op).empty()) headers[k].push_back(record_header(op));
    if (const OpEntry* functional =
            op.schema.kind() == SchemaKind::Out ? functional_sibling(ctx, op) : nullptr) {
      headers[k].push_back(shape_header(*functional));  // out_resize's shape call
    }
    if (!has_method(op)) continue;
    method_decls.push_back("// " + op.func + "\n" + api::method_signature(op).declaration());
    methods[k].push_back(method_definition(ctx, op));
  }
  std::vector<GeneratedFile> files;
  std::vector<std::string> includes;
  for (const auto& [name, declarations] : decls) {
    includes.push_back(include_line(op_api_header(name)));
    files.push_back({"include/" + op_api_header(name),
                     ctx.templates.render("op_api_op.h.tmpl", {{"source", ctx.source},
                                                               {"api_name", name},
                                                               {"declarations", declarations}})});
  }
  files.push_back(
      {std::string(kIncludeDir) + "ops.h",
       ctx.templates.render("ops.h.tmpl", {{"source", ctx.source}, {"includes", includes}})});
  files.push_back({std::string(kIncludeDir) + "tensor_methods.inc",
                   ctx.templates.render("tensor_methods.inc.tmpl",
                                        {{"source", ctx.source}, {"declarations", method_decls}})});
  for (size_t k = 0; k < static_cast<size_t>(kOpShards); ++k) {
    files.push_back(
        {"src/ops_" + std::to_string(k) + ".cpp",
         ctx.templates.render("ops.cpp.tmpl", {{"source", ctx.source},
                                               {"shard", std::to_string(k)},
                                               {"includes", include_lines(std::move(headers[k]))},
                                               {"dispatchers", dispatchers[k]},
                                               {"functions", functions[k]},
                                               {"methods", methods[k]}})});
  }
  return files;
}

}  // namespace lazygen::gen::dest
