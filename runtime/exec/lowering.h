// Lowering: how one IR node runs as eager CPU work, the contract between the generated lowering
// table (generated/src/lowering_<shard>.cpp, looked up in lowering.cpp) and the cpu-lowering
// backend (backend/cpu/lowering_backend.h).
//
// A LowerFn receives the node (static_cast it to its class, e.g. ir::AddTensor, to read
// attributes) and `inputs`, the node's operands materialized as cpu tensors in operand order: an
// absent optional operand is an undefined Tensor, a ScalarParam operand a 0-dim tensor holding
// its value (read it with scalar_of; never read ScalarParam::value(), see backend/backend.h).
// It returns one tensor per node output, with exactly that output's shape, and must not write
// its inputs (lazy tensors share buffers).
#pragma once

#include <optional>
#include <vector>

#include "core/ir/node.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen::exec {

using LowerFn = std::vector<Tensor> (*)(const ir::Node& node, const std::vector<Tensor>& inputs);

// The lowering of `kind`; nullptr for kinds without one (device_data and scalar_param are fed,
// not computed). Defined by the generator, one case per op of ops.yaml.
LowerFn lowering_for(ir::OpKind kind);

// An optional tensor operand as a kernel's `Tensor?` argument: nullopt for an absent operand
// (which arrives as an undefined Tensor).
inline std::optional<Tensor> optional_input(const Tensor& t) {
  return t.defined() ? std::optional<Tensor>(t) : std::nullopt;
}

struct Input;  // backend/backend.h

// An execute() input as a LowerFn operand: the tensor, or a scalar as a 0-dim tensor of its dtype
// category (what scalar_of reads back).
Tensor input_as_tensor(const Input& input);

// The value of a one-element tensor as a Scalar of its dtype category (what a ScalarParam
// operand arrives as). Throws std::invalid_argument unless `t` is a cpu tensor of one element.
Scalar scalar_of(const Tensor& t);

}  // namespace lazygen::exec
