// Reusing a fusion plan for a graph of the same structure with other sizes (See Note [Dynamic
// shapes] in backend/graph.h).
//
// Note [Specializing a fusion plan]
// The planner's decisions (which nodes fuse, what is recomputed, which views are index maps,
// which reductions fold, the schedule and what is stored) depend on sizes only where it
//   - compares sizes: a node joins a group of its sizes, a value is recomputed for a reader of
//     its sizes, a member is read in place through a view only when the view is an identity;
//   - skips size-1 dims, to judge whether a reduction folds and how;
//   - asks a view's kernel for the view's layout (which may refuse it);
//   - treats empty tensors apart (their reductions run eagerly).
// rebind_plan keeps every decision and checks each of these again at the new sizes: it
// recomputes every view's layout (a view that no longer resolves fails), each group's
// iteration space (every member must still have it) and inputs (at most kMaxGroupInputs), that
// a member read in place through a view is still an identity, and that a folded reduction still
// folds its way. A comparison that no longer holds where the plan did not rely on it (sizes that
// were different and are now equal, a batch of 10 beside 10 classes) only means the plan fuses
// less than a new one might. SizeClasses keeps which sizes are zero, and the node kinds, which
// must not change. The compiler then re-derives group programs, in-place outputs and the memory
// plan from the rebound plan, in O(nodes): no planning. Whatever fails, the executor compiles.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "backend/graph.h"
#include "fusion/fusion_plan.h"

namespace lazygen::fusion {

// What a graph of the same structure must keep for a plan to be rebound to it: the node kinds
// (against structure hash collisions) and which of its sizes (every output size of every node,
// in post-order) are zero.
class SizeClasses {
 public:
  SizeClasses() = default;
  explicit SizeClasses(const exec::Graph& graph);
  bool admits(const exec::Graph& graph) const;

 private:
  std::vector<ir::OpKind> kinds_;
  std::vector<bool> zero_;
};

// The plan `plan` (made for a graph of graph's structure whose SizeClasses admit `graph`) for
// `graph`'s sizes, or nullopt when it does not serve them. See the Note.
std::optional<FusionPlan> rebind_plan(const FusionPlan& plan, const exec::Graph& graph);

}  // namespace lazygen::fusion
