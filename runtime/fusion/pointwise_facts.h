// What a fusing backend needs to know about a `pointwise:` op of ops.yaml, apart from any
// backend's kernels: which of the node's operands feed the op's scalar functor as tensors and
// which as Scalars, the dtypes the functor computes in, and whether it is cheap enough to
// recompute. The generator emits one record per op the fusion groups can take
// (generated/src/pointwise_facts.cpp); the cpu backend binds its tile kernels to the same ops
// (backend/cpu/fusion/tile_kernels.h), the CUDA backend its kernel sources.
//
// Thread safety: the records are immutable.
#pragma once

#include <array>
#include <cstdint>

#include "core/ir/node.h"
#include "lazygen/dtype.h"

namespace lazygen::fusion {

inline constexpr int kMaxPointwiseTensors = 4;  // functor tensor parameters a group op may have
inline constexpr int kMaxPointwiseScalars = 4;  // ... Scalar parameters

// The dtypes a fusion group computes in (its tiles hold one of them): not bool, whose
// comparisons compute in their operands' dtype (See Note [Fused compute dtype]).
inline constexpr unsigned kGroupDTypes = dtype_bit(DType::Float32) | dtype_bit(DType::Float64) |
                                         dtype_bit(DType::Int64) | dtype_bit(DType::Int32);

struct PointwiseFacts {
  const char* schema_name = "";
  int num_tensors = 0;                                        // functor tensor parameters
  int num_scalars = 0;                                        // functor Scalar parameters
  std::array<int8_t, kMaxPointwiseTensors> tensor_operand{};  // node operand index of each
  std::array<int8_t, kMaxPointwiseScalars> scalar_operand{};
  bool result_is_bool = false;  // comparisons: the value is 0/1 in T, cast at the group's edge
  unsigned dtypes = 0;          // the functor's kDTypes: the dtype_bit()s it computes in
  // Calls no expensive function (See Note [Pointwise functions] in the generator's
  // model/pointwise_functions.h): the fusion planner may recompute the value instead of storing it.
  bool cheap = true;
  // What AOT kernels running this op were generated for (See ops_fingerprint in
  // backend/cpu/fusion/aot_kernel.h).
  const char* fingerprint = "";

  // Whether a group computing in `t` can take the op: every fusing backend has its kernel in
  // each such dtype.
  constexpr bool computes_in(DType t) const { return (dtypes & kGroupDTypes & dtype_bit(t)) != 0; }
};

// The facts of a pointwise op kind, or nullptr for ops that are not pointwise or that no group
// can take (a tensor-list operand, more than four tensors or Scalars). Generated.
const PointwiseFacts* pointwise_facts(ir::OpKind kind);

}  // namespace lazygen::fusion
