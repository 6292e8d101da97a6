// Emits the per-op parts of fusion: the backend-neutral facts of every `pointwise:` op fusion
// groups can take (operand mapping, compute dtypes) with their lookup by op kind in
// src/pointwise_facts.cpp (runtime/fusion/pointwise_facts.h), and the fused CPU interpreter's:
// the PointwiseInfo of each (tile kernels per compute dtype) in src/tile_kernels_<shard>.cpp, its
// lookup by op kind in src/tile_kernels.cpp, and the register-chain dispatcher in
// src/chain_dispatch.cpp (See Note [Register chains] in the runtime's
// backend/cpu/fusion/chain_kernels.h and Note [Op shards] in pointwise.cpp).
#include "api/cpp_types.h"
#include "api/names.h"
#include "dest/common.h"
#include "dest/emit.h"
#include "model/expr_scan.h"
#include "model/kernel_dtypes.h"
#include "model/pointwise_functions.h"

#include <cctype>
#include <map>
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

// The first register-chain case of the chainable op numbered `index` (ops.yaml's order among the
// chainable ops, so appending an op moves no other op's cases): index * kMaxTileInputs.
std::string chain_case(int index) { return std::to_string(index) + " * kMaxTileInputs"; }

// The switch cases running op `functor` with the accumulator in each tensor slot.
std::vector<std::string> chain_cases(int index, const std::string& functor, size_t tensors) {
  std::vector<std::string> cases;
  for (size_t slot = 0; slot < tensors; ++slot) {
    cases.push_back("case " + chain_case(index) + " + " + std::to_string(slot) + ":\n  return chain_step<kernels::" +
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

namespace {

// Whether the interpreter can run `op` (its limits on operands).
bool tile_op(const OpEntry& op) {
  bool has_list = false;
  for (const Argument& a : op.schema.arguments) has_list |= a.type.is_list && a.type.base == BaseType::Tensor;
  PointwiseInputs in = pointwise_inputs(op);
  return !has_list && in.tensors.size() <= 4 && in.scalars.size() <= 4;
}

bool chain_op(const OpEntry& op) {
  return tile_op(op) && !pointwise_inputs(op).tensors.empty() && chainable_expression(*op.pointwise);
}

// Numbers the chainable ops in ops.yaml's order (See chain_case).
std::map<const OpEntry*, int> chain_indices(const std::vector<OpEntry>& ops) {
  std::map<const OpEntry*, int> out;
  for (const OpEntry& op : ops) {
    if (op.pointwise && chain_op(op)) out.emplace(&op, static_cast<int>(out.size()));
  }
  return out;
}

std::string tile_info(const EmitContext& ctx, const OpEntry& op, const std::map<const OpEntry*, int>& chains) {
  auto chain = chains.find(&op);
  return ctx.templates.render(
      "tile_info.cpp.tmpl", {{"schema", op.func},
                             {"functor", api::functor_name(op.schema.name)},
                             {"chain", chain != chains.end() ? chain_case(chain->second) : "-1"}});
}

// The op's fusion::PointwiseFacts (runtime/fusion/pointwise_facts.h).
std::string pointwise_fact(const EmitContext& ctx, const OpEntry& op) {
  PointwiseInputs in = pointwise_inputs(op);
  return ctx.templates.render("pointwise_fact.cpp.tmpl",
                              {{"schema", op.func},
                               {"functor", api::functor_name(op.schema.name)},
                               {"schema_name", op.schema.name.str()},
                               {"num_tensors", std::to_string(in.tensors.size())},
                               {"num_scalars", std::to_string(in.scalars.size())},
                               {"tensor_operands", indices(op, in.tensors)},
                               {"scalar_operands", indices(op, in.scalars)},
                               {"result_is_bool", op.dtype == DTypeRule::Bool ? "true" : "false"},
                               {"dtype_mask", hex_literal(compute_dtype_mask(op))},
                               {"cheap", cheap_expression(*op.pointwise) ? "true" : "false"},
                               {"fingerprint", op_fingerprint(op)}});
}

}  // namespace

std::vector<GeneratedFile> emit_tile_kernels(const EmitContext& ctx) {
  std::vector<GeneratedFile> files;
  std::vector<std::string> declarations, cases, chain, facts, fact_cases;
  std::vector<const OpEntry*> chain_ops;
  const std::vector<std::vector<const OpEntry*>> shards = pointwise_shards(ctx.ops);
  const std::map<const OpEntry*, int> chains = chain_indices(ctx.ops);
  for (size_t k = 0; k < shards.size(); ++k) {
    std::vector<std::string> infos;
    std::vector<const OpEntry*> ops;
    for (const OpEntry* op : shards[k]) {
      if (!tile_op(*op)) continue;
      ops.push_back(op);
      infos.push_back(tile_info(ctx, *op, chains));
    }
    files.push_back({"src/tile_kernels_" + std::to_string(k) + ".cpp",
                     ctx.templates.render("tile_kernels_shard.cpp.tmpl", {{"source", ctx.source},
                                                                           {"shard", std::to_string(k)},
                                                                           {"num_shards", std::to_string(shards.size())},
                                                                           {"functor_includes", pointwise_includes(ops)},
                                                                           {"infos", infos}})});
  }
  for (const OpEntry& op : ctx.ops) {
    if (!op.pointwise || !tile_op(op)) continue;
    std::string info = "k" + api::functor_name(op.schema.name) + "Info";
    declarations.push_back("extern const PointwiseInfo " + info + ";");
    cases.push_back("case " + kind_of(op) + ":\n  return &" + info + ";");
    facts.push_back(pointwise_fact(ctx, op));
    fact_cases.push_back("case " + kind_of(op) + ":\n  return &k" +
                         api::functor_name(op.schema.name) + ";");
    auto index = chains.find(&op);
    if (index == chains.end()) continue;
    chain_ops.push_back(&op);
    for (std::string& c : chain_cases(index->second, api::functor_name(op.schema.name), pointwise_inputs(op).tensors.size())) {
      chain.push_back(std::move(c));
    }
  }
  files.push_back(
      {"src/pointwise_facts.cpp",
       ctx.templates.render("pointwise_facts.cpp.tmpl",
                            {{"source", ctx.source}, {"facts", facts}, {"cases", fact_cases}})});
  files.push_back({"src/tile_kernels.cpp", ctx.templates.render("tile_kernels.cpp.tmpl", {
                                               {"source", ctx.source},
                                               {"declarations", declarations},
                                               {"cases", cases}})});
  files.push_back({"src/chain_dispatch.cpp", ctx.templates.render("chain_dispatch.cpp.tmpl", {
                                                {"source", ctx.source},
                                                {"functor_includes", pointwise_includes(chain_ops)},
                                                {"chain_cases", chain}})});
  return files;
}

}  // namespace lazygen::gen::dest
