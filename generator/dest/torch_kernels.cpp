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

// Note [Derived forms for PyTorch]
// PyTorch has an in-place form (hardtanh_, silu_, exp_, eq_.Tensor) and an out= form (mul.out,
// maximum.out, neg.out) of most pointwise ops. Models call the in-place ones (torchvision's ReLU6
// and SiLU with inplace=True), PyTorch itself some out= ones (Adam's amsgrad maximum,
// soft_margin_loss's backward). For every pointwise functional op of ops.yaml, the device gets a
// kernel for each such form that ops.yaml and its adapters do not name: the functional op, its
// result written back into self (Call::write_back) or into out (Call::assign_out), with PyTorch's
// cast and shape checks (copy_ reaches the base of a view). They are offered under the registrar
// "derived form", which registers a form only where PyTorch has it with that signature (an out=
// overload is "out" for an op without overload name or with "Tensor", else "<overload>_out", as
// PyTorch mostly names them; a name PyTorch gives another signature is skipped). Without them
// those calls ran on the CPU fallback.

// Whether `op` has derived forms: a generated pointwise functional op of one Tensor result.
bool derives_forms(const OpEntry& op) {
  const FunctionSchema& s = op.schema;
  return op.torch == TorchKernel::Generated && op.pointwise && s.kind() == SchemaKind::Functional &&
         s.returns.size() == 1 && s.returns[0].type.base == BaseType::Tensor &&
         !s.returns[0].type.is_list;
}

// Whether ops.yaml or its adapters name `name` ("add_.Tensor").
bool named(const EmitContext& ctx, const std::string& name) {
  for (const std::vector<OpEntry>* list : {&ctx.ops, ctx.torch_adapters}) {
    if (list == nullptr) continue;
    for (const OpEntry& other : *list) {
      if (other.schema.name.str() == name) return true;
    }
  }
  return false;
}

// The in-place form of `op` ("hardtanh_" for hardtanh) when derives_forms(op), its first argument
// is a Tensor `self` and the form is not named; else nullopt.
std::optional<OpEntry> inplace_form(const EmitContext& ctx, const OpEntry& op) {
  const std::vector<Argument>& args = op.schema.arguments;
  if (!derives_forms(op) || args.empty() || args[0].name != "self" ||
      args[0].type.base != BaseType::Tensor || args[0].type.is_list || args[0].type.elem_optional) {
    return std::nullopt;
  }
  OpEntry form = op;
  form.schema.name.base += "_";
  if (named(ctx, form.schema.name.str())) return std::nullopt;
  const Annotation written{{"a"}, true, {}};
  form.schema.arguments[0].annotation = written;
  form.schema.returns[0].annotation = written;
  form.func = print_schema(form.schema);
  return form;
}

// The out= forms of `op` (mul.out for mul.Tensor, pow.Tensor_Scalar_out for pow.Tensor_Scalar)
// when derives_forms(op), those not named.
std::vector<OpEntry> out_forms(const EmitContext& ctx, const OpEntry& op) {
  if (!derives_forms(op)) return {};
  const std::string& overload = op.schema.name.overload;
  std::vector<std::string> names = {overload.empty() ? "out" : overload + "_out"};
  if (overload == "Tensor") names.push_back("out");
  std::vector<OpEntry> forms;
  for (const std::string& name : names) {
    OpEntry form = op;
    form.schema.name.overload = name;
    if (named(ctx, form.schema.name.str())) continue;
    Argument out;
    out.name = "out";
    out.type.base = BaseType::Tensor;
    out.annotation = Annotation{{"a"}, true, {}};
    out.kwarg_only = true;
    form.schema.arguments.push_back(out);
    form.schema.returns[0].annotation = out.annotation;
    form.schema.returns[0].name.clear();
    form.func = print_schema(form.schema);
    forms.push_back(std::move(form));
  }
  return forms;
}

// The kernel of a derived `form` of `op`: op's API call, written back into self (in place) or
// into out.
std::string derived_kernel(const EmitContext& ctx, const OpEntry& op, const OpEntry& form,
                           const std::string& id) {
  const std::string call = "Call c(\"" + form.schema.name.str() + "\", " + tensor_list(form) + ");";
  const std::string back = form.schema.kind() == SchemaKind::Out
                               ? "return c.assign_out(out, " + api_call(op) + ");"
                               : "return c.write_back(self, " + api_call(op) + ");";
  return ctx.templates.render("torch_kernel.cpp.tmpl",
                              {{"schema", form.func},
                               {"head", api::aten_signature(form, id).definition()},
                               {"statements", std::vector<std::string>{call, back}}});
}

// The forms derive_forms(op) gives the device: in place first, then out=.
std::vector<OpEntry> derived_forms(const EmitContext& ctx, const OpEntry& op) {
  std::vector<OpEntry> forms;
  if (std::optional<OpEntry> form = inplace_form(ctx, op)) forms.push_back(std::move(*form));
  for (OpEntry& form : out_forms(ctx, op)) forms.push_back(std::move(form));
  return forms;
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
    for (const OpEntry& form : derived_forms(ctx, op)) {
      const std::string form_id = api::op_id(form.schema.name);
      kernels[k].push_back(derived_kernel(ctx, op, form, form_id));
      generated[k].push_back(registration("derived", form, form_id));
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
    calls.push_back("register_generated_" + shard + "(generated, derived);");
    declarations.push_back("void register_generated_" + shard +
                           "(Registrar& generated, Registrar& derived);");
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
