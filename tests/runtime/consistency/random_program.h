// Random programs over the ops of ops.yaml, run on the cpu and the lazy device side by side.
//
// Note [Random programs]
// A program is a sequence of steps. Each step calls one op of the OpInfo table on one of the
// consistency suite's cases for it (op_inputs.h), except that a tensor argument may instead be a
// tensor an earlier step produced (a "slot": the cpu and the lazy tensor side by side) of the
// same dtype and sizes: so ops chain, views of views are taken, and in-place and out= ops write
// into earlier results and, through views, into their bases. mark_step() runs between steps at
// random; every fourth program runs the lazy device with fusion off. Both devices must raise on
// the same steps, the lazy device at the call (a user error
// surfacing at a later, unrelated sync is a failure), and at the end every live slot must hold
// the same dtype, sizes and values on both (exact for integers and bools, 1e-4 relative for
// floats, NaN equal to NaN).
// One deliberate difference is honoured, as the consistency suite does: lazy tensors are
// contiguous, so view() of one always succeeds where the cpu's may refuse; the cpu then runs
// reshape(), a copy, so the result is not kept as a slot (a write through it would reach the
// lazy base only).
// Generation records every random choice, so a program replays exactly, and a failing one is
// minimized by dropping steps while it still fails (a step whose input slot was dropped takes the
// case's own input instead).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lazygen::testing {

struct ProgramStep {
  uint32_t id = 0;        // its position in the generated program (slot ids use it)
  uint32_t op = 0;        // index into all_ops()
  uint32_t dtype_set = 0;  // index into dtype_sets(op)'s flattened sets
  uint32_t case_index = 0;
  // Per argument: the slot (see random_program.cpp) given in place of the case's tensor, or -1.
  std::vector<int64_t> inputs;
  bool mark_step_after = false;
};

struct Program {
  uint64_t seed = 0;
  std::vector<ProgramStep> steps;
};

// A random program of `length` steps (seed decides everything), generated while it runs; the
// failure, if any, of that run in `failure`.
Program generate_program(uint64_t seed, int length, std::string& failure);

// Runs `program` on both devices; "" when they agree, else what differs (step and op named).
std::string run_program(const Program& program);

// A smaller program that still fails (greedy: each step dropped if the rest still fails).
// REQUIRES: run_program(program) fails.
Program minimize(const Program& program);

// What the programs run so far did, over every run of this process (replays included).
struct ProgramStats {
  int64_t steps = 0;          // op calls made on both devices
  int64_t chained = 0;        // ... with an earlier result as an argument
  int64_t written_slots = 0;  // ... writing into an earlier result (in-place, out=)
  int64_t both_raised = 0;    // ... where both devices raised
  int64_t mark_steps = 0;
};
const ProgramStats& program_stats();

// The program, one step a line: "3: add_.Tensor [float32] case 'broadcast' self=slot 1.0
// mark_step" (slot 1.0: output 0 of step 1; 1.8: its first argument, 1.9 that argument's base).
std::string describe(const Program& program);

}  // namespace lazygen::testing
