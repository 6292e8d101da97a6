// Which outputs of a fused graph may be written into the memory of the input they replace.
//
// Note [In-place outputs]
// An optimizer updates persistent tensors in place (`square_avg.mul_(rho).addcmul_(g, g, 1 - rho)`,
// `param.add_(delta)`): the step's graph reads the old value as a DeviceData input and returns the
// new one as an output. Written to a fresh buffer, such a tensor would alternate between two blocks
// step after step (its data pointer changes, and both blocks stay live across the execution). So
// the output is written into the input's own storage when both of these hold:
//   - in the graph (decided at compile time, in_place_input below): the output updates the input
//     (following first operands through the group's members leads to it, as `w.mul_(a).add_(b)`
//     leads to w: each tensor keeps its own buffer); one group reads the input, with
//     the identity index map, in the output's dtype and sizes, and no other step reads it; it is
//     not itself a graph output; within the group no op after the one computing the output reads
//     it (a tile computes its ops in order, so a later op would see the new value), and the group
//     does not reduce. Such an output is stored from a tile register after its op rather than
//     computed in place, so that no tile kernel, AOT kernels included, ever writes memory it is
//     still reading through another pointer.
//   - at run time (the executor, Input::donated): the execution holds the only reference to the
//     input tensor and to its storage: no other tensor, view, launch or pending graph can read the
//     old value any more. The executor drops the references it can account for first (the trace's
//     DeviceData nodes at mark_step, the previous launch's output when nothing else holds that
//     launch), so in a training loop's steady state every such update is in place.
// Otherwise the output gets a fresh buffer as before (correct, only not in place).
//
// Thread safety: pure functions of the graph and plan.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/cpu/fusion/group_program.h"

namespace lazygen::cpu::fusion {

// The graph input node (a DeviceData position) whose memory output `j` of group `g` (compiled as
// `p`) may be written into, or kNone. REQUIRES: steps_reading[n] counts the schedule steps that
// read node n; is_output[n] is true for graph outputs.
uint32_t in_place_input(const exec::Graph& graph, const FusionPlan& plan, uint32_t g,
                        const GroupProgram& p, size_t j, const std::vector<uint32_t>& steps_reading,
                        const std::vector<bool>& is_output);

}  // namespace lazygen::cpu::fusion
