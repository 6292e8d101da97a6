// Node classification for the fusion planner (node_traits.h).
#include "fusion/node_traits.h"

#include <array>
#include <optional>

#include "core/ir/builtin_nodes.h"
#include "core/tensor/shape_rules.h"
#include "lazygen/generated/ir/amax.h"
#include "lazygen/generated/ir/mean_dim.h"
#include "lazygen/generated/ir/sum.h"
#include "lazygen/generated/ir/sum_dim_intlist.h"

namespace lazygen::fusion {
namespace {

// A Scalar of the category a ScalarParam's 0-dim shape records (its value is not known here).
Scalar scalar_of_category(DType category) {
  switch (category) {
    case DType::Bool:
      return Scalar(false);
    case DType::Float32:
    case DType::Float64:
      return Scalar(0.0);
    case DType::Int32:
    case DType::Int64:
      break;
  }
  return Scalar(int64_t{0});
}

// See Note [Fused compute dtype].
std::optional<DType> compute_dtype(const exec::Graph& graph, size_t i, const PointwiseFacts& info) {
  const ir::Node& node = graph.node(i);
  const DType out = node.shape(0).dtype;
  if (info.num_tensors == 0) {
    return info.computes_in(out) ? std::optional<DType>(out) : std::nullopt;
  }
  std::array<const Shape*, kMaxPointwiseTensors> tensors{};
  std::array<Scalar, kMaxPointwiseScalars> scalars{};
  std::array<const Scalar*, kMaxPointwiseScalars> scalar_ptrs{};
  auto operand_shape = [&](int operand) -> const Shape& {
    const exec::ValueRef r = graph.operands(i)[static_cast<size_t>(operand)];
    return graph.node(r.node).shape(r.output);
  };
  for (int k = 0; k < info.num_tensors; ++k) tensors[k] = &operand_shape(info.tensor_operand[k]);
  for (int k = 0; k < info.num_scalars; ++k) {
    scalars[k] = scalar_of_category(operand_shape(info.scalar_operand[k]).dtype);
    scalar_ptrs[k] = &scalars[k];
  }
  DType c =
      shape_rules::result_type({tensors[0], tensors[1], tensors[2], tensors[3]},
                               {scalar_ptrs[0], scalar_ptrs[1], scalar_ptrs[2], scalar_ptrs[3]});
  if (is_floating(out) && !is_floating(c)) c = to_floating(c);
  if (!info.computes_in(c)) return std::nullopt;
  if (out == c || (out == DType::Bool && info.result_is_bool)) return c;
  return std::nullopt;
}

// Scalar operands arrive as values at execution only when they are ScalarParam nodes.
bool scalars_are_params(const exec::Graph& graph, size_t i, const PointwiseFacts& info) {
  for (int k = 0; k < info.num_scalars; ++k) {
    const exec::ValueRef r = graph.operands(i)[static_cast<size_t>(info.scalar_operand[k])];
    if (!r.present() || graph.node(r.node).op() != ir::op_kind("scalar_param")) return false;
  }
  for (int k = 0; k < info.num_tensors; ++k) {
    if (!graph.operands(i)[static_cast<size_t>(info.tensor_operand[k])].present()) return false;
  }
  return true;
}

struct ReductionAttrs {
  ReduceOp op;
  std::optional<std::vector<int64_t>> dims;
  std::optional<DType> dtype;
};

std::optional<ReductionAttrs> reduction_attrs(const ir::Node& node) {
  switch (node.op()) {
    case ir::op_kind("sum"):
      return ReductionAttrs{ReduceOp::Sum, std::nullopt, static_cast<const ir::Sum&>(node).dtype};
    case ir::op_kind("sum.dim_IntList"): {
      const auto& n = static_cast<const ir::SumDimIntlist&>(node);
      return ReductionAttrs{ReduceOp::Sum, n.dim, n.dtype};
    }
    case ir::op_kind("mean.dim"): {
      const auto& n = static_cast<const ir::MeanDim&>(node);
      return ReductionAttrs{ReduceOp::Mean, n.dim, n.dtype};
    }
    case ir::op_kind("amax"):
      return ReductionAttrs{ReduceOp::Amax, static_cast<const ir::Amax&>(node).dim, std::nullopt};
    default:
      return std::nullopt;
  }
}

// A reduction a group can fold: computed in its input's dtype (no conversion on either side),
// over a non-empty input (empty reductions keep the eager kernels' rules and errors).
bool classify_reduction(const exec::Graph& graph, size_t i, NodeTraits& traits) {
  const ir::Node& node = graph.node(i);
  std::optional<ReductionAttrs> attrs = reduction_attrs(node);
  if (!attrs) return false;
  const exec::ValueRef in = graph.operands(i)[0];
  const Shape& x = graph.node(in.node).shape(in.output);
  const DType t = x.dtype;
  if (node.shape(0).dtype != t || (attrs->dtype && *attrs->dtype != t)) return false;
  if (t == DType::Bool || (attrs->op == ReduceOp::Mean && !is_floating(t))) return false;
  if (x.numel() == 0) return false;
  traits.kind = NodeKind::Reduction;
  traits.compute = t;
  traits.reduce_op = attrs->op;
  traits.reduced = shape_rules::reduced_dims(ir::op_kind_name(node.op()), x.dim(), attrs->dims);
  return true;
}

}  // namespace

bool recomputes_cheaply(ir::OpKind kind) {
  return is_view_kind(kind) || pointwise_facts(kind) != nullptr;
}

bool is_view_kind(ir::OpKind kind) {
  switch (kind) {
    case ir::op_kind("view"):
    case ir::op_kind("reshape"):
    case ir::op_kind("flatten.using_ints"):
    case ir::op_kind("narrow"):
    case ir::op_kind("permute"):
    case ir::op_kind("transpose.int"):
    case ir::op_kind("t"):
    case ir::op_kind("expand"):
    case ir::op_kind("slice.Tensor"):
    case ir::op_kind("select.int"):
    case ir::op_kind("squeeze.dim"):
    case ir::op_kind("unsqueeze"):
      return true;
    default:
      return false;
  }
}

NodeTraits classify(const exec::Graph& graph, size_t i) {
  NodeTraits traits;
  const ir::OpKind kind = graph.node(i).op();
  if (ir::is_input(kind)) {
    traits.kind = NodeKind::Input;
  } else if (is_view_kind(kind)) {
    traits.kind = NodeKind::View;
  } else if (const PointwiseFacts* info = pointwise_facts(kind)) {
    std::optional<DType> c =
        scalars_are_params(graph, i, *info) && graph.node(i).shape(0).dim() <= kMaxGroupDims
            ? compute_dtype(graph, i, *info)
            : std::nullopt;
    if (c) {
      traits.kind = NodeKind::Pointwise;
      traits.compute = *c;
      traits.pointwise = info;
      traits.cheap = info->cheap;
    }
  } else {
    classify_reduction(graph, i, traits);
  }
  return traits;
}

}  // namespace lazygen::fusion
