// The fusion planner: which nodes of a compiled graph run together as one fusion group in the
// blocked vector interpreter, which run alone through the lowering table, and in what order.
//
// A group is a chain of pointwise nodes of one compute dtype over one iteration space (their
// output sizes), with broadcast operands, plus at most one terminal reduction folded per tile.
// Its inputs are values it reads but does not compute: graph inputs, outputs of library steps
// and of earlier groups, each read in place through an index map (views and broadcasts; See
// Note [Views as index maps]). A group member is materialized (written to memory) only when
// something outside the group needs it; several members may be. See Note [Greedy fusion].
//
// Note [Greedy fusion]
// The planner sweeps the post-order once with at most one open group. A pointwise node joins
// it when it has the group's dtype and sizes, reads group members only in place (not through a
// view that reorders them) and the budgets allow; otherwise the open group ends and the node
// starts a new one. A library node that reads the open group ends it first (the group runs, then
// the library op); one that does not leaves it open, so the group runs after it. A foldable
// reduction of a member ends the group as its last step (or joins an ended group; See Note
// [Late folds]). Each group therefore runs at the point where it ended, after everything it
// reads, and the schedule needs no cycle check.
// Why each group ended is recorded (EndReason): the dump and the `fusion.end.*` counters show it.
//
// Note [Late folds]
// A foldable reduction whose input is a member of a group that has already ended (and folds
// nothing yet) joins that group as its last step: a reduction reads nothing but its input, so
// computing it where the group runs, earlier than its own place in the post-order, is as valid,
// and it saves reading the input back from memory (or storing it at all). Autograd needs this:
// the backward of a linear layer reads the group computing its output's gradient g from mm
// (the weight gradient) and the optimizer's update before g.sum(0), the bias gradient, comes in
// the post-order. Groups that store graph outputs are left alone, since they may update tensors
// in place and groups that reduce never do (in_place.h). The dump marks such reductions
// "folded late"; the group keeps the reason it ended with, and fusion.late_folds counts them.
//
// Note [Folded reduction layouts]
// A reduction folds when, size-1 dims aside, its reduced dims of the group's sizes are a suffix
// (Trailing: sum(-1), a full sum; each output reduces `run` consecutive elements of the
// row-major iteration) or a prefix (Leading: a bias gradient's sum(0), mean over {0, 1} of
// [N, C, K]; element e goes to output e mod `inner`, the product of the kept dims). Both keep
// the output contiguous in the iteration's order, with keepdim or without. A reduction that
// keeps a middle dim (a conv bias's [N, C, H, W] -> [C]) reduces neither a run nor a stride
// pattern one accumulator vector can follow, and runs through the lowering table. Leading
// folds end the group with their own reason (leading_reduction), so the counters tell them
// apart. The CUDA backend takes the same plans: it stores a folded reduction's input and runs
// the eager reduction over it (group_kernel_source.h), whatever the layout.
//
// Note [Recompute instead of materialize]
// A member V of an ended group that a later group reads would cost a store and a load. When V
// is one cheap pointwise op (not transcendental) over values that are materialized anyway (graph
// inputs, library outputs), of the reader's dtype and sizes, not a graph output, and every user
// of V is a pointwise node or a reduction (others need V in memory anyway), the reading group
// computes V again from V's own inputs instead, and V is stored only if some user still needs it
// in memory; a member nobody reads any more is dropped from its group.
//
// Thread safety: plan_fusion is a pure function of the graph.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/graph.h"
#include "fusion/index_map.h"
#include "fusion/node_traits.h"

namespace lazygen::fusion {

inline constexpr uint32_t kNone = UINT32_MAX;
inline constexpr int kMaxGroupInputs = 16;  // distinct (buffer, index map) reads per group

struct Budgets {
  int max_nodes = 256;  // pointwise members, recomputed ones included
  int max_inputs = kMaxGroupInputs;
  int max_scalars = 256;
  // A foldable reduction of a value no group computes (a graph input, a library op's output)
  // becomes a group of its own with no members, so that it can join a row band (See Note [Row
  // bands]); otherwise the eager kernel runs it.
  bool reduce_inputs = true;
};

enum class EndReason : uint8_t {
  EndOfGraph,        // nothing left to fuse
  NodeBudget,        // the next node would exceed Budgets::max_nodes
  InputBudget,       // ... Budgets::max_inputs
  ScalarBudget,      // ... Budgets::max_scalars
  DTypeChange,       // the next pointwise node computes in another dtype
  ShapeChange,       // the next pointwise node has other sizes
  ViewOfGroupValue,  // the next pointwise node reads a member through a reordering view
  LibraryConsumer,   // a node without a tile kernel reads a member
  Reduction,         // a reduction over trailing dims was folded as the last step
  LeadingReduction,  // ... over leading dims (See Note [Folded reduction layouts])
};
inline constexpr int kNumEndReasons = 10;
// "end_of_graph", "node_budget", ...: the dump's words and the counter suffixes.
const char* end_reason_name(EndReason reason);

// A value read by a group: `base`'s buffer through `layout` broadcast to the group's sizes.
struct GroupInput {
  exec::ValueRef base;
  Layout layout;  // over base's contiguous buffer
};

struct Group {
  DType dtype = DType::Float32;
  std::vector<int64_t> sizes;     // the iteration space: every member's output sizes
  std::vector<uint32_t> members;  // pointwise nodes in evaluation order, recomputed ones included
  std::vector<uint32_t> recomputed;                     // members owned by an earlier group
  uint32_t reduction = kNone;                           // the folded reduction node
  ReduceLayout reduce_layout = ReduceLayout::Trailing;  // when it folds one
  bool late_fold = false;  // the reduction joined after the group ended (Note [Late folds])
  std::vector<GroupInput> inputs;
  int num_scalars = 0;
  EndReason end = EndReason::EndOfGraph;
};

// A step of the schedule: run group `index`, or run node `index` through its lowering.
struct Step {
  enum class Kind : uint8_t { Group, Lower };
  Kind kind;
  uint32_t index;
};

// How a node's value is available to the steps after the one that computes it.
enum class Materialization : uint8_t {
  None,    // not materialized: read only inside its group (or recomputed)
  Arena,   // a planned buffer, read only by later groups (See memory_plan.h)
  Tensor,  // a tensor: a graph output, or read by a lowered step
};

// Consecutive schedule steps, all groups, that run row block by row block (See Note [Row bands]).
struct Band {
  uint32_t first = 0;  // schedule positions [first, last]
  uint32_t last = 0;
  int64_t rows = 0;            // every member's iteration splits into `rows` equal row ranges
  int64_t rows_per_block = 0;  // rows a thread runs through every member before the next block
  int64_t parts =
      0;  // with a Leading reduction: its row parts, which threads take instead of blocks
};

struct FusionPlan {
  std::vector<NodeTraits> traits;        // per node
  std::vector<uint32_t> group_of;        // per node: owning group, kNone if none
  std::vector<Materialization> storage;  // per node (all outputs of a multi-output node alike)
  std::vector<GroupInput> resolved;      // per node: for a view with an index map, base and layout
  // Every group formed; one whose members were all dropped as dead (each reader recomputes them)
  // and that folds no reduction has no step in the schedule (See Planner::unschedule_empty_groups).
  std::vector<Group> groups;
  std::vector<Step> schedule;
  std::vector<Band> bands;  // in schedule order, disjoint
};

FusionPlan plan_fusion(const exec::Graph& graph, const Budgets& budgets = {});

// Whether group `g` computes anything (members or a folded reduction), i.e. has a schedule step.
bool runs(const Group& g);

// Whether a reduction over `reduced` (per dim) of a group of `sizes` folds with `layout` (See
// Note [Folded reduction layouts]).
bool folds_as(const std::vector<bool>& reduced, const std::vector<int64_t>& sizes,
              ReduceLayout layout);

// A readable account of a plan: each step in order; for a group its dtype, sizes, members
// (materialized ones marked, recomputed ones too), inputs with their access kind, and why it
// ended. Node names are post-order positions (%3) as in exec::Graph.
std::string dump_plan(const exec::Graph& graph, const FusionPlan& plan);

// Adds a plan's statistics to the metrics: fusion.groups, fusion.group_nodes,
// fusion.recomputed, fusion.lowered_steps, fusion.late_folds, fusion.end.<reason> per group and
// fusion.bands (row bands).
void record_plan_metrics(const FusionPlan& plan);

}  // namespace lazygen::fusion
