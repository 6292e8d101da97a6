// Step profiling (step_profile.h; See Note [Step profiling]).
#include "backend/cpu/fusion/step_profile.h"

#include <mutex>
#include <string>

#include "core/env_flag.h"
#include "core/ir/node.h"
#include "lazygen/lazy.h"

namespace lazygen::cpu::fusion {
namespace {

EnvSwitch& profiling_flag() {
  static EnvSwitch enabled("LAZYGEN_PROFILE_STEPS", EnvSwitch::kOptIn);
  return enabled;
}

// "group [32, 64, 64] sub.Tensor mul.Tensor", with " fold of 128" (a Trailing fold of runs of
// 128) or " fold over 1024" (Leading) when the group folds a reduction.
std::string group_label(const GroupProgram& p) {
  std::string label = "group " + sizes_str(p.dims);
  if (p.has_reduction) {
    label += p.reduce_layout == ReduceLayout::Trailing ? " fold of " : " fold over ";
    label += std::to_string(p.reduce_run);
  }
  for (const GroupProgram::Op& op : p.ops) label += std::string(" ") + op.facts->schema_name;
  return label;
}

std::string lower_label(const LowerStep& l) {
  return std::string(ir::op_kind_name(l.node->op())) + " " + l.node->shape().str();
}

std::string step_label(const FusedExecutable& e, const ExecStep& step) {
  return step.is_group ? group_label(e.groups[step.index].program)
                       : lower_label(e.lowers[step.index]);
}

// "band of 3 groups: " and the first group's label.
std::string band_label(const FusedExecutable& e, size_t first) {
  const ExecStep& step = e.steps[first];
  return "band of " + std::to_string(step.band.last - first + 1) +
         " groups: " + step_label(e, step);
}

}  // namespace

bool step_profiling_on() {
  return profiling_flag().on();
}

const StepTimers& step_timers(const FusedExecutable& e) {
  std::call_once(e.profile_once, [&] {
    for (size_t s = 0; s < e.steps.size(); ++s) {
      e.step_timers.step.push_back(&metrics::timed("step." + step_label(e, e.steps[s])));
      e.step_timers.band.push_back(
          e.steps[s].starts_band() ? &metrics::timed("step." + band_label(e, s)) : nullptr);
    }
  });
  return e.step_timers;
}

}  // namespace lazygen::cpu::fusion

namespace lazygen {

void set_step_profiling(bool enabled) {
  cpu::fusion::profiling_flag().set(enabled);
}

bool step_profiling() {
  return cpu::fusion::step_profiling_on();
}

}  // namespace lazygen
