// Emits src/tile_kernels.cpp: the PointwiseInfo of every `pointwise:` op (operand mapping and
// tile kernels per compute dtype) for the fused CPU interpreter, and the register-chain
// dispatcher (See Note [Register chains] in the runtime's backend/cpu/fusion/chain_kernels.h).
#include "api/cpp_types.h"
#include "api/names.h"
#include "dest/common.h"
#include "dest/emit.h"
#include "model/pointwise_functions.h"
#include "model/expr_scan.h"

#include <cctype>
#include <set>

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

bool chainable_call(const std::string& name) {
  const PointwiseFunction* f = find_pointwise_function(name);
  return f != nullptr && f->chainable;
}

// No call of an expensive function: the fusion planner may recompute the op's value.
bool cheap_expression(std::string_view expr) {
  for (const ExprIdent& id : scan_identifiers(expr)) {
    const PointwiseFunction* f = id.is_call ? find_pointwise_function(id.name) : nullptr;
    if (f != nullptr && f->expensive) return false;
  }
  return true;
}

// Characters outside names and numbers: the operators Lanes has, and `!` only in `!=`.
bool chainable_punctuation(std::string_view e, size_t i) {
  const char c = e[i];
  if (c == '!') return i + 1 < e.size() && e[i + 1] == '=';
  return std::string_view("+-*/()<>=, \t\n").find(c) != std::string_view::npos;
}

// The switch cases running op `functor` with the accumulator in each tensor slot, from `first`.
std::vector<std::string> chain_cases(const std::string& functor, int first, size_t tensors) {
  std::vector<std::string> cases;
  for (size_t slot = 0; slot < tensors; ++slot) {
    cases.push_back("case " + std::to_string(first + static_cast<int>(slot)) + ":\n  return chain_step<kernels::" +
                    functor + ", T, " + std::to_string(slot) + ">(s, acc, i);");
  }
  return cases;
}

}  // namespace

bool chainable_expression(std::string_view expr) {
  for (size_t i = 0; i < expr.size();) {
    const auto c = static_cast<unsigned char>(expr[i]);
    if (std::isalnum(c) || c == '_') {
      size_t end = i;
      while (end < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[end])) || expr[end] == '_')) ++end;
      // A number must be all digits: no suffix (1u, 2f), no exponent, no hex.
      if (std::isdigit(c) && expr.substr(i, end - i).find_first_not_of("0123456789") != std::string_view::npos) {
        return false;
      }
      i = end;
    } else if (chainable_punctuation(expr, i)) {
      i += c == '!' ? 2 : 1;
    } else {
      return false;  // `.` (floating literals, members), `?:`, `%`, bitwise and logical operators, ...
    }
  }
  for (const ExprIdent& id : scan_identifiers(expr)) {
    if (id.is_member || (id.is_call && !chainable_call(id.name))) return false;
  }
  return true;
}

std::vector<GeneratedFile> emit_tile_kernels(const EmitContext& ctx) {
  std::vector<std::string> infos, cases, chain;
  for (const OpEntry& op : ctx.ops) {
    if (!op.pointwise) continue;
    bool has_list = false;
    for (const Argument& a : op.schema.arguments) has_list |= a.type.is_list && a.type.base == BaseType::Tensor;
    PointwiseInputs in = pointwise_inputs(op);
    if (has_list || in.tensors.size() > 4 || in.scalars.size() > 4) continue;  // the interpreter's limits
    std::string functor = api::functor_name(op.schema.name);
    int first_case = -1;
    if (!in.tensors.empty() && chainable_expression(*op.pointwise)) {
      first_case = static_cast<int>(chain.size());
      for (std::string& c : chain_cases(functor, first_case, in.tensors.size())) chain.push_back(std::move(c));
    }
    infos.push_back(ctx.templates.render("tile_info.cpp.tmpl", {
        {"schema", op.func}, {"functor", functor}, {"schema_name", op.schema.name.str()},
        {"num_tensors", std::to_string(in.tensors.size())}, {"num_scalars", std::to_string(in.scalars.size())},
        {"tensor_operands", indices(op, in.tensors)}, {"scalar_operands", indices(op, in.scalars)},
        {"result_is_bool", op.dtype == DTypeRule::Bool ? "true" : "false"},
        {"chain", std::to_string(first_case)},
        {"cheap", cheap_expression(*op.pointwise) ? "true" : "false"}}));
    cases.push_back("case ir::OpKind::" + api::op_id(op.schema.name) + ":\n  return &k" + functor + "Info;");
  }
  return {{"src/tile_kernels.cpp", ctx.templates.render("tile_kernels.cpp.tmpl", {{"source", ctx.source},
                                                                                  {"infos", infos},
                                                                                  {"fingerprint", pointwise_fingerprint(ctx.ops)},
                                                                                  {"cases", cases},
                                                                                  {"chain_cases", chain}})}};
}

}  // namespace lazygen::gen::dest
