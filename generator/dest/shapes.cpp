// Emits shape inference: declarations for every op (shape_inference.h) and generated bodies for
// the rule-based ones (src/shape_inference_<shard>.cpp). See runtime/core/tensor/shape_rules.h.
#include "api/cpp_types.h"
#include "api/names.h"
#include "api/signature.h"
#include "dest/common.h"
#include "dest/emit.h"

namespace lazygen::gen::dest {
namespace {

// Non-optional, non-list tensor inputs (never the out= argument): what broadcasting combines.
std::vector<const Argument*> input_tensors(const OpEntry& op) {
  std::vector<const Argument*> out;
  for (const Argument& a : op.schema.arguments) {
    if (a.type.base == BaseType::Tensor && !a.type.is_list && !a.type.is_optional() &&
        !(a.kwarg_only && a.is_write())) {
      out.push_back(&a);
    }
  }
  return out;
}

std::string address_list(const std::vector<const Argument*>& args) {
  std::vector<std::string> out;
  for (const Argument* a : args) out.push_back("&" + api::cpp_name(a->name));
  return "{" + join(out, ", ") + "}";
}

std::string result_type_expr(const OpEntry& op) {
  return "shape_rules::result_type(" + address_list(input_tensors(op)) + ", " +
         address_list(promoting_scalars(op)) + ")";
}

// The dtype the op computes, before any written argument (in-place self, out=) takes it.
std::string computed_dtype_expr(const OpEntry& op) {
  switch (op.dtype) {
    case DTypeRule::Bool: return "DType::Bool";
    case DTypeRule::Index: return "DType::Int64";
    case DTypeRule::Self: return "self.dtype";
    case DTypeRule::Float: return "to_floating(" + result_type_expr(op) + ")";
    case DTypeRule::Promote: break;
  }
  return result_type_expr(op);
}

std::string dtype_expr(const OpEntry& op) {
  if (const Argument* w = written_argument(op)) return api::cpp_name(w->name) + ".dtype";
  return computed_dtype_expr(op);
}

// reduce: dims from `dim` (int[1]?, int[1] or int?), keepdim if present, dtype from the rule or
// an explicit `dtype` argument (sum of integers accumulates in int64, as PyTorch's does).
std::vector<std::string> reduce_statements(const OpEntry& op) {
  const Argument* dim = op.schema.find_argument("dim");
  std::string dims = "std::nullopt";
  if (dim && dim->type.is_list) dims = dim->type.list_optional ? "dim" : "std::optional<std::vector<int64_t>>(dim)";
  if (dim && !dim->type.is_list) {
    dims = "dim ? std::optional<std::vector<int64_t>>(std::vector<int64_t>{*dim}) : std::nullopt";
  }
  std::string keepdim = op.schema.find_argument("keepdim") ? "keepdim" : "false";
  std::string dtype = op.dtype == DTypeRule::Promote
                          ? "is_floating(self.dtype) ? self.dtype : DType::Int64"
                          : (op.dtype == DTypeRule::Float ? "to_floating(self.dtype)" : dtype_expr(op));
  if (op.schema.find_argument("dtype")) dtype = "dtype.value_or(" + dtype + ")";
  return {"return single_shape(shape_rules::reduce(\"" + op.schema.name.str() + "\", self, " +
          dims + ", " + keepdim + ", " + dtype + "));"};
}

// Subtraction (sub, rsub and their in-place and out= forms) refuses bool operands even where the
// result type is a number, as PyTorch's sub_check does: its dtypes: list alone cannot say this.
bool is_subtraction(const OpEntry& op) {
  const std::string& base = op.schema.name.base;
  return base == "sub" || base == "sub_" || base == "rsub";
}

// addcdiv (and addcdiv_) refuses integral tensor1 and tensor2 even with a floating self, as
// PyTorch's addcdiv does.
bool is_addcdiv(const OpEntry& op) {
  const std::string& base = op.schema.name.base;
  return base == "addcdiv" || base == "addcdiv_";
}

std::string subtraction_check(const OpEntry& op) {
  return "shape_rules::check_subtraction(\"" + op.schema.name.str() + "\", " + address_list(input_tensors(op)) +
         ", " + address_list(promoting_scalars(op)) + ");";
}

std::vector<std::string> elementwise_statements(const OpEntry& op) {
  std::vector<const Argument*> inputs = input_tensors(op);
  std::string first = api::cpp_name(inputs.at(0)->name);
  std::string sizes = op.shape == ShapeRule::Same
                          ? first + ".sizes"
                          : "shape_rules::broadcast(\"" + op.schema.name.str() + "\", " + address_list(inputs) + ")";
  std::vector<std::string> out = {"std::vector<int64_t> sizes = " + sizes + ";"};
  // An elementwise op along one dim (softmax) checks it against the rank, as its kernel does,
  // so that the lazy device raises at the call too.
  if (const Argument* dim = op.schema.find_argument("dim");
      dim != nullptr && dim->type.base == BaseType::Int && !dim->type.is_list && !dim->type.elem_optional) {
    out.push_back("wrap_dim(\"" + op.schema.name.str() + "\", dim, static_cast<int64_t>(sizes.size()));");
  }
  if (is_subtraction(op)) out.push_back(subtraction_check(op));
  if (is_addcdiv(op)) out.push_back("shape_rules::check_addcdiv(\"" + op.schema.name.str() + "\", tensor1, tensor2);");
  for (const Argument& a : op.schema.arguments) {
    if (api::is_scalar(a) && (a.name == "alpha" || a.name == "beta")) {
      out.push_back("shape_rules::check_alpha(\"" + op.schema.name.str() + "\", " + computed_dtype_expr(op) + ", " +
                    api::cpp_name(a.name) + ");");
    }
  }
  if (op.dtype == DTypeRule::Self && inputs.size() > 1 && !written_argument(op)) {
    out.push_back("shape_rules::check_cast(\"" + op.schema.name.str() + "\", " + result_type_expr(op) +
                  ", self.dtype, sizes);");
  }
  if (const Argument* w = written_argument(op)) {
    out.push_back("shape_rules::check_inplace(\"" + op.schema.name.str() + "\", " + api::cpp_name(w->name) +
                  ", sizes, " + computed_dtype_expr(op) + ");");
  }
  out.push_back("return single_shape(Shape(" + dtype_expr(op) + ", std::move(sizes)));");
  return out;
}

std::string rule_definition(const EmitContext& ctx, const OpEntry& op) {
  api::CppSignature sig = api::op_signature(op, api::shape_fn_name(op.schema.name), api::TypeUse::ShapeFn);
  std::vector<std::string> body = op.shape == ShapeRule::Reduce ? reduce_statements(op) : elementwise_statements(op);
  return ctx.templates.render("shape_rule.cpp.tmpl",
                              {{"schema", op.func}, {"signature", sig.definition()}, {"statements", body}});
}

}  // namespace

std::vector<GeneratedFile> emit_shapes(const EmitContext& ctx) {
  std::vector<std::string> includes;
  std::vector<GeneratedFile> headers;
  for (const OpEntry& op : ctx.ops) {
    includes.push_back(include_line(shape_header(op)));
    headers.push_back(
        {"include/" + shape_header(op),
         ctx.templates.render("shape_function.h.tmpl", {{"source", ctx.source},
                                                        {"schema", op.func},
                                                        {"declaration", shape_declaration(op)}})});
  }
  std::vector<GeneratedFile> files = {
      {std::string(kIncludeDir) + "shape_inference.h",
       ctx.templates.render("shape_inference.h.tmpl",
                            {{"source", ctx.source}, {"includes", includes}})}};
  for (GeneratedFile& f : headers) files.push_back(std::move(f));
  const std::vector<std::vector<const OpEntry*>> shards = op_shards(ctx.ops);
  for (size_t k = 0; k < shards.size(); ++k) {
    std::vector<std::string> functions, shard_headers;
    for (const OpEntry* op : shards[k]) {
      if (op->has_custom_shape()) continue;
      functions.push_back(rule_definition(ctx, *op));
      shard_headers.push_back(shape_header(*op));
    }
    files.push_back({"src/shape_inference_" + std::to_string(k) + ".cpp",
                     ctx.templates.render("shape_inference.cpp.tmpl",
                                          {{"source", ctx.source},
                                           {"shard", std::to_string(k)},
                                           {"includes", include_lines(std::move(shard_headers))},
                                           {"functions", functions}})});
  }
  return files;
}

}  // namespace lazygen::gen::dest
