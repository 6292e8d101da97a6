// What the fusion planner needs to know about one node of a compiled graph: is it an input, a
// view (an index map, not a copy), a pointwise op a fusion group can compute (and in which
// dtype), a reduction it can fold, or something that runs through the lowering table.
//
// Note [Fused compute dtype]
// The eager kernel of a pointwise op computes in its compute dtype C (PyTorch's result type of
// its operands, made floating for `dtype: float` ops) and casts the result to the output dtype.
// A fusion group computes every member in one dtype T held in tile buffers, so a node may join a
// group only where that changes nothing: C == T and the output dtype is T, or the output is bool
// and the op is a comparison (its 0/1 result is exact in T and cast to bool at the group's
// edge). C is derived from operand shapes and scalar categories alone (scalar values are not
// known at compile time, their categories are), so the group computes bit for bit what eager
// computes. Ops without tensor inputs (fill_, zero_) compute in their output dtype; their value
// is a scalar converted once, which is the same in every dtype wide enough to hold it.
// Scalars reach tile kernels in their own category and are converted as eager converts them
// (See Note [Exact tile scalars]), so int64 scalars beyond 2^53 stay exact too.
//
// Thread safety: pure functions of the graph.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/graph.h"
#include "fusion/pointwise_facts.h"

namespace lazygen::fusion {

// Pointwise nodes of higher rank run through the lowering table (the interpreter keeps one
// index per dim on the stack).
inline constexpr int kMaxGroupDims = 16;

enum class NodeKind : uint8_t {
  Input,      // DeviceData or ScalarParam: fed at execution
  View,       // view, reshape, flatten, permute, transpose, t, expand, slice, narrow, select,
              // squeeze, unsqueeze
  Pointwise,  // its functor computes in a group dtype (See Note [Fused compute dtype])
  Reduction,  // sum, sum.dim_IntList, mean.dim, amax that a group may fold as its last step
  Library,    // everything else: runs through exec::lowering_for
};

enum class ReduceOp : uint8_t { Sum, Mean, Amax };

// Which elements of a group's row-major iteration a folded reduction's output takes; See Note
// [Folded reduction layouts] in fusion_plan.h.
enum class ReduceLayout : uint8_t {
  Trailing,  // reduced dims a suffix: output o takes a run of consecutive elements (x.sum(-1))
  Leading,   // reduced dims a prefix: element e goes to output e mod inner (x.sum(0))
};

struct NodeTraits {
  NodeKind kind = NodeKind::Library;
  DType compute = DType::Float32;             // Pointwise, Reduction: the dtype it computes in
  const PointwiseFacts* pointwise = nullptr;  // Pointwise
  ReduceOp reduce_op = ReduceOp::Sum;         // Reduction
  std::vector<bool> reduced;                  // Reduction: per input dim, reduced or not
  bool cheap = false;                         // Pointwise: worth recomputing instead of storing
};

// The traits of node `i` of `graph`.
NodeTraits classify(const exec::Graph& graph, size_t i);

// True for the view kinds listed above.
bool is_view_kind(ir::OpKind kind);

// True for kinds a fusing backend recomputes inside a group for no more than storing and
// reloading their value costs: views and pointwise ops with facts (Backend::recomputes_cheaply).
bool recomputes_cheaply(ir::OpKind kind);

}  // namespace lazygen::fusion
