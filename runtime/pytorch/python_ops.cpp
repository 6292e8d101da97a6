// The operations of the Python package lazygen_torch (python/lazygen_torch/), registered as
// custom ops in the `lazygen` namespace: Python calls them as torch.ops.lazygen.<name>, so the
// package needs no binding code and no Python headers (See python/lazygen_torch/__init__.py).
#include <torch/library.h>

#include <string>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "pytorch/call.h"
#include "pytorch/registrar.h"

namespace lazygen::pytorch {
namespace {

std::vector<Tensor> device_tensors(const std::vector<at::Tensor>& tensors) {
  std::vector<Tensor> out;
  for (const at::Tensor& t : tensors) {
    if (is_device_tensor(t)) out.push_back(device_impl(t).tensor());
  }
  return out;
}

void mark_step_op() {
  DeviceScope scope;
  mark_step();
}

void wait_device_ops_op() {
  DeviceScope scope;
  wait_device_ops();
}

std::vector<std::string> counter_names_op() {
  std::vector<std::string> out;
  for (const std::string& name : metrics::names()) {
    if (metrics::counter_value(name) != 0) out.push_back(name);
  }
  return out;
}

// "name\tcount\ttotal_ms" for each timed metric with samples since the last reset, by name.
std::vector<std::string> timed_metrics_op() {
  std::vector<std::string> out;
  for (const std::string& name : metrics::names()) {
    const std::optional<metrics::TimedStats> s = metrics::timed_stats(name);
    if (!s || s->count == 0) continue;
    out.push_back(name + "\t" + std::to_string(s->count) + "\t" + std::to_string(s->total_ms));
  }
  return out;
}

c10::optional<int64_t> counter_value_op(c10::string_view name) {
  const std::string key(name);
  for (const std::string& n : metrics::names()) {
    if (n == key && !metrics::timed_stats(key)) return metrics::counter_value(key);
  }
  return c10::nullopt;
}

std::string ir_dump_text_op(const std::vector<at::Tensor>& tensors) {
  DeviceScope scope;
  return ir_dump_text(device_tensors(tensors));
}

std::string ir_dump_dot_op(const std::vector<at::Tensor>& tensors) {
  DeviceScope scope;
  return ir_dump_dot(device_tensors(tensors));
}

std::string fusion_plan_dump_op(const std::vector<at::Tensor>& tensors) {
  DeviceScope scope;
  return fusion_plan_dump(device_tensors(tensors));
}

// One line per op offered to the dispatcher: "<name>\t<origin>\tregistered|skipped\t<reason>".
std::vector<std::string> registration_report_op() {
  std::vector<std::string> lines;
  for (const Registration& r : registration_report()) {
    lines.push_back(r.name + "\t" + r.origin + "\t" + (r.registered ? "registered" : "skipped") +
                    "\t" + r.reason);
  }
  return lines;
}

}  // namespace

TORCH_LIBRARY(lazygen, m) {
  m.def("mark_step() -> ()", &mark_step_op);
  m.def("wait_device_ops() -> ()", &wait_device_ops_op);
  m.def("metrics_reset() -> ()", [] { metrics::reset(); });
  m.def("metrics_report() -> str", [] { return metrics_report(); });
  m.def("counter_names() -> str[]", &counter_names_op);
  m.def("counter_value(str name) -> int?", &counter_value_op);
  m.def("timed_metrics() -> str[]", &timed_metrics_op);
  m.def("set_step_profiling(bool enabled) -> ()", [](bool on) { set_step_profiling(on); });
  m.def("step_profiling() -> bool", [] { return step_profiling(); });
  m.def("ir_dump_text(Tensor[] tensors) -> str", &ir_dump_text_op);
  m.def("ir_dump_dot(Tensor[] tensors) -> str", &ir_dump_dot_op);
  m.def("fusion_plan_dump(Tensor[] tensors) -> str", &fusion_plan_dump_op);
  m.def("set_fusion_enabled(bool enabled) -> ()", [](bool on) { set_fusion_enabled(on); });
  m.def("fusion_enabled() -> bool", [] { return fusion_enabled(); });
  m.def("set_async_execution(bool enabled) -> ()", [](bool on) { set_async_execution(on); });
  m.def("async_execution_enabled() -> bool", [] { return async_execution_enabled(); });
  m.def("set_register_chains_enabled(bool enabled) -> ()",
        [](bool on) { set_register_chains_enabled(on); });
  m.def("register_chains_enabled() -> bool", [] { return register_chains_enabled(); });
  m.def("set_dynamic_shapes(bool enabled) -> ()", [](bool on) { set_dynamic_shapes(on); });
  m.def("dynamic_shapes() -> bool", [] { return dynamic_shapes(); });
  m.def("set_lapack_enabled(bool enabled) -> ()", [](bool on) { set_lapack_enabled(on); });
  m.def("lapack_enabled() -> bool", [] { return lapack_enabled(); });
  m.def("registration_report() -> str[]", &registration_report_op);
  m.def("reset_trace_caches() -> ()", [] {
    DeviceScope scope;
    reset_trace_caches();
  });
}

}  // namespace lazygen::pytorch
