// Emits the lazy-device op implementations (lazy_ops.h / src/lazy_ops.cpp): infer shapes, record
// or reuse an IR node, return lazy tensors (or, for in-place and out= ops, rebind the written one).
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

std::vector<std::string> result_statements(const OpEntry& op) {
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

}  // namespace

std::vector<GeneratedFile> emit_lazy_ops(const EmitContext& ctx) {
  std::vector<std::string> decls, functions;
  for (const OpEntry& op : ctx.ops) {
    if (!traceable(op)) continue;
    api::CppSignature sig = api::op_signature(op, api::op_id(op.schema.name), api::TypeUse::Api).without_defaults();
    decls.push_back("// " + op.func + "\n" + sig.declaration());
    functions.push_back(ctx.templates.render("lazy_op.cpp.tmpl", {
        {"schema", op.func},
        {"signature", sig.definition()},
        {"class_name", api::class_name(op.schema.name)},
        {"node_args", join(node_args(op), ", ")},
        {"result_statements", result_statements(op)},
    }));
  }
  return {
      {std::string(kIncludeDir) + "lazy_ops.h",
       ctx.templates.render("lazy_ops.h.tmpl", {{"source", ctx.source}, {"declarations", decls}})},
      {"src/lazy_ops.cpp", ctx.templates.render("lazy_ops.cpp.tmpl", {{"source", ctx.source}, {"functions", functions}})},
  };
}

}  // namespace lazygen::gen::dest
