// FusedBackend::compile (fused_backend.h): a fusion plan flattened into a FusedExecutable.
#include <algorithm>
#include <stdexcept>

#include "backend/cpu/fusion/aot_registry.h"
#include "backend/cpu/fusion/fused_backend.h"
#include "backend/cpu/fusion/fused_executable.h"
#include "backend/cpu/fusion/in_place.h"
#include "exec/backend_registry.h"
#include "fusion/memory_plan.h"
#include "fusion/row_bands.h"
#include "fusion/specialize.h"

namespace lazygen::cpu::fusion {
namespace {

class Compiler {
 public:
  Compiler(const exec::Graph& graph, const FusionPlan& plan, FusedExecutable& e)
      : g_(graph), plan_(plan), e_(e) {}

  void run() {
    spans_ = band_spans(plan_);
    assign_slots();
    group_positions();
    count_readers();
    plan_arena();
    for (uint32_t s = 0; s < plan_.schedule.size(); ++s) {
      const Step& step = plan_.schedule[s];
      if (step.kind == Step::Kind::Group) {
        add_group(step.index);
      } else {
        add_lower(step.index);
      }
    }
    plan_releases();
    plan_scalar_inputs();
    mark_bands();
  }

 private:
  uint32_t slot(const exec::ValueRef& v) const { return first_slot_[v.node] + v.output; }
  Place place(const exec::ValueRef& v) const {
    if (plan_.storage[v.node] == Materialization::Arena) return Place{kNoSlot, offset_[v.node]};
    return Place{slot(v), 0};
  }
  OutputPlace output_place(uint32_t node);
  // Counts a reusable output that is not written into an input's storage (what `reuse` keeps
  // beyond the caller's tensors: Executable::retained_bytes).
  void add_reusable_bytes(const OutputPlace& out) {
    if (out.reuse >= 0) e_.reusable_bytes += static_cast<size_t>(out.shape.numel()) * itemsize(out.shape.dtype);
  }
  void assign_slots();
  void group_positions();
  void count_readers();
  std::vector<uint32_t> in_place_inputs(uint32_t g, const GroupProgram& p);
  void plan_arena();
  void add_group(uint32_t g);
  void add_lower(uint32_t node);
  void plan_releases();
  void plan_scalar_inputs();
  void mark_bands();

  const exec::Graph& g_;
  const FusionPlan& plan_;
  FusedExecutable& e_;
  std::vector<uint32_t> first_slot_;
  std::vector<uint32_t> group_step_;  // per group: its schedule position
  std::vector<int64_t> offset_;       // per node in the arena
  std::vector<bool> is_output_;
  std::vector<uint32_t> steps_reading_;  // per node: schedule steps that read it
  std::vector<uint32_t> donated_;        // input nodes already written in place
  std::vector<StepSpan> spans_;          // per step: its band's steps (See Note [Row bands])
};

void Compiler::assign_slots() {
  first_slot_ = g_.first_output_slots(&e_.num_slots);
  for (uint32_t i : g_.inputs()) e_.input_slots.push_back(first_slot_[i]);
  is_output_.assign(g_.nodes().size(), false);
  for (const exec::ValueRef& r : g_.outputs()) {
    if (plan_.storage[r.node] != Materialization::Tensor) {
      throw std::logic_error("cpu-fused: graph output %" + std::to_string(r.node) +
                             " is not planned as a tensor");
    }
    e_.output_slots.push_back(slot(r));
    is_output_[r.node] = true;
  }
}

void Compiler::group_positions() {
  group_step_.assign(plan_.groups.size(), 0);
  for (uint32_t s = 0; s < plan_.schedule.size(); ++s) {
    if (plan_.schedule[s].kind == Step::Kind::Group) group_step_[plan_.schedule[s].index] = s;
  }
}

void Compiler::count_readers() {
  steps_reading_.assign(g_.nodes().size(), 0);
  std::vector<uint32_t> read_at(g_.nodes().size(), kNone);  // the last step counted per node
  auto read = [&](uint32_t node, uint32_t s) {
    if (node == exec::ValueRef::kAbsent || read_at[node] == s) return;
    read_at[node] = s;
    ++steps_reading_[node];
  };
  for (uint32_t s = 0; s < plan_.schedule.size(); ++s) {
    const Step& step = plan_.schedule[s];
    if (step.kind == Step::Kind::Group) {
      for (const GroupInput& in : plan_.groups[step.index].inputs) read(in.base.node, s);
    } else {
      for (const exec::ValueRef& r : g_.operands(step.index)) read(r.node, s);
    }
  }
}

// Per output of group `g`: the input node it may be written into, or kNone (Note [In-place
// outputs]); an input is given to one output at most.
std::vector<uint32_t> Compiler::in_place_inputs(uint32_t g, const GroupProgram& p) {
  std::vector<uint32_t> donors(p.outputs.size(), kNone);
  for (size_t j = 0; j < p.outputs.size(); ++j) {
    const uint32_t node = in_place_input(g_, plan_, g, p, j, steps_reading_, is_output_);
    if (node == kNone || std::find(donated_.begin(), donated_.end(), node) != donated_.end()) {
      continue;
    }
    donated_.push_back(node);
    donors[j] = node;
  }
  return donors;
}

// Arena values: written by their group's step, read by the steps of the groups that load them.
void Compiler::plan_arena() {
  offset_.assign(g_.nodes().size(), 0);
  std::vector<uint32_t> nodes;
  std::vector<BufferRequest> requests;
  std::vector<int64_t> request_of(g_.nodes().size(), -1);
  for (uint32_t i = 0; i < g_.nodes().size(); ++i) {
    if (plan_.storage[i] != Materialization::Arena) continue;
    request_of[i] = static_cast<int64_t>(requests.size());
    const StepSpan span = spans_[group_step_[plan_.group_of[i]]];
    const Shape& shape = g_.node(i).shape(0);
    requests.push_back({shape.numel() * static_cast<int64_t>(itemsize(shape.dtype)), span.first, span.last});
    nodes.push_back(i);
  }
  for (uint32_t g = 0; g < plan_.groups.size(); ++g) {
    for (const GroupInput& in : plan_.groups[g].inputs) {
      if (request_of[in.base.node] < 0) continue;
      BufferRequest& r = requests[static_cast<size_t>(request_of[in.base.node])];
      r.last_step = std::max(r.last_step, spans_[group_step_[g]].last);
    }
  }
  MemoryPlan memory = plan_memory(requests);
  for (size_t r = 0; r < nodes.size(); ++r) offset_[nodes[r]] = memory.offsets[r];
  e_.arena_bytes = memory.arena_bytes;
}

OutputPlace Compiler::output_place(uint32_t node) {
  OutputPlace out{place(exec::ValueRef{node, 0}), g_.node(node).shape(0), -1};
  if (is_output_[node]) out.reuse = e_.num_reusable++;
  return out;
}

void Compiler::add_group(uint32_t g) {
  GroupStep step;
  const GroupSpec spec = describe_group(g_, plan_, g);
  step.program = compile_group(g_, spec);
  const std::vector<uint32_t> donors = in_place_inputs(g, step.program);
  std::vector<uint32_t> staged;
  for (size_t j = 0; j < donors.size(); ++j) {
    if (donors[j] != kNone && step.program.outputs[j].direct)
      staged.push_back(step.program.outputs[j].node);
  }
  if (!staged.empty()) step.program = compile_group(g_, spec, staged);
  step.program.aot = find_aot_kernel(spec);
  for (const GroupInput& in : plan_.groups[g].inputs) step.inputs.push_back(place(in.base));
  for (size_t j = 0; j < donors.size(); ++j) {
    step.outputs.push_back(output_place(step.program.outputs[j].node));
    if (donors[j] == kNone) {
      add_reusable_bytes(step.outputs.back());
      continue;
    }
    const auto input = std::find(g_.inputs().begin(), g_.inputs().end(), donors[j]);
    step.outputs.back().donor = static_cast<int32_t>(input - g_.inputs().begin());
  }
  if (step.program.has_reduction) {
    step.reduction = output_place(step.program.reduce_node);
    add_reusable_bytes(step.reduction);
  }
  for (uint32_t n : step.program.scalar_nodes) step.scalar_slots.push_back(first_slot_[n]);
  e_.steps.push_back({true, static_cast<uint32_t>(e_.groups.size()), 0, 0, {}});
  e_.groups.push_back(std::move(step));
}

void Compiler::add_lower(uint32_t node) {
  const ir::Node& n = g_.node(node);
  LowerStep step{&n, exec::lowering_for(n.op()), {}, first_slot_[node]};
  if (step.fn == nullptr) {
    throw exec::CompileError(std::string("cpu-fused: no lowering for op ") +
                             ir::op_kind_name(n.op()) + " (" + n.to_string() + ")");
  }
  for (const exec::ValueRef& r : g_.operands(node)) {
    if (r.present() && plan_.storage[r.node] != Materialization::Tensor) {
      throw std::logic_error("cpu-fused: %" + std::to_string(node) + " reads %" +
                             std::to_string(r.node) + ", which is not planned as a tensor");
    }
    step.operand_slots.push_back(r.present() ? slot(r) : kNoSlot);
  }
  e_.steps.push_back({false, static_cast<uint32_t>(e_.lowers.size()), 0, 0, {}});
  e_.lowers.push_back(std::move(step));
}

// Each slot that is neither a graph input nor an output is dropped after the last step that
// writes or reads it (a band's last step for its members').
void Compiler::plan_releases() {
  constexpr uint32_t kNever = UINT32_MAX;
  std::vector<uint32_t> release_at(e_.num_slots, kNever);
  auto touch = [&](uint32_t slot, uint32_t step) {
    const uint32_t s = spans_[step].last;
    if (slot != kNoSlot)
      release_at[slot] = release_at[slot] == kNever ? s : std::max(release_at[slot], s);
  };
  for (uint32_t s = 0; s < e_.steps.size(); ++s) {
    if (e_.steps[s].is_group) {
      const GroupStep& gs = e_.groups[e_.steps[s].index];
      for (const Place& p : gs.inputs) touch(p.slot, s);
      for (const OutputPlace& o : gs.outputs) touch(o.place.slot, s);
      if (gs.program.has_reduction) touch(gs.reduction.place.slot, s);
      for (uint32_t slot : gs.scalar_slots) touch(slot, s);
    } else {
      const LowerStep& ls = e_.lowers[e_.steps[s].index];
      for (uint32_t slot : ls.operand_slots) touch(slot, s);
      for (uint32_t j = 0; j < ls.node->num_outputs(); ++j) touch(ls.first_slot + j, s);
    }
  }
  for (uint32_t slot : e_.input_slots) release_at[slot] = kNever;
  for (uint32_t slot : e_.output_slots) release_at[slot] = kNever;
  std::vector<std::vector<uint32_t>> per_step(e_.steps.size());
  for (uint32_t slot = 0; slot < e_.num_slots; ++slot) {
    if (release_at[slot] != kNever) per_step[release_at[slot]].push_back(slot);
  }
  for (uint32_t s = 0; s < e_.steps.size(); ++s) {
    e_.steps[s].release_begin = static_cast<uint32_t>(e_.releases.size());
    e_.releases.insert(e_.releases.end(), per_step[s].begin(), per_step[s].end());
    e_.steps[s].release_end = static_cast<uint32_t>(e_.releases.size());
  }
}

// Scalar inputs reach groups as values; only a lowered op reading one needs it as a tensor.
void Compiler::plan_scalar_inputs() {
  std::vector<bool> lowered_reads(e_.num_slots, false);
  for (const LowerStep& ls : e_.lowers) {
    for (uint32_t slot : ls.operand_slots) {
      if (slot != kNoSlot) lowered_reads[slot] = true;
    }
  }
  for (uint32_t slot : e_.input_slots) e_.input_as_tensor.push_back(lowered_reads[slot]);
}

void Compiler::mark_bands() {
  for (const Band& b : plan_.bands) {
    e_.steps[b.first].band = b;
    e_.max_band = std::max<size_t>(e_.max_band, b.last + 1 - b.first);
  }
}

}  // namespace

std::unique_ptr<exec::Executable> FusedBackend::compile(const exec::Graph& graph) {
  auto e = std::make_unique<FusedExecutable>();
  e->keep_alive = graph.roots();
  auto plan = std::make_shared<const FusionPlan>(plan_fusion(graph, budgets_));
  Compiler(graph, *plan, *e).run();
  e->reuse.resize(static_cast<size_t>(e->num_reusable));
  record_plan_metrics(*plan);
  e->plan = std::move(plan);
  e->sizes = SizeClasses(graph);
  return e;
}

// See Note [Specializing a fusion plan] (specialize.h): no planning, so no plan metrics.
std::unique_ptr<exec::Executable> FusedBackend::specialize(const exec::Executable& compiled,
                                                           const exec::Graph& graph) {
  const auto& generic = dynamic_cast<const FusedExecutable&>(compiled);
  if (!generic.plan || !generic.sizes.admits(graph)) return nullptr;
  std::optional<FusionPlan> plan = rebind_plan(*generic.plan, graph);
  if (!plan) return nullptr;
  auto e = std::make_unique<FusedExecutable>();
  e->keep_alive = graph.roots();
  Compiler(graph, *plan, *e).run();
  e->reuse.resize(static_cast<size_t>(e->num_reusable));
  return e;
}

namespace {

std::shared_ptr<exec::Backend> make_fused_backend() {
  return std::make_shared<FusedBackend>();
}

}  // namespace

}  // namespace lazygen::cpu::fusion

// The lazy device's default backend, registered like any device library's
// (exec/backend_registry.h): the executor names no backend. Programs linking a runtime keep it
// through their reference to lazygen_cpu_fused_backend_linked (runtime/linked_registrations.cpp).
extern const bool lazygen_cpu_fused_backend_linked;
const bool lazygen_cpu_fused_backend_linked = [] {
  lazygen::exec::register_backend_factory("cpu-fused", &lazygen::cpu::fusion::make_fused_backend);
  return true;
}();
