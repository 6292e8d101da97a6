// The autograd engine: runs the backward functions reachable from a root, in reverse creation
// order, delivering each function's gradients to the functions its edges point at.
//
// One pass (run_backward):
//   1. The graph reachable from the root's gradient edge is walked once to count, per function,
//      how many edges point at it (its dependencies), and to reject functions whose saved
//      tensors an earlier pass released (before any gradient is accumulated).
//   2. A function is ready when all its dependencies delivered; ready functions run latest
//      sequence_nr first (a priority queue), so a function runs after every function created
//      after it that feeds it.
//   3. A function's inputs are summed per output slot (gradients reaching one output along
//      several paths, e.g. a diamond, are added) and passed to apply(), with grad mode off.
//      A function none of whose outputs received a gradient is skipped.
//   4. Each gradient apply() returns is made to match the input it is for: summed to
//      input_shapes[i] when broadcasting widened it (sum_to), cast to its dtype.
//   5. Without retain_graph, each function releases its saved tensors after it ran and is marked
//      released; leaves' accumulators are never released.
//
// Everything is done with the op API, so on the lazy device the pass only traces.
// Thread safety: one pass at a time per graph; concurrent passes over disjoint graphs are fine.
#pragma once

#include "lazygen/tensor.h"

namespace lazygen::autograd {

// Backpropagates `gradient` (of root's sizes; undefined means 1 and requires root to have one
// element) from `root` into the grad() of every leaf requiring grad that root depends on.
// Throws std::runtime_error when root does not require grad, when the gradient cannot be
// implicitly created or has the wrong shape, and when a function of the graph was released by
// an earlier pass (naming it).
void run_backward(const Tensor& root, const Tensor& gradient, bool retain_graph);

}  // namespace lazygen::autograd
