// CudaBackend::compile and ::specialize (cuda_backend.h): a fusion plan flattened into a
// CudaExecutable, each group's kernel prebuilt (See Note [CUDA AOT kernels]), compiled to PTX, or
// for a specialization taken from the executable it specializes. Needs no driver and no device.
#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>

#include "backend/cuda/aot/cuda_aot_registry.h"
#include "backend/cuda/lazy/cuda_backend.h"
#include "backend/cuda/lazy/cuda_executable.h"
#include "backend/cuda/lazy/device_lowering.h"
#include "fusion/aot_lookup.h"
#include "fusion/specialize.h"
#include "lazygen/metrics.h"

namespace lazygen::cuda {
namespace {

using fusion::FusionPlan;
using fusion::Step;

class Compiler {
 public:
  // `like`: for a specialization, the executable whose plan `plan` is rebound from (its groups
  // are plan's, in order), whose kernels serve every group of unchanged source; else null.
  Compiler(const exec::Graph& graph, const FusionPlan& plan, CudaExecutable& e,
           NvrtcCompiler& nvrtc, int arch, const CudaExecutable* like)
      : g_(graph), plan_(plan), e_(e), nvrtc_(nvrtc), arch_(arch), like_(like) {}

  void run() {
    assign_slots();
    for (const Step& step : plan_.schedule) {
      if (step.kind == Step::Kind::Group) {
        add_group(step.index);
      } else {
        add_lower(step.index, {});
      }
    }
    plan_releases();
  }

 private:
  uint32_t slot(const exec::ValueRef& v) const { return first_slot_[v.node] + v.output; }
  void assign_slots();
  void add_group(uint32_t g);
  GroupKernel emit(uint32_t g);
  void add_kernel(uint32_t g, CudaGroupStep& step);
  void add_lower(uint32_t node, std::vector<std::pair<uint32_t, uint32_t>> operand_override);
  void plan_releases();

  const exec::Graph& g_;
  const FusionPlan& plan_;
  CudaExecutable& e_;
  NvrtcCompiler& nvrtc_;
  int arch_;
  const CudaExecutable* like_;
  std::vector<uint32_t> first_slot_;
};

void Compiler::assign_slots() {
  first_slot_ = g_.first_output_slots(&e_.num_slots);
  for (uint32_t i : g_.inputs()) e_.input_slots.push_back(first_slot_[i]);
  for (const exec::ValueRef& r : g_.outputs()) e_.output_slots.push_back(slot(r));
  e_.input_as_tensor.assign(e_.input_slots.size(), false);
}

GroupKernel Compiler::emit(uint32_t g) {
  try {
    return emit_group_kernel(g_, plan_, g);
  } catch (const std::logic_error& err) {
    throw exec::CompileError(std::string(err.what()) + " (CUDA backend, fusion group " +
                             std::to_string(g) + ")");
  }
}

void Compiler::add_group(uint32_t g) {
  CudaGroupStep step;
  step.kernel = emit(g);
  add_kernel(g, step);
  const fusion::Group& group = plan_.groups[g];
  for (const GroupKernel::Input& in : step.kernel.inputs) {
    step.input_slots.push_back(slot(group.inputs[in.group_input].base));
  }
  for (const GroupKernel::Output& o : step.kernel.outputs) {
    step.output_slots.push_back(first_slot_[o.node]);
    step.output_shapes.push_back(g_.node(o.node).shape(0));
  }
  const uint32_t reduction_input = e_.num_slots;
  if (step.kernel.reduction_input) {
    // The last output is the reduction's input, of the group's sizes, in its own slot.
    step.output_slots.back() = e_.num_slots++;
    step.output_shapes.back() = Shape(step.kernel.dtype, group.sizes);
  }
  for (uint32_t n : step.kernel.scalar_nodes) step.scalar_slots.push_back(first_slot_[n]);
  const bool reduces = step.kernel.reduction_input;
  const uint32_t reduce_node = reduces ? step.kernel.outputs.back().node : 0;
  e_.steps.push_back({true, static_cast<uint32_t>(e_.groups.size()), {}});
  e_.groups.push_back(std::move(step));
  if (reduces) add_lower(reduce_node, {{0, reduction_input}});
}

// The binary of group g's kernel: that of the executable this one specializes when its source is
// the same (module included, once loaded), else a prebuilt kernel or NVRTC's PTX.
void Compiler::add_kernel(uint32_t g, CudaGroupStep& step) {
  static metrics::Counter& reused = metrics::counter("cuda.lazy.specialize_kernel_reuse");
  if (like_ != nullptr && g < like_->groups.size() &&
      like_->groups[g].kernel.source == step.kernel.source) {
    step.binary = like_->groups[g].binary;
    reused.add();
    return;
  }
  auto binary = std::make_shared<GroupBinary>();
  const CudaAotEntry* aot = find_cuda_aot_kernel(step.kernel);
  if (aot != nullptr && fusion::aot_kernels_enabled()) {
    binary->aot = aot;
  } else {
    binary->ptx = compile_group_ptx(nvrtc_, step.kernel, g, arch_);
  }
  step.binary = std::move(binary);
}

// `operand_override`: (operand index, slot) pairs read instead of the operand's own slot.
void Compiler::add_lower(uint32_t node,
                         std::vector<std::pair<uint32_t, uint32_t>> operand_override) {
  const ir::Node& n = g_.node(node);
  CudaLowerStep step{&n, device_lowering_for(n), {}, first_slot_[node]};
  if (step.fn == nullptr) {
    throw exec::CompileError(std::string("cuda: no CUDA lowering for op ") +
                             ir::op_kind_name(n.op()) + " (" + n.to_string() +
                             "); see Note [Lowered nodes on CUDA]");
  }
  for (const exec::ValueRef& r : g_.operands(node)) {
    step.operand_slots.push_back(r.present() ? slot(r) : kNoSlot);
  }
  for (const auto& [operand, s] : operand_override) step.operand_slots[operand] = s;
  for (size_t k = 0; k < e_.input_slots.size(); ++k) {
    const uint32_t s = e_.input_slots[k];
    if (g_.node(g_.inputs()[k]).op() != ir::op_kind("scalar_param")) continue;
    if (std::find(step.operand_slots.begin(), step.operand_slots.end(), s) !=
        step.operand_slots.end()) {
      e_.input_as_tensor[k] = true;
    }
  }
  e_.steps.push_back({false, static_cast<uint32_t>(e_.lowers.size()), {}});
  e_.lowers.push_back(std::move(step));
}

// Each slot that is neither a graph input nor an output is dropped after its last use.
void Compiler::plan_releases() {
  constexpr uint32_t kNever = UINT32_MAX;
  std::vector<uint32_t> last(e_.num_slots, kNever);
  auto touch = [&](uint32_t s, uint32_t step) {
    if (s != kNoSlot) last[s] = step;
  };
  for (uint32_t s = 0; s < e_.steps.size(); ++s) {
    if (e_.steps[s].is_group) {
      const CudaGroupStep& gs = e_.groups[e_.steps[s].index];
      for (uint32_t slot : gs.input_slots) touch(slot, s);
      for (uint32_t slot : gs.output_slots) touch(slot, s);
    } else {
      const CudaLowerStep& ls = e_.lowers[e_.steps[s].index];
      for (uint32_t slot : ls.operand_slots) touch(slot, s);
      for (uint32_t j = 0; j < ls.node->num_outputs(); ++j) touch(ls.first_slot + j, s);
    }
  }
  for (uint32_t slot : e_.input_slots) last[slot] = kNever;
  for (uint32_t slot : e_.output_slots) last[slot] = kNever;
  for (uint32_t slot = 0; slot < e_.num_slots; ++slot) {
    if (last[slot] != kNever) e_.steps[last[slot]].release.push_back(slot);
  }
}

}  // namespace

std::string compile_group_ptx(NvrtcCompiler& nvrtc, const GroupKernel& kernel, uint32_t g,
                              int arch) {
  CompileRequest request;
  request.source = kernel.source;
  request.name = "group_" + std::to_string(g) + ".cu";
  request.arch = arch;
  try {
    return nvrtc.compile(request);
  } catch (const NvrtcError& err) {
    throw exec::CompileError(std::string("cuda: ") + err.what() + "\n" + err.log());
  }
}

std::unique_ptr<exec::Executable> CudaBackend::compile(const exec::Graph& graph) {
  auto e = std::make_unique<CudaExecutable>();
  e->keep_alive = graph.roots();
  auto plan = std::make_shared<const FusionPlan>(fusion::plan_fusion(graph, budgets_));
  Compiler(graph, *plan, *e, nvrtc_, arch_, nullptr).run();
  fusion::record_plan_metrics(*plan);
  e->plan = std::move(plan);
  e->sizes = fusion::SizeClasses(graph);
  return e;
}

// See Note [Specializing a fusion plan] (fusion/specialize.h): no planning, so no plan metrics.
std::unique_ptr<exec::Executable> CudaBackend::specialize(const exec::Executable& compiled,
                                                          const exec::Graph& graph) {
  const auto& generic = dynamic_cast<const CudaExecutable&>(compiled);
  if (!generic.plan || !generic.sizes.admits(graph)) return nullptr;
  std::optional<FusionPlan> plan = fusion::rebind_plan(*generic.plan, graph);
  if (!plan) return nullptr;
  auto e = std::make_unique<CudaExecutable>();
  e->keep_alive = graph.roots();
  Compiler(graph, *plan, *e, nvrtc_, arch_, &generic).run();
  return e;
}

}  // namespace lazygen::cuda
