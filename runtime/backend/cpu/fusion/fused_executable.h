// The compiled form of a graph on the fused cpu backend (fused_backend.h): what compile()
// (fused_compile.cpp) builds and execute() (fused_execute.cpp) walks. Internal to the backend.
//
// Values live in slots (tensors, one per node output, as in the cpu-lowering backend) or in
// the arena (See memory_plan.h). Steps run in schedule order; after each, the slots it read for
// the last time are dropped, so intermediate tensors go back to the allocator early.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "backend/backend.h"
#include "backend/cpu/fusion/group_program.h"
#include "exec/lowering.h"
#include "fusion/specialize.h"

namespace lazygen::metrics {
class TimedMetric;
}  // namespace lazygen::metrics

namespace lazygen::cpu::fusion {

inline constexpr uint32_t kNoSlot = UINT32_MAX;

// Where a value is during an execution: a tensor slot, or else an arena offset.
struct Place {
  uint32_t slot = kNoSlot;
  int64_t offset = 0;
};

// A value a group writes. Slot values get a new tensor of `shape` (or, for a graph output, the
// previous execution's tensor when nobody holds it any more: `reuse` indexes those; or the tensor
// of graph input `donor` when the executor donated it: See Note [In-place outputs]).
struct OutputPlace {
  Place place;
  Shape shape;
  int32_t reuse = -1;
  int32_t donor = -1;  // index into execute()'s inputs
};

struct GroupStep {
  GroupProgram program;
  std::vector<Place> inputs;           // per Group::inputs
  std::vector<OutputPlace> outputs;    // per GroupProgram::outputs
  OutputPlace reduction;               // when the program reduces
  std::vector<uint32_t> scalar_slots;  // per GroupProgram::scalar_nodes
};

struct LowerStep {
  const ir::Node* node = nullptr;
  exec::LowerFn fn = nullptr;
  std::vector<uint32_t> operand_slots;  // kNoSlot for an absent operand
  uint32_t first_slot = 0;              // of its outputs
};

struct ExecStep {
  bool is_group = false;
  uint32_t index = 0;                           // into groups or lowers
  uint32_t release_begin = 0, release_end = 0;  // slots dropped after it: releases[begin, end)
  // On the first step of a row band (See Note [Row bands] in row_bands.h), the band (its first
  // and last steps are schedule positions, as step indices are); empty (rows 0) elsewhere.
  Band band;
  bool starts_band() const { return band.rows != 0; }
};

// The arrays a group's bindings point into.
struct BindingArrays {
  std::vector<TileScalar> scalars;
  std::vector<const char*> inputs;
  std::vector<char*> outputs;
  std::vector<int64_t> partials;
};

// What one execution works in; reused by the next execution of the same executable.
struct ExecScratch {
  std::vector<Tensor> slots;
  std::vector<TileScalar> slot_scalars;  // per slot: a scalar input's value (others unused)
  std::vector<Tensor> args;
  std::vector<BindingArrays> bindings;  // one per group of the largest band (at least one)
};

// The timed metrics of an executable's steps (See Note [Step profiling] in step_profile.h): per
// step, the one it records into when it runs alone, and, for the first step of a row band, the
// band's (null elsewhere).
struct StepTimers {
  std::vector<metrics::TimedMetric*> step, band;
};

struct FusedExecutable final : exec::Executable {
  std::vector<ir::Value> keep_alive;  // the graph's roots: owners of every node used here
  uint32_t num_slots = 0;
  std::vector<uint32_t> input_slots;   // per graph input
  std::vector<bool> input_as_tensor;   // per graph input: a scalar input a lowered op reads
  std::vector<uint32_t> output_slots;  // per graph output
  std::vector<GroupStep> groups;
  std::vector<LowerStep> lowers;
  std::vector<ExecStep> steps;
  std::vector<uint32_t> releases;
  size_t max_band = 1;  // groups in the largest row band (at least 1)
  int64_t arena_bytes = 0;
  int32_t num_reusable = 0;
  size_t reusable_bytes = 0;  // outputs `reuse` may keep that are not written into inputs

  size_t retained_bytes() const override { return reusable_bytes; }

  // What a new size of the graph's structure specializes (set by compile, not by specialize;
  // See Note [Specializing a fusion plan] in specialize.h).
  std::shared_ptr<const FusionPlan> plan;
  SizeClasses sizes;

  mutable std::vector<Tensor> reuse;  // previous outputs, See Note [Memory across executions]
  mutable ExecScratch scratch;
  mutable std::atomic<bool> busy{false};
  // Its steps' metrics, named at the first profiled execution (See Note [Step profiling] in
  // step_profile.h).
  mutable std::once_flag profile_once;
  mutable StepTimers step_timers;
};

}  // namespace lazygen::cpu::fusion
