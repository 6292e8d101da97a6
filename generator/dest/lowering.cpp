// Emits src/lowering.cpp: for each op, how the executor runs its IR node with eager CPU kernels
// (contract: runtime/exec/lowering.h). Pointwise ops compute into a buffer of the node's shape
// (so in-place and out= nodes are pure); custom kernels get their attributes from the node.
#include "api/cpp_types.h"
#include "api/names.h"
#include "dest/common.h"
#include "dest/emit.h"

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

std::vector<std::string> kernel_statements(const OpEntry& op, const std::vector<std::pair<const Argument*, std::string>>& exprs) {
  std::vector<std::string> out;
  bool has_attrs = false;
  std::vector<std::string> args;
  const Argument* written = written_argument(op);
  for (const Argument& a : op.schema.arguments) {
    has_attrs |= !api::is_operand(a);
    args.push_back(&a == written ? "written" : expr_for(exprs, a));
  }
  if (has_attrs) out.push_back("const auto& n = static_cast<const ir::" + api::class_name(op.schema.name) + "&>(node);");
  // In-place kernels run on a copy: IR nodes are pure, the executor rebinds the result.
  if (written) out.push_back("Tensor written = " + expr_for(exprs, *written) + ".clone();");
  std::string call = "cpu::" + lowering_kernel(op) + "(" + join(args, ", ") + ")";
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

}  // namespace

std::vector<GeneratedFile> emit_lowering(const EmitContext& ctx) {
  std::vector<std::string> functions, cases;
  for (const OpEntry& op : ctx.ops) {
    bool ok = true;
    auto exprs = operand_exprs(op, &ok);
    if (!ok || op.schema.returns.empty()) continue;  // no lowering: the executor reports the op
    std::string id = api::op_id(op.schema.name);
    std::vector<std::string> body = op.pointwise ? pointwise_statements(op, exprs) : kernel_statements(op, exprs);
    functions.push_back(ctx.templates.render("lowering_fn.cpp.tmpl", {{"schema", op.func}, {"op_id", id}, {"statements", body}}));
    cases.push_back("case " + kind_of(op) + ":\n  return &lower_" + id + ";");
  }
  return {{"src/lowering.cpp", ctx.templates.render("lowering.cpp.tmpl", {{"source", ctx.source},
                                                                          {"functions", functions},
                                                                          {"cases", cases}})}};
}

}  // namespace lazygen::gen::dest
