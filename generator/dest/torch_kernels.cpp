// Emits the lazygen device's PyTorch kernels. For each op, an unboxed kernel with PyTorch's C++
// signature for its schema (api/aten_types.h) that converts the arguments (runtime/pytorch/call.h)
// and calls the op API, in src/torch_kernels_<shard>.cpp with the registrations of its shard's
// kernels (See Note [Op shards] in pointwise.cpp); and in src/torch_kernels.cpp one registration
// block that offers every shard's kernels and the adapters to the dispatcher on PrivateUse1 (See
// Note [Which ops the device registers] in runtime/pytorch/registrar.h).
#include <optional>

#include "api/aten_types.h"
#include "api/names.h"
#include "dest/common.h"
#include "dest/emit.h"

namespace lazygen::gen::dest {
namespace {

// "{&self, &other, maybe(weight)}": the Tensor and Tensor? arguments Call converts up front.
std::string tensor_list(const OpEntry& op) {
  std::vector<std::string> parts;
  for (const Argument& a : op.schema.arguments) {
    if (a.type.base != BaseType::Tensor || a.type.is_list) continue;
    if (op.schema.kind() == SchemaKind::Out && a.is_write()) continue;
    const std::string name = api::cpp_name(a.name);
    parts.push_back(a.type.elem_optional ? "maybe(" + name + ")" : "&" + name);
  }
  return "{" + join(parts, ", ") + "}";
}

// "lazygen::add(c.arg(self), c.arg(other), c.arg(alpha))": `target`'s API called with this
// kernel's arguments of the same names; written tensors go through c.written (a write check).
std::string api_call(const OpEntry& target) {
  api::CppSignature sig = api::op_signature(target, api::api_name(target.schema), api::TypeUse::Api);
  std::vector<std::string> args;
  for (const api::CppParam& p : sig.params) {
    const bool written = p.arg->is_write() && p.arg->type.base == BaseType::Tensor;
    args.push_back((written ? "c.written(" : "c.arg(") + api::cpp_name(p.arg->name) + ")");
  }
  return "lazygen::" + sig.name + "(" + join(args, ", ") + ")";
}

std::vector<std::string> statements(const EmitContext& ctx, const OpEntry& op) {
  std::vector<std::string> out = {"Call c(\"" + op.schema.name.str() + "\", " + tensor_list(op) + ");"};
  const std::vector<const Argument*> outs = op.schema.out_arguments();
  const OpEntry* functional = api::find_functional(op, ctx.ops);
  if (op.schema.kind() == SchemaKind::Out && outs.size() == 1 && functional != nullptr) {
    out.push_back("return c.assign_out(" + api::cpp_name(outs[0]->name) + ", " + api_call(*functional) + ");");
  } else if (op.schema.returns.empty()) {
    out.push_back(api_call(op) + ";");
  } else if (op.schema.kind() != SchemaKind::Functional) {
    const Argument* written = written_argument(op);
    out.push_back(api_call(op) + ";");
    out.push_back("return " + api::cpp_name(written->name) + ";");
  } else {
    out.push_back("return c.result(" + api_call(op) + ");");
  }
  return out;
}

std::string registration(const std::string& registrar, const OpEntry& op, const std::string& fn) {
  return registrar + ".add(\"" + op.schema.name.str() + "\", TORCH_FN(" + fn + "));";
}

// Note [In-place forms for PyTorch]
// PyTorch has an in-place form (hardtanh_, silu_, exp_, eq_.Tensor) of most pointwise ops, and
// models call them (torchvision's ReLU6 and SiLU with inplace=True). For every pointwise
// functional op of ops.yaml without an in-place entry of its own, the device gets a kernel for
// the in-place form that calls the functional op and writes the result back into self
// (Call::write_back: PyTorch's cast and shape checks, then copy_, which reaches the base of a
// view), offered under the registrar "in-place form", which registers it only where PyTorch has
// the op. Without it the op ran on the CPU fallback.

// The in-place form of `op` ("hardtanh_" for hardtanh) when the device should serve it with the
// functional op, else nullopt: `op` is a generated pointwise functional op of one Tensor result
// whose first argument is a Tensor `self`, and neither ops.yaml nor its adapters name that form.
std::optional<OpEntry> inplace_form(const EmitContext& ctx, const OpEntry& op) {
  const FunctionSchema& s = op.schema;
  if (op.torch != TorchKernel::Generated || !op.pointwise || s.kind() != SchemaKind::Functional ||
      s.returns.size() != 1 || s.returns[0].type.base != BaseType::Tensor ||
      s.returns[0].type.is_list || s.arguments.empty() || s.arguments[0].name != "self" ||
      s.arguments[0].type.base != BaseType::Tensor || s.arguments[0].type.is_list ||
      s.arguments[0].type.elem_optional) {
    return std::nullopt;
  }
  OpEntry form = op;
  form.schema.name.base += "_";
  const std::string name = form.schema.name.str();
  for (const std::vector<OpEntry>* list : {&ctx.ops, ctx.torch_adapters}) {
    if (list == nullptr) continue;
    for (const OpEntry& other : *list) {
      if (other.schema.name.str() == name) return std::nullopt;
    }
  }
  const Annotation written{{"a"}, true, {}};
  form.schema.arguments[0].annotation = written;
  form.schema.returns[0].annotation = written;
  form.func = print_schema(form.schema);
  return form;
}

// The kernel of `form` (inplace_form(op)): op's API call, written back into self.
std::string inplace_kernel(const EmitContext& ctx, const OpEntry& op, const OpEntry& form,
                           const std::string& id) {
  const std::string call = "Call c(\"" + form.schema.name.str() + "\", " + tensor_list(form) + ");";
  const std::string back = "return c.write_back(self, " + api_call(op) + ");";
  return ctx.templates.render("torch_kernel.cpp.tmpl",
                              {{"schema", form.func},
                               {"head", api::aten_signature(form, id).definition()},
                               {"statements", std::vector<std::string>{call, back}}});
}

// Every entry whose PyTorch kernel is a hand-written adapter, lazygen ops first.
std::vector<const OpEntry*> adapters(const EmitContext& ctx) {
  std::vector<const OpEntry*> out;
  for (const OpEntry& op : ctx.ops) {
    if (op.torch == TorchKernel::Adapter) out.push_back(&op);
  }
  if (ctx.torch_adapters != nullptr) {
    for (const OpEntry& op : *ctx.torch_adapters) out.push_back(&op);
  }
  return out;
}

}  // namespace

std::vector<GeneratedFile> emit_torch_kernels(const EmitContext& ctx) {
  std::vector<GeneratedFile> files;
  std::vector<std::vector<std::string>> kernels(kOpShards), generated(kOpShards),
      headers(kOpShards);
  for (const OpEntry& op : ctx.ops) {
    if (op.torch != TorchKernel::Generated) continue;
    const size_t k = static_cast<size_t>(op_shard(op));
    const std::string id = api::op_id(op.schema.name);
    api::CppSignature sig = api::aten_signature(op, id);
    kernels[k].push_back(ctx.templates.render(
        "torch_kernel.cpp.tmpl",
        {{"schema", op.func}, {"head", sig.definition()}, {"statements", statements(ctx, op)}}));
    generated[k].push_back(registration("generated", op, id));
    headers[k].push_back(op_api_header(api::api_name(op.schema)));
    if (const OpEntry* functional = api::find_functional(op, ctx.ops)) {
      headers[k].push_back(op_api_header(api::api_name(functional->schema)));
    }
    if (const std::optional<OpEntry> form = inplace_form(ctx, op)) {
      const std::string form_id = api::op_id(form->schema.name);
      kernels[k].push_back(inplace_kernel(ctx, op, *form, form_id));
      generated[k].push_back(registration("inplace", *form, form_id));
    }
  }
  std::vector<std::string> declarations, calls, adapted;
  for (size_t k = 0; k < static_cast<size_t>(kOpShards); ++k) {
    const std::string shard = std::to_string(k);
    files.push_back({"src/torch_kernels_" + shard + ".cpp",
                     ctx.templates.render("torch_kernels_shard.cpp.tmpl",
                                          {{"source", ctx.source},
                                           {"shard", shard},
                                           {"includes", include_lines(headers[k])},
                                           {"kernels", kernels[k]},
                                           {"generated", generated[k]}})});
    calls.push_back("register_generated_" + shard + "(generated, inplace);");
    declarations.push_back("void register_generated_" + shard +
                           "(Registrar& generated, Registrar& inplace);");
  }
  std::vector<std::string> adapter_declarations;
  for (const OpEntry* op : adapters(ctx)) {
    const std::string id = api::op_id(op->schema.name);
    adapter_declarations.push_back("// " + op->func + "\n" +
                                   api::aten_signature(*op, id).declaration());
    adapted.push_back(registration("adapter", *op, "adapters::" + id));
  }
  TemplateEnv header = {{"source", ctx.source}, {"declarations", adapter_declarations}};
  files.insert(files.begin(), {"include/lazygen/generated/torch_adapters.h",
                               ctx.templates.render("torch_adapters.h.tmpl", header)});
  files.push_back(
      {"src/torch_kernels.cpp",
       ctx.templates.render("torch_kernels.cpp.tmpl", {{"source", ctx.source},
                                                       {"shard_declarations", declarations},
                                                       {"shard_calls", calls},
                                                       {"adapted", adapted}})});
  return files;
}

}  // namespace lazygen::gen::dest
