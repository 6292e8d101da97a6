// Emits the lazy-device op implementations (src/lazy_ops_<shard>.cpp, declared in lazy/<op id>.h,
// which lazy_ops.h includes; See Note [Op shards] in pointwise.cpp): infer shapes, record or reuse
// an IR node, return lazy tensors (or, for in-place and out= ops, rebind the written one; for view
// ops, a view that aliases its base: the op again and its hand-written inverse, declared in the
// op's header as lazy::view_inverse::<op id>; See Note [Lazy views] in
// runtime/core/lazy/lazy_view.h).
#include "api/cpp_types.h"
#include "api/names.h"
#include "api/signature.h"
#include "dest/common.h"
#include "dest/emit.h"

namespace lazygen::gen::dest {
namespace {

std::vector<std::string> node_args(const OpEntry& op) {
  std::vector<std::string> args;
  for (const Argument& a : op.schema.arguments) {
    std::string name = api::cpp_name(a.name);
    if (api::is_scalar(a)) args.push_back("scalar_value(" + name + ")");
    else if (a.type.base == BaseType::Tensor) args.push_back((a.type.is_list ? "ir_values(" : "ir_value(") + name + ")");
    else args.push_back(name);
  }
  // Shapes are computed only when the trie cache misses (a hit was already checked).
  args.push_back("[&] { return " + shape_call(op) + "; }");
  return args;
}

// `return make_lazy_view(self, node, <a ViewFn: the op on a new base, or its inverse>);`. The op
// on a new base goes through the op API, so that a chain also replays on the cpu (view positions;
// See lazy::view_positions).
std::string view_result(const EmitContext& ctx, const OpEntry& op, const Argument& viewed) {
  api::CppSignature sig = api::op_signature(op, "", api::TypeUse::Api);
  std::vector<std::string> apply_args, inverse_args = {"view_base", "*view_value"};
  for (const api::CppParam& p : sig.params) {
    apply_args.push_back(p.arg == &viewed ? "view_base" : p.name);
    if (p.arg != &viewed) inverse_args.push_back(p.name);
  }
  return ctx.templates.render("lazy_view_result.cpp.tmpl",
                              {
                                  {"viewed", api::cpp_name(viewed.name)},
                                  {"op_id", api::op_id(op.schema.name)},
                                  {"api_name", api::api_name(op.schema)},
                                  {"apply_args", join(apply_args, ", ")},
                                  {"inverse_args", join(inverse_args, ", ")},
                              });
}

std::vector<std::string> result_statements(const EmitContext& ctx, const OpEntry& op) {
  if (const Argument* viewed = op.schema.viewed_argument()) return {view_result(ctx, op, *viewed)};
  if (const Argument* w = written_argument(op)) {
    std::string name = api::cpp_name(w->name);
    return {"set_ir_value(" + name + ", ir::Value{node, 0});", "return " + name + ";"};
  }
  std::string device = device_expr(op);
  size_t n = op.schema.returns.size();
  if (n == 1) return {"return make_lazy_tensor(node, 0, " + device + ");"};
  std::vector<std::string> parts;
  for (size_t i = 0; i < n; ++i) parts.push_back("make_lazy_tensor(node, " + std::to_string(i) + ", " + device + ")");
  return {"return {" + join(parts, ", ") + "};"};
}

bool traceable(const OpEntry& op) {
  const auto& r = op.schema.returns;
  if (r.empty()) return false;
  for (const Return& x : r) {
    if (x.type.base != BaseType::Tensor || x.type.is_list) return false;
  }
  return true;
}

// lazy/<op id>.h: the op's declaration (and a view op's inverse).
GeneratedFile lazy_op_header_file(const EmitContext& ctx, const OpEntry& op,
                                  const std::string& decl) {
  std::vector<std::string> inverse;
  if (op.schema.viewed_argument()) {
    inverse.push_back(ctx.templates.render(
        "lazy_view_inverse.h.tmpl",
        {{"inverse_declaration",
          "// " + op.func + "\n" + api::view_inverse_signature(op).declaration()}}));
  }
  return {std::string("include/") + lazy_op_header(op),
          ctx.templates.render("lazy_op.h.tmpl", {{"schema", op.func},
                                                  {"source", ctx.source},
                                                  {"declaration", decl},
                                                  {"view_inverse", inverse}})};
}

}  // namespace

std::vector<GeneratedFile> emit_lazy_ops(const EmitContext& ctx) {
  std::vector<std::string> all_headers;
  std::vector<GeneratedFile> op_headers;
  std::vector<std::vector<std::string>> functions(kOpShards), headers(kOpShards);
  for (const OpEntry& op : ctx.ops) {
    if (!traceable(op)) continue;
    const size_t k = static_cast<size_t>(op_shard(op));
    api::CppSignature sig = api::op_signature(op, api::op_id(op.schema.name), api::TypeUse::Api).without_defaults();
    op_headers.push_back(lazy_op_header_file(ctx, op, "// " + op.func + "\n" + sig.declaration()));
    all_headers.push_back(lazy_op_header(op));
    headers[k].push_back(lazy_op_header(op));
    headers[k].push_back(ir_node_header(op));
    headers[k].push_back(shape_header(op));
    if (op.schema.viewed_argument()) headers[k].push_back(op_api_header(api::api_name(op.schema)));
    functions[k].push_back(ctx.templates.render(
        "lazy_op.cpp.tmpl", {
                                {"schema", op.func},
                                {"signature", sig.definition()},
                                {"class_name", api::class_name(op.schema.name)},
                                {"node_args", join(node_args(op), ", ")},
                                {"result_statements", result_statements(ctx, op)},
                            }));
  }
  std::vector<GeneratedFile> files = {
      {std::string(kIncludeDir) + "lazy_ops.h",
       ctx.templates.render("lazy_ops.h.tmpl",
                            {{"source", ctx.source}, {"includes", include_lines(all_headers)}})}};
  for (size_t k = 0; k < static_cast<size_t>(kOpShards); ++k) {
    files.push_back(
        {"src/lazy_ops_" + std::to_string(k) + ".cpp",
         ctx.templates.render("lazy_ops.cpp.tmpl", {{"source", ctx.source},
                                                    {"shard", std::to_string(k)},
                                                    {"includes", include_lines(headers[k])},
                                                    {"functions", functions[k]}})});
  }
  files.insert(files.end(), op_headers.begin(), op_headers.end());
  return files;
}

}  // namespace lazygen::gen::dest
