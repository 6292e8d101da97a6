// Emits src/tile_kernels.cpp: the PointwiseInfo of every `pointwise:` op (operand mapping and
// tile kernels per compute dtype) for the fused CPU interpreter.
#include "api/cpp_types.h"
#include "api/names.h"
#include "dest/common.h"
#include "dest/emit.h"

namespace lazygen::gen::dest {
namespace {

// Node operand index of each argument (operands are the Tensor and Scalar arguments in order).
int operand_index(const OpEntry& op, const Argument* target) {
  int index = 0;
  for (const Argument& a : op.schema.arguments) {
    if (&a == target) return index;
    if (api::is_operand(a)) ++index;
  }
  return -1;
}

std::string indices(const OpEntry& op, const std::vector<const Argument*>& args) {
  std::vector<std::string> out;
  for (const Argument* a : args) out.push_back(std::to_string(operand_index(op, a)));
  return join(out, ", ");
}

}  // namespace

std::vector<GeneratedFile> emit_tile_kernels(const EmitContext& ctx) {
  std::vector<std::string> infos, cases;
  for (const OpEntry& op : ctx.ops) {
    if (!op.pointwise) continue;
    bool has_list = false;
    for (const Argument& a : op.schema.arguments) has_list |= a.type.is_list && a.type.base == BaseType::Tensor;
    PointwiseInputs in = pointwise_inputs(op);
    if (has_list || in.tensors.size() > 4 || in.scalars.size() > 4) continue;  // the interpreter's limits
    std::string functor = api::functor_name(op.schema.name);
    infos.push_back(ctx.templates.render("tile_info.cpp.tmpl", {
        {"schema", op.func}, {"functor", functor}, {"schema_name", op.schema.name.str()},
        {"num_tensors", std::to_string(in.tensors.size())}, {"num_scalars", std::to_string(in.scalars.size())},
        {"tensor_operands", indices(op, in.tensors)}, {"scalar_operands", indices(op, in.scalars)},
        {"result_is_bool", op.dtype == DTypeRule::Bool ? "true" : "false"}}));
    cases.push_back("case ir::OpKind::" + api::op_id(op.schema.name) + ":\n  return &k" + functor + "Info;");
  }
  return {{"src/tile_kernels.cpp", ctx.templates.render("tile_kernels.cpp.tmpl", {{"source", ctx.source},
                                                                                  {"infos", infos},
                                                                                  {"fingerprint", pointwise_fingerprint(ctx.ops)},
                                                                                  {"cases", cases}})}};
}

}  // namespace lazygen::gen::dest
