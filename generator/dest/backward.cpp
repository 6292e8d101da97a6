// Emits autograd support from `derivatives:` (src/backward_<shard>.cpp, See Note [Op shards] in
// pointwise.cpp): per op, a Function subclass whose apply() evaluates the formulas, and
// record_<op id>() that saves what the formulas read and attaches the function to the result,
// declared in autograd/<op id>.h (backward.h includes them all). See runtime/autograd/function.h.
#include <set>

#include "api/cpp_types.h"
#include "api/names.h"
#include "api/signature.h"
#include "dest/common.h"
#include "dest/emit.h"
#include "model/expr_scan.h"

namespace lazygen::gen::dest {
namespace {

// The Tensor[] argument of an op whose only tensors are that list (cat): each element has an
// edge, and the list's formula returns one gradient per element. Null for other ops.
const Argument* list_argument(const OpEntry& op) {
  const Argument* list = nullptr;
  for (const Argument& a : op.schema.arguments) {
    if (a.type.base != BaseType::Tensor) continue;
    if (!a.type.is_list) return nullptr;
    list = &a;
  }
  return list;
}

// Tensor arguments: each has an edge (in schema order), differentiable or not.
std::vector<const Argument*> edge_arguments(const OpEntry& op) {
  std::vector<const Argument*> out;
  for (const Argument& a : op.schema.arguments) {
    if (a.type.base == BaseType::Tensor && !a.type.is_list) out.push_back(&a);
  }
  return out;
}

// Names the formulas read: arguments (saved as members) and `result`.
std::set<std::string> read_names(const OpEntry& op) {
  std::set<std::string> names;
  for (const Derivative* d : differentiable(op)) {
    for (const ExprIdent& id : scan_identifiers(d->formula)) {
      if (!id.is_call && !id.is_member) names.insert(id.name);
    }
  }
  return names;
}

struct Saved {
  std::string member;  // "Tensor self;"
  std::string save;    // "fn->self = saved(self);"
  std::string release; // "self = Tensor();"
};

Saved saved_argument(const OpEntry& op, const Argument& a) {
  std::string name = api::cpp_name(a.name);
  if (a.type.base == BaseType::Tensor) {
    // An absent optional stays absent (formulas pass it on as std::optional<Tensor>).
    std::string type = a.type.is_list ? "std::vector<Tensor>" : a.type.is_optional() ? "std::optional<Tensor>" : "Tensor";
    return {type + " " + name + ";", "fn->" + name + " = saved(" + name + ");", name + " = " + type + "();"};
  }
  std::string type = api::cpp_type(a, api::TypeUse::Member, op.func_loc);
  return {type + " " + name + "{};", "fn->" + name + " = " + name + ";", ""};
}

std::vector<Saved> saved_values(const OpEntry& op) {
  std::set<std::string> names = read_names(op);
  std::vector<Saved> out;
  for (const Argument& a : op.schema.arguments) {
    if (names.count(a.name)) out.push_back(saved_argument(op, a));
  }
  bool tuple = op.schema.returns.size() > 1;
  for (const auto& [name, index] : op.schema.result_names()) {
    if (!names.count(name)) continue;
    std::string value = tuple ? "std::get<" + std::to_string(index) + ">(result)" : "result";
    // The function's parameter is `result` (the whole output): save under the formula's name.
    out.push_back({"Tensor " + name + ";", "fn->" + name + " = saved(" + value + ");", name + " = Tensor();"});
  }
  return out;
}

std::string class_name(const OpEntry& op) { return api::class_name(op.schema.name) + "Backward"; }

std::string function_class(const EmitContext& ctx, const OpEntry& op) {
  std::vector<const Argument*> edges = edge_arguments(op);
  std::vector<std::string> formulas, members, releases;
  const Argument* list = list_argument(op);
  for (const Derivative* d : differentiable(op)) {
    if (list != nullptr && d->argument == list->name) formulas.push_back("grad_inputs = " + d->formula + ";");
    for (size_t i = 0; i < edges.size(); ++i) {
      if (edges[i]->name != d->argument) continue;
      std::string idx = std::to_string(i);
      formulas.push_back("if (needs_input_grad(" + idx + ")) grad_inputs[" + idx + "] = " + d->formula + ";");
    }
  }
  for (const Saved& s : saved_values(op)) {
    members.push_back(s.member);
    if (!s.release.empty()) releases.push_back(s.release);
  }
  return ctx.templates.render("backward_function.cpp.tmpl", {
      {"schema", op.func}, {"class_name", class_name(op)},
      {"num_inputs", list != nullptr ? "next_edges.size()" : std::to_string(edges.size())},
      {"formulas", formulas}, {"releases", releases}, {"members", members}});
}

api::CppSignature record_signature(const OpEntry& op) {
  api::CppSignature sig =
      api::op_signature(op, "record_" + api::op_id(op.schema.name), api::TypeUse::Api).without_defaults();
  std::string result_type = api::cpp_return_type(op.schema, op.func_loc);
  sig.params.insert(sig.params.begin(), {"const " + result_type + "&", "result", "", nullptr});
  sig.return_type = "void";
  return sig;
}

std::string record_function(const EmitContext& ctx, const OpEntry& op) {
  std::vector<std::string> edges, shapes, saves, histories;
  for (const Argument* a : edge_arguments(op)) {
    std::string name = api::cpp_name(a->name);
    bool opt = a->type.is_optional();
    edges.push_back("gradient_edge(" + name + ")");
    shapes.push_back(opt ? "(" + name + " ? " + name + "->shape() : Shape())" : name + ".shape()");
  }
  if (const Argument* list = list_argument(op)) {
    edges = {"gradient_edges(" + api::cpp_name(list->name) + ")"};
    shapes = {"lazygen::detail::shapes_of(" + api::cpp_name(list->name) + ")"};
  }
  for (const Saved& s : saved_values(op)) saves.push_back(s.save);
  size_t n = op.schema.returns.size();
  for (size_t i = 0; i < n; ++i) {
    std::string out = n == 1 ? "result" : "std::get<" + std::to_string(i) + ">(result)";
    histories.push_back("set_history(" + out + ", fn, " + std::to_string(i) + ");");
  }
  return ctx.templates.render("record_function.cpp.tmpl", {
      {"schema", op.func}, {"signature", record_signature(op).definition()}, {"class_name", class_name(op)},
      {"edges", join(edges, ", ")}, {"input_shapes", join(shapes, ", ")},
      {"num_outputs", std::to_string(n)}, {"saves", saves}, {"histories", histories}});
}

}  // namespace

std::string record_statement(const OpEntry& op) {
  std::vector<std::string> inputs;
  for (const Derivative* d : differentiable(op)) {
    const Argument* a = op.schema.find_argument(d->argument);
    std::string name = api::cpp_name(a->name);
    inputs.push_back(a->type.is_optional() ? "(" + name + " ? &*" + name + " : nullptr)" : "&" + name);
  }
  std::vector<std::string> args = {"result"};
  for (const api::CppParam& p : api::op_signature(op, "", api::TypeUse::Api).params) args.push_back(p.name);
  const Argument* list = list_argument(op);
  const std::string needs = list != nullptr ? api::cpp_name(list->name) : "{" + join(inputs, ", ") + "}";
  return "if (autograd::needs_grad(" + needs + ")) autograd::record_" + api::op_id(op.schema.name) + "(" +
         join(args, ", ") + ");";
}

std::vector<GeneratedFile> emit_backward(const EmitContext& ctx) {
  std::vector<std::string> headers;
  std::vector<GeneratedFile> header_files;
  std::vector<std::vector<std::string>> classes(kOpShards), records(kOpShards);
  std::vector<std::string> code(kOpShards);
  for (const OpEntry& op : ctx.ops) {
    if (differentiable(op).empty()) continue;
    const size_t k = static_cast<size_t>(op_shard(op));
    headers.push_back(record_header(op));
    header_files.push_back(
        {"include/" + record_header(op),
         ctx.templates.render(
             "record_function.h.tmpl",
             {{"source", ctx.source},
              {"schema", op.func},
              {"declaration", "// " + op.func + "\n" + record_signature(op).declaration()}})});
    classes[k].push_back(function_class(ctx, op));
    records[k].push_back(record_function(ctx, op));
    code[k] += classes[k].back() + records[k].back();
  }
  std::vector<GeneratedFile> files = {
      {std::string(kIncludeDir) + "backward.h",
       ctx.templates.render("backward.h.tmpl",
                            {{"source", ctx.source}, {"includes", include_lines(headers)}})}};
  files.insert(files.end(), header_files.begin(), header_files.end());
  for (size_t k = 0; k < static_cast<size_t>(kOpShards); ++k) {
    files.push_back({"src/backward_" + std::to_string(k) + ".cpp",
                     ctx.templates.render("backward.cpp.tmpl",
                                          {{"source", ctx.source},
                                           {"shard", std::to_string(k)},
                                           {"includes", called_op_includes(ctx.ops, code[k])},
                                           {"classes", classes[k]},
                                           {"records", records[k]}})});
  }
  return files;
}

}  // namespace lazygen::gen::dest
