// The fusion plan's text dump and metrics (fusion_plan.h).
#include <algorithm>
#include <array>
#include <sstream>

#include "core/lazy/lazy_tensor.h"
#include "fusion/fusion_plan.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"

namespace lazygen::fusion {
namespace {

constexpr const char* kEndReasonNames[kNumEndReasons] = {
    "end_of_graph", "node_budget",      "input_budget",        "scalar_budget",
    "dtype_change", "shape_change",     "view_of_group_value", "library_consumer",
    "reduction",    "leading_reduction"};

std::string ref_str(const exec::ValueRef& r) {
  return "%" + std::to_string(r.node) + (r.output ? "." + std::to_string(r.output) : "");
}

// "%3 = mul.Tensor(%1, %2)"
std::string node_str(const exec::Graph& graph, uint32_t i) {
  std::string s = "%" + std::to_string(i) + " = " + ir::op_kind_name(graph.node(i).op()) + "(";
  bool first = true;
  for (const exec::ValueRef& r : graph.operands(i)) {
    s += (first ? "" : ", ") + (r.present() ? ref_str(r) : std::string("None"));
    first = false;
  }
  return s + ")";
}

const char* storage_str(Materialization m) {
  switch (m) {
    case Materialization::None:
      return "";
    case Materialization::Arena:
      return "  -> arena";
    case Materialization::Tensor:
      return "  -> tensor";
  }
  return "";
}

// How a group input is read: in place, broadcast (some stride 0) or through a strided map.
std::string access_str(const GroupInput& in, const std::vector<int64_t>& sizes) {
  if (is_identity(in.layout, sizes)) return "in place";
  const std::vector<int64_t> strides = broadcast_strides(in.layout, sizes);
  const bool broadcast = std::find(strides.begin(), strides.end(), 0) != strides.end();
  return std::string(broadcast ? "broadcast" : "strided") + " strides " + sizes_str(strides) +
         " offset " + std::to_string(in.layout.offset);
}

void dump_group(std::ostream& os, const exec::Graph& graph, const FusionPlan& plan, uint32_t g) {
  const Group& group = plan.groups[g];
  os << "group " << g << ": " << dtype_name(group.dtype) << sizes_str(group.sizes) << ", "
     << group.members.size() << " nodes, ended by " << end_reason_name(group.end) << "\n";
  for (uint32_t m : group.members) {
    const bool again = plan.group_of[m] != g;
    os << "  " << node_str(graph, m) << (again ? "  (recomputed)" : storage_str(plan.storage[m]))
       << "\n";
  }
  if (group.reduction != kNone) {
    const bool leading = group.reduce_layout == ReduceLayout::Leading;
    os << "  " << node_str(graph, group.reduction)
       << (leading ? "  [reduction over leading dims" : "  [reduction")
       << (group.late_fold ? ", folded late]" : "]") << storage_str(plan.storage[group.reduction])
       << "\n";
  }
  for (const GroupInput& in : group.inputs) {
    os << "  reads " << ref_str(in.base) << " " << access_str(in, group.sizes) << "\n";
  }
}

}  // namespace

const char* end_reason_name(EndReason reason) {
  return kEndReasonNames[static_cast<int>(reason)];
}

std::string dump_plan(const exec::Graph& graph, const FusionPlan& plan) {
  std::ostringstream os;
  os << "fusion plan: " << std::count_if(plan.groups.begin(), plan.groups.end(), runs)
     << " groups, "
     << std::count_if(plan.schedule.begin(), plan.schedule.end(),
                      [](const Step& s) { return s.kind == Step::Kind::Lower; })
     << " lowered steps";
  if (!plan.bands.empty()) os << ", " << plan.bands.size() << " row bands";
  os << "\n";
  auto band = plan.bands.begin();
  for (uint32_t s = 0; s < plan.schedule.size(); ++s) {
    const Step& step = plan.schedule[s];
    if (band != plan.bands.end() && band->first == s) {
      os << "row band: the next " << band->last - band->first + 1 << " groups over " << band->rows
         << " rows, " << band->rows_per_block << " rows per block\n";
      ++band;
    }
    if (step.kind == Step::Kind::Group) {
      dump_group(os, graph, plan, step.index);
    } else {
      os << "lower " << node_str(graph, step.index) << "\n";
    }
  }
  return os.str();
}

void record_plan_metrics(const FusionPlan& plan) {
  static metrics::Counter& groups = metrics::counter("fusion.groups");
  static metrics::Counter& nodes = metrics::counter("fusion.group_nodes");
  static metrics::Counter& recomputed = metrics::counter("fusion.recomputed");
  static metrics::Counter& lowered = metrics::counter("fusion.lowered_steps");
  static metrics::Counter& late = metrics::counter("fusion.late_folds");
  static const std::array<metrics::Counter*, kNumEndReasons> ends = [] {
    std::array<metrics::Counter*, kNumEndReasons> a{};
    for (int r = 0; r < kNumEndReasons; ++r) {
      a[r] = &metrics::counter(std::string("fusion.end.") + kEndReasonNames[r]);
    }
    return a;
  }();
  for (const Group& g : plan.groups) {
    if (!runs(g)) continue;
    groups.add();
    nodes.add(static_cast<int64_t>(g.members.size() + (g.reduction != kNone ? 1 : 0)));
    recomputed.add(static_cast<int64_t>(g.recomputed.size()));
    if (g.late_fold) late.add();
    ends[static_cast<int>(g.end)]->add();
  }
  for (const Step& s : plan.schedule) {
    if (s.kind == Step::Kind::Lower) lowered.add();
  }
  static metrics::Counter& bands = metrics::counter("fusion.bands");
  bands.add(static_cast<int64_t>(plan.bands.size()));
}

}  // namespace lazygen::fusion

namespace lazygen {

std::string fusion_plan_dump(const std::vector<Tensor>& tensors) {
  std::vector<ir::Value> roots = lazy::pending_values(tensors);
  if (roots.empty()) return "fusion plan: nothing pending\n";
  exec::Graph graph(std::move(roots));
  return fusion::dump_plan(graph, fusion::plan_fusion(graph));
}

}  // namespace lazygen
