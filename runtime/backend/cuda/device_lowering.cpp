// Lowered nodes on cuda tensors (device_lowering.h). See Note [Lowered nodes on CUDA].
#include "backend/cuda/device_lowering.h"

#include "core/dispatch.h"
#include "fusion/node_traits.h"
#include "lazygen/generated/ir/mean_dim.h"
#include "lazygen/generated/ir/sum.h"
#include "lazygen/generated/ir/sum_dim_intlist.h"

namespace lazygen::cuda {
namespace {

using exec::scalar_of;

std::vector<Tensor> lower_mm(const ir::Node&, const std::vector<Tensor>& in) {
  return {in[0].mm(in[1])};
}

std::vector<Tensor> lower_addmm(const ir::Node&, const std::vector<Tensor>& in) {
  return {in[0].addmm(in[1], in[2], scalar_of(in[3]), scalar_of(in[4]))};
}

std::vector<Tensor> lower_bmm(const ir::Node&, const std::vector<Tensor>& in) {
  return {in[0].bmm(in[1])};
}

std::vector<Tensor> lower_sum(const ir::Node& node, const std::vector<Tensor>& in) {
  return {in[0].sum(static_cast<const ir::Sum&>(node).dtype)};
}

std::vector<Tensor> lower_sum_dim(const ir::Node& node, const std::vector<Tensor>& in) {
  const auto& n = static_cast<const ir::SumDimIntlist&>(node);
  return {in[0].sum(n.dim, n.keepdim, n.dtype)};
}

std::vector<Tensor> lower_mean_dim(const ir::Node& node, const std::vector<Tensor>& in) {
  const auto& n = static_cast<const ir::MeanDim&>(node);
  return {in[0].mean(n.dim, n.keepdim, n.dtype)};
}

}  // namespace

exec::LowerFn device_lowering_for(const ir::Node& node) {
  switch (node.op()) {
    case ir::op_kind("mm"):
      return &lower_mm;
    case ir::op_kind("addmm"):
      return &lower_addmm;
    case ir::op_kind("bmm"):
      return &lower_bmm;
    case ir::op_kind("sum"):
      return &lower_sum;
    case ir::op_kind("sum.dim_IntList"):
      return &lower_sum_dim;
    case ir::op_kind("mean.dim"):
      return &lower_mean_dim;
    default:
      break;
  }
  if (exec::LowerFn fn = training_lowering_for(node.op())) return fn;
  if (fusion::is_view_kind(node.op()) &&
      detail::has_device_kernel(DeviceType::CUDA, ir::op_kind_name(node.op()))) {
    return exec::lowering_for(node.op());
  }
  return nullptr;
}

}  // namespace lazygen::cuda
