// Step profiling: where an execution's time goes, step by step (lazygen::set_step_profiling in
// lazygen/lazy.h).
//
// Note [Step profiling]
// ~~~~~~~~~~~~~~~~~~~~~
// With LAZYGEN_PROFILE_STEPS=1 in the environment (or set_step_profiling(true)) each step of a
// fused execution (a fusion group, a row band run block by block, a library op) is timed, wall
// clock, and recorded into the timed metric named after what it ran, so that the metrics report
// (lazygen/metrics.h; lazygen_torch.metrics.metrics_report()) says where a training step's time
// goes: a library op by its schema name and output shape ("step.conv2d float32[32, 64, 8, 8]"),
// a group by its iteration space, its folded reduction and its ops ("step.group [32, 64, 64]
// sub.Tensor mul.Tensor"), a band by its groups. The same step of every execution of every graph
// adds to one metric, so a training loop's totals divide by its step count. The metrics are named
// once per executable, at its first profiled execution; a profiled step then costs two clock
// reads and a locked append (TimedMetric::record). Off by default.
// Thread safety: any thread; executions of one executable may profile concurrently.
#pragma once

#include "backend/cpu/fusion/fused_executable.h"
#include "lazygen/metrics.h"

namespace lazygen::cpu::fusion {

// Whether executions time their steps.
bool step_profiling_on();

// The metrics of e's steps (See Note [Step profiling]), named on first use.
const StepTimers& step_timers(const FusedExecutable& e);

}  // namespace lazygen::cpu::fusion
