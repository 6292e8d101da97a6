// Emits the lowering tables, spread over src/lowering_<shard>.cpp by op (See Note [Op shards] in
// pointwise.cpp), with their lookups in src/lowering.cpp. For each op: how the executor runs its
// IR node with eager CPU kernels (contract: runtime/exec/lowering.h; pointwise ops compute into a
// buffer of the node's shape, so in-place and out= nodes are pure; custom kernels get their
// attributes from the node), and the same unpacking calling whichever kernel the operands' device
// registered (contract: runtime/exec/kernel_lowering.h, Note [Kernel lowering]).
#include "api/cpp_types.h"
#include "api/names.h"
#include "dest/common.h"
#include "dest/emit.h"

#include <map>
#include <optional>

namespace lazygen::gen::dest {
namespace {

// The operand index of each operand argument, assuming at most one list operand (which takes
// every operand the fixed ones leave). Returns C++ expressions reading `inputs`.
std::vector<std::pair<const Argument*, std::string>> operand_exprs(const OpEntry& op, bool* ok) {
  std::vector<const Argument*> operands;
  int lists = 0;
  for (const Argument& a : op.schema.arguments) {
    if (!api::is_operand(a)) continue;
    operands.push_back(&a);
    lists += a.type.is_list;
  }
  *ok = lists <= 1;
  std::vector<std::pair<const Argument*, std::string>> out;
  size_t fixed_after = 0;
  bool seen_list = false;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Argument* a = operands[i];
    std::string index = seen_list ? "inputs.size() - " + std::to_string(operands.size() - i) : std::to_string(i);
    if (a->type.is_list) {
      fixed_after = operands.size() - i - 1;
      out.push_back({a, "std::vector<Tensor>(inputs.begin() + " + std::to_string(i) + ", inputs.end() - " + std::to_string(fixed_after) + ")"});
      seen_list = true;
    } else if (api::is_scalar(*a)) {
      out.push_back({a, "scalar_of(inputs[" + index + "])"});
    } else if (a->type.is_optional()) {
      out.push_back({a, "optional_input(inputs[" + index + "])"});
    } else {
      out.push_back({a, "inputs[" + index + "]"});
    }
  }
  return out;
}

std::string expr_for(const std::vector<std::pair<const Argument*, std::string>>& exprs, const Argument& a) {
  for (const auto& [arg, e] : exprs) {
    if (arg == &a) return e;
  }
  return "n." + member_name(a);
}

std::vector<std::string> pointwise_statements(const OpEntry& op, const std::vector<std::pair<const Argument*, std::string>>& exprs) {
  PointwiseInputs in = pointwise_inputs(op);
  std::vector<std::string> tensors, scalars, dtype_args;
  for (const Argument* a : in.tensors) {
    tensors.push_back(expr_for(exprs, *a));
    dtype_args.push_back(expr_for(exprs, *a) + ".shape()");
  }
  for (const Argument* a : in.scalars) {
    scalars.push_back(expr_for(exprs, *a));
    dtype_args.push_back(expr_for(exprs, *a));
  }
  std::string id = api::op_id(op.schema.name);
  return {"Tensor out = empty(node.shape(0).sizes, node.shape(0).dtype, kCPU);",
          "cpu::run_" + id + "(out, {" + join(tensors, ", ") + "}, {" + join(scalars, ", ") + "}, cpu::compute_dtype_" +
              id + "(" + join(dtype_args, ", ") + "));",
          "return {out};"};
}

// Note [Lazy view lowering]: lazy tensors are contiguous by contract (a view of a lazy tensor
// always succeeds, as in PyTorch's lazy tensors), but the data an earlier lowering hands `view`
// may be a strided view (a transpose). So `view` lowers with reshape's kernel, which views when
// the strides allow and copies otherwise; the eager cpu `view` keeps PyTorch's stride check.
std::string lowering_kernel(const OpEntry& op) {
  return op.schema.name.str() == "view" ? "reshape" : api::op_id(op.schema.name);
}

// The statements calling `callee` (an expression naming the kernel, of signature `sig`) with the
// node's attributes and operands; a written operand is cloned first (IR nodes are pure, the
// executor rebinds the result).
std::vector<std::string> call_statements(
    const OpEntry& op, const std::vector<std::pair<const Argument*, std::string>>& exprs,
    const std::string& callee, const api::CppSignature& sig, std::vector<std::string> out = {}) {
  bool has_attrs = false;
  std::vector<std::string> args;
  const Argument* written = written_argument(op);
  for (const Argument& a : op.schema.arguments) has_attrs |= !api::is_operand(a);
  // In the kernels' parameter order: the API's (an out= tensor first).
  for (const api::CppParam& p : sig.params) {
    args.push_back(p.arg == written ? "written" : expr_for(exprs, *p.arg));
  }
  if (has_attrs)
    out.insert(out.begin(), "const auto& n = static_cast<const ir::" +
                                api::class_name(op.schema.name) + "&>(node);");
  if (written) out.push_back("Tensor written = " + expr_for(exprs, *written) + ".clone();");
  std::string call = callee + "(" + join(args, ", ") + ")";
  if (op.schema.returns.size() == 1) {
    out.push_back("return {" + call + "};");
  } else {
    out.push_back("auto result = " + call + ";");
    std::vector<std::string> parts;
    for (size_t i = 0; i < op.schema.returns.size(); ++i) parts.push_back("std::get<" + std::to_string(i) + ">(result)");
    out.push_back("return {" + join(parts, ", ") + "};");
  }
  return out;
}

std::vector<std::string> kernel_statements(
    const OpEntry& op, const std::vector<std::pair<const Argument*, std::string>>& exprs) {
  return call_statements(op, exprs, "cpu::" + lowering_kernel(op),
                         api::op_signature(op, "", api::TypeUse::Api));
}

// The schema name of the kernel a node of `op` runs (view: reshape's, See lowering_kernel).
std::string kernel_schema_name(const OpEntry& op) {
  return op.schema.name.str() == "view" ? "reshape" : op.schema.name.str();
}

// `inputs[k]`, the operand whose device picks the kernel: the first tensor or tensor-list operand
// that is not optional; "" when the op has none (a factory).
std::string device_operand(const OpEntry& op) {
  int index = 0;
  for (const Argument& a : op.schema.arguments) {
    if (!api::is_operand(a)) continue;
    if (!api::is_scalar(a) && !a.type.is_optional()) return "inputs[" + std::to_string(index) + "]";
    if (a.type.is_list) return "";  // after a list, operand indices count from the end
    ++index;
  }
  return "";
}

// The op's kernel looked up for its device, then called (See Note [Kernel lowering]).
std::vector<std::string> kernel_lowering_statements(
    const OpEntry& op, const std::vector<std::pair<const Argument*, std::string>>& exprs,
    const std::string& device) {
  api::CppSignature sig = api::op_signature(op, "", api::TypeUse::Api).without_defaults();
  std::vector<std::string> types;
  for (const api::CppParam& p : sig.params) types.push_back(p.type);
  return call_statements(op, exprs, "kernel", sig,
                         {"using Kernel = " + sig.return_type + "(" + join(types, ", ") + ");",
                          "Kernel* kernel = detail::device_kernel<Kernel>(" + device +
                              ".device().type, \"" + kernel_schema_name(op) + "\");"});
}

// What one op contributes to its shard and to the collector.
struct OpLowering {
  std::vector<std::string> shard_code, headers;
  std::string registration, declarations, cases, kernel_cases;
};

// The op's lowerings, or nothing when it has none (the executor then reports the op).
std::optional<OpLowering> op_lowering(const EmitContext& ctx, const OpEntry& op) {
  bool ok = true;
  auto exprs = operand_exprs(op, &ok);
  if (!ok || op.schema.returns.empty()) return std::nullopt;
  const std::string id = api::op_id(op.schema.name);
  OpLowering out;
  out.headers = {ir_node_header(op), cpu_kernel_header(op),
                 "lazygen/generated/cpu/" + lowering_kernel(op) + ".h"};
  std::vector<std::string> body =
      op.pointwise ? pointwise_statements(op, exprs) : kernel_statements(op, exprs);
  out.shard_code.push_back(ctx.templates.render(
      "lowering_fn.cpp.tmpl", {{"schema", op.func}, {"op_id", id}, {"statements", body}}));
  out.registration = "detail::register_device_kernel(DeviceType::CPU, \"" + op.schema.name.str() +
                     "\", &cpu::" + id + ");";
  out.declarations = "std::vector<Tensor> lower_" + id +
                     "(const ir::Node& node, const std::vector<Tensor>& inputs);";
  out.cases = "case " + kind_of(op) + ":\n  return &lowerings::lower_" + id + ";";
  const std::string device = device_operand(op);
  if (device.empty()) return out;
  const std::string functor = api::functor_name(op.schema.name);
  out.shard_code.push_back(
      ctx.templates.render("kernel_lowering_fn.cpp.tmpl",
                           {{"schema", op.func},
                            {"op_id", id},
                            {"functor", functor},
                            {"kernel", kernel_schema_name(op)},
                            {"statements", kernel_lowering_statements(op, exprs, device)}}));
  out.declarations += "\nextern const KernelLowering k" + functor + ";";
  out.kernel_cases = "case " + kind_of(op) + ":\n  return &lowerings::k" + functor + ";";
  return out;
}

}  // namespace

std::vector<GeneratedFile> emit_lowering(const EmitContext& ctx) {
  std::map<const OpEntry*, OpLowering> lowerings;
  std::vector<std::string> declarations, cases, kernel_cases, shard_calls;
  for (const OpEntry& op : ctx.ops) {  // the lookups in ops.yaml's order
    std::optional<OpLowering> l = op_lowering(ctx, op);
    if (!l) continue;
    declarations.push_back(l->declarations);
    cases.push_back(l->cases);
    if (!l->kernel_cases.empty()) kernel_cases.push_back(l->kernel_cases);
    lowerings.emplace(&op, std::move(*l));
  }
  std::vector<GeneratedFile> files;
  const std::vector<std::vector<const OpEntry*>> shards = op_shards(ctx.ops);
  for (size_t k = 0; k < shards.size(); ++k) {
    std::vector<std::string> code, headers, registrations;
    for (const OpEntry* op : shards[k]) {
      auto l = lowerings.find(op);
      if (l == lowerings.end()) continue;
      code.insert(code.end(), l->second.shard_code.begin(), l->second.shard_code.end());
      headers.insert(headers.end(), l->second.headers.begin(), l->second.headers.end());
      registrations.push_back(l->second.registration);
    }
    files.push_back({"src/lowering_" + std::to_string(k) + ".cpp",
                     ctx.templates.render("lowering_shard.cpp.tmpl",
                                          {{"source", ctx.source},
                                           {"shard", std::to_string(k)},
                                           {"includes", include_lines(std::move(headers))},
                                           {"functions", code},
                                           {"registrations", registrations}})});
    shard_calls.push_back("register_cpu_kernels_" + std::to_string(k) + "();");
    declarations.insert(declarations.begin() + static_cast<ptrdiff_t>(k),
                        "void register_cpu_kernels_" + std::to_string(k) + "();");
  }
  files.push_back({"src/lowering.cpp",
                   ctx.templates.render("lowering.cpp.tmpl", {{"source", ctx.source},
                                                              {"declarations", declarations},
                                                              {"cases", cases},
                                                              {"kernel_cases", kernel_cases},
                                                              {"shard_calls", shard_calls}})});
  return files;
}

}  // namespace lazygen::gen::dest
