// A fusion group as a backend-neutral dataflow program: what every fusing backend compiles from
// (the cpu backend into a GroupProgram of tile kernels and registers, the CUDA backend into one
// kernel's source), and what a group's key names (group_key.h).
//
// Loads read the group's inputs over the collapsed iteration space `dims` (outermost first, at
// least one dim); ops are the group's members in evaluation order, each reading loads, earlier
// ops' values and Scalar operands (`scalar_nodes`, in first-use order); outputs are the members
// the group stores, each the value of one op; a folded reduction reduces one value. Nothing here
// says where a value lives or how many elements run at once: that is each backend's choice.
//
// Thread safety: immutable after describe_group.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fusion/fusion_plan.h"

namespace lazygen::fusion {

// What a group computes over: its dtype, iteration space, Scalar operands and folded reduction.
// Shared by the backend-neutral GroupSpec and each backend's compiled form of it (the cpu
// backend's GroupProgram), which add their own loads, ops and outputs.
struct GroupFrame {
  DType dtype = DType::Float32;  // T: every op computes in T
  int64_t numel = 0;
  std::vector<int64_t> dims;           // collapsed iteration space, outermost first (>= 1 dim)
  std::vector<int64_t> load_strides;   // loads x dims.size(), elements
  std::vector<uint32_t> scalar_nodes;  // ScalarParam graph positions, as ops' scalar indexes

  // The folded reduction, if any (See Note [Folded reduction layouts]). Trailing: each of
  // numel / reduce_run outputs reduces reduce_run consecutive elements of the row-major
  // iteration, and no collapsed dim mixes kept and reduced dims. Leading: element e goes to
  // output e % reduce_inner, so each of the reduce_inner outputs reduces
  // reduce_run = numel / reduce_inner elements; dims collapse freely.
  bool has_reduction = false;
  ReduceOp reduce_op = ReduceOp::Sum;
  ReduceLayout reduce_layout = ReduceLayout::Trailing;
  uint32_t reduce_node = 0;
  int64_t reduce_run = 0;    // elements per output (the divisor of a mean)
  int64_t reduce_inner = 1;  // Leading: the number of outputs
};

struct GroupSpec : GroupFrame {
  // An operand: load `index`, or the value of op `index`.
  struct Ref {
    bool is_load = false;
    uint32_t index = 0;
    bool operator==(const Ref&) const = default;
  };
  struct Load {
    uint32_t input = 0;  // index into Group::inputs
    int64_t offset = 0;  // elements from the base's start (slices, selects)
    DType dtype = DType::Float32;
  };
  struct Op {
    uint32_t node = 0;  // the member's graph position
    const PointwiseFacts* facts = nullptr;
    uint8_t num_in = 0;
    uint8_t num_scalars = 0;
    std::array<Ref, kMaxPointwiseTensors> in{};
    std::array<uint16_t, kMaxPointwiseScalars> scalar{};  // indices into scalar_nodes
  };
  struct Output {
    uint32_t node = 0;  // the member's graph position
    DType dtype = DType::Float32;
    uint32_t op = 0;  // the op whose value it stores (the member's own)
  };

  std::vector<Load> loads;
  std::vector<Op> ops;
  std::vector<Output> outputs;
  Ref reduce_from;  // the value the folded reduction reduces

  // Per op: the index of the last op that reads its value (ops.size() for the reduction; its
  // own index when nothing in the group reads it).
  std::vector<uint32_t> last_uses() const;
  // Per op: the output that stores its value, or -1.
  std::vector<int32_t> output_of_ops() const;
};

// Group `g` of `plan` as a GroupSpec. Throws std::logic_error on a plan it cannot express (a bug).
GroupSpec describe_group(const exec::Graph& graph, const FusionPlan& plan, uint32_t g);

}  // namespace lazygen::fusion
