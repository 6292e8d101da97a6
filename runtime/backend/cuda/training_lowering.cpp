// The CUDA lowerings of the training ops and amax (device_lowering.h): each calls the op API,
// whose dispatch sends the cuda operands to the eager CUDA kernel (conv_ops.cpp, pool_ops.cpp,
// loss_ops.cpp, reduce_ops.cpp). See Note [Lowered nodes on CUDA].
#include "backend/cuda/device_lowering.h"
#include "lazygen/generated/ir/_log_softmax.h"
#include "lazygen/generated/ir/_log_softmax_backward_data.h"
#include "lazygen/generated/ir/amax.h"
#include "lazygen/generated/ir/conv2d.h"
#include "lazygen/generated/ir/conv2d_backward_input.h"
#include "lazygen/generated/ir/conv2d_backward_weight.h"
#include "lazygen/generated/ir/max_pool2d.h"
#include "lazygen/generated/ir/max_pool2d_backward.h"
#include "lazygen/generated/ir/max_pool2d_with_indices.h"
#include "lazygen/generated/ir/max_pool2d_with_indices_backward.h"
#include "lazygen/generated/ir/nll_loss.h"
#include "lazygen/generated/ir/nll_loss_backward.h"
#include "lazygen/generated/ops/_dropout_mask.h"
#include "lazygen/generated/ops/_log_softmax.h"
#include "lazygen/generated/ops/_log_softmax_backward_data.h"
#include "lazygen/generated/ops/amax.h"
#include "lazygen/generated/ops/conv2d.h"
#include "lazygen/generated/ops/conv2d_backward_input.h"
#include "lazygen/generated/ops/conv2d_backward_weight.h"
#include "lazygen/generated/ops/max_pool2d.h"
#include "lazygen/generated/ops/max_pool2d_backward.h"
#include "lazygen/generated/ops/max_pool2d_with_indices.h"
#include "lazygen/generated/ops/max_pool2d_with_indices_backward.h"
#include "lazygen/generated/ops/nll_loss.h"
#include "lazygen/generated/ops/nll_loss_backward.h"

namespace lazygen::cuda {
namespace {

using exec::optional_input;
using exec::scalar_of;
using Inputs = std::vector<Tensor>;

std::vector<Tensor> lower_conv2d(const ir::Node& node, const Inputs& in) {
  const auto& n = static_cast<const ir::Conv2d&>(node);
  return {lazygen::conv2d(in[0], in[1], optional_input(in[2]), n.stride, n.padding, n.dilation,
                          n.groups)};
}

std::vector<Tensor> lower_conv2d_backward_input(const ir::Node& node, const Inputs& in) {
  const auto& n = static_cast<const ir::Conv2dBackwardInput&>(node);
  return {lazygen::conv2d_backward_input(in[0], in[1], n.input_size, n.stride, n.padding,
                                         n.dilation, n.groups)};
}

std::vector<Tensor> lower_conv2d_backward_weight(const ir::Node& node, const Inputs& in) {
  const auto& n = static_cast<const ir::Conv2dBackwardWeight&>(node);
  return {lazygen::conv2d_backward_weight(in[0], in[1], n.weight_size, n.stride, n.padding,
                                          n.dilation, n.groups)};
}

std::vector<Tensor> lower_max_pool2d_with_indices(const ir::Node& node, const Inputs& in) {
  const auto& n = static_cast<const ir::MaxPool2dWithIndices&>(node);
  auto [values, indices] = lazygen::max_pool2d_with_indices(in[0], n.kernel_size, n.stride,
                                                            n.padding, n.dilation, n.ceil_mode);
  return {values, indices};
}

std::vector<Tensor> lower_max_pool2d_with_indices_backward(const ir::Node& node, const Inputs& in) {
  const auto& n = static_cast<const ir::MaxPool2dWithIndicesBackward&>(node);
  return {lazygen::max_pool2d_with_indices_backward(in[0], in[1], n.kernel_size, n.stride,
                                                    n.padding, n.dilation, n.ceil_mode, in[2])};
}

std::vector<Tensor> lower_max_pool2d(const ir::Node& node, const Inputs& in) {
  const auto& n = static_cast<const ir::MaxPool2d&>(node);
  return {lazygen::max_pool2d(in[0], n.kernel_size, n.stride, n.padding, n.dilation, n.ceil_mode)};
}

std::vector<Tensor> lower_max_pool2d_backward(const ir::Node& node, const Inputs& in) {
  const auto& n = static_cast<const ir::MaxPool2dBackward&>(node);
  return {lazygen::max_pool2d_backward(in[0], in[1], n.kernel_size, n.stride, n.padding, n.dilation,
                                       n.ceil_mode)};
}

std::vector<Tensor> lower_log_softmax(const ir::Node& node, const Inputs& in) {
  const auto& n = static_cast<const ir::UnderscoreLogSoftmax&>(node);
  return {lazygen::_log_softmax(in[0], n.dim, n.half_to_float)};
}

std::vector<Tensor> lower_log_softmax_backward(const ir::Node& node, const Inputs& in) {
  const auto& n = static_cast<const ir::UnderscoreLogSoftmaxBackwardData&>(node);
  return {lazygen::_log_softmax_backward_data(in[0], in[1], n.dim, n.input_dtype)};
}

std::vector<Tensor> lower_nll_loss(const ir::Node& node, const Inputs& in) {
  const auto& n = static_cast<const ir::NllLoss&>(node);
  return {lazygen::nll_loss(in[0], in[1], optional_input(in[2]), n.reduction, n.ignore_index)};
}

std::vector<Tensor> lower_nll_loss_backward(const ir::Node& node, const Inputs& in) {
  const auto& n = static_cast<const ir::NllLossBackward&>(node);
  return {lazygen::nll_loss_backward(in[0], in[1], in[2], optional_input(in[3]), n.reduction,
                                     n.ignore_index)};
}

std::vector<Tensor> lower_dropout_mask(const ir::Node&, const Inputs& in) {
  return {lazygen::_dropout_mask(in[0], scalar_of(in[1]), scalar_of(in[2]))};
}

std::vector<Tensor> lower_amax(const ir::Node& node, const Inputs& in) {
  const auto& n = static_cast<const ir::Amax&>(node);
  return {lazygen::amax(in[0], n.dim, n.keepdim)};
}

}  // namespace

exec::LowerFn training_lowering_for(ir::OpKind kind) {
  switch (kind) {
    case ir::op_kind("conv2d"):
      return &lower_conv2d;
    case ir::op_kind("conv2d_backward_input"):
      return &lower_conv2d_backward_input;
    case ir::op_kind("conv2d_backward_weight"):
      return &lower_conv2d_backward_weight;
    case ir::op_kind("max_pool2d_with_indices"):
      return &lower_max_pool2d_with_indices;
    case ir::op_kind("max_pool2d_with_indices_backward"):
      return &lower_max_pool2d_with_indices_backward;
    case ir::op_kind("max_pool2d"):
      return &lower_max_pool2d;
    case ir::op_kind("max_pool2d_backward"):
      return &lower_max_pool2d_backward;
    case ir::op_kind("_log_softmax"):
      return &lower_log_softmax;
    case ir::op_kind("_log_softmax_backward_data"):
      return &lower_log_softmax_backward;
    case ir::op_kind("nll_loss"):
      return &lower_nll_loss;
    case ir::op_kind("nll_loss_backward"):
      return &lower_nll_loss_backward;
    case ir::op_kind("_dropout_mask"):
      return &lower_dropout_mask;
    case ir::op_kind("amax"):
      return &lower_amax;
    default:
      return nullptr;
  }
}

}  // namespace lazygen::cuda
