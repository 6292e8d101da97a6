// FusedBackend::execute (fused_backend.h): walks a FusedExecutable's steps.
#include <chrono>
#include <exception>
#include <stdexcept>
#include <string>

#include "backend/cpu/fusion/fused_backend.h"
#include "backend/cpu/fusion/fused_executable.h"
#include "backend/cpu/fusion/interpreter.h"
#include "backend/cpu/fusion/step_profile.h"
#include "core/tensor/allocator.h"
#include "core/tensor/tensor_impl.h"
#include "exec/lowering.h"
#include "fusion/row_bands.h"
#include "lazygen/metrics.h"

namespace lazygen::cpu::fusion {
namespace {

using Clock = std::chrono::steady_clock;

// Outputs up to this size are kept for reuse by the next execution (See Note [Memory across
// executions]); larger ones go back to the caching allocator, so that a cached graph never
// pins much memory while it is not running.
constexpr size_t kReuseMaxBytes = size_t{1} << 20;

// One arena block from the caching allocator for the duration of an execution.
class ArenaBlock {
 public:
  explicit ArenaBlock(int64_t bytes)
      : block_(bytes > 0 ? cpu_allocator().allocate(static_cast<size_t>(bytes))
                         : CachingAllocator::Block{}) {}
  ~ArenaBlock() {
    if (block_.data != nullptr) cpu_allocator().release(block_.data, block_.capacity);
  }
  ArenaBlock(const ArenaBlock&) = delete;
  ArenaBlock& operator=(const ArenaBlock&) = delete;
  char* data() const { return static_cast<char*>(block_.data); }

 private:
  CachingAllocator::Block block_;
};

class Execution {
 public:
  Execution(const FusedExecutable& e, ExecScratch& s, const std::vector<exec::Input>& inputs,
            bool exclusive)
      : e_(e), s_(s), inputs_(inputs), exclusive_(exclusive), arena_(e.arena_bytes) {}

  void run() {
    s_.bindings.resize(e_.max_band);
    const bool bands = row_bands_on();
    const StepTimers* timers = step_profiling_on() ? &step_timers(e_) : nullptr;
    for (size_t s = 0; s < e_.steps.size();) {
      const ExecStep& step = e_.steps[s];
      const size_t end = step.starts_band() && bands ? step.band.last + 1 : s + 1;
      const auto start = timers != nullptr ? Clock::now() : Clock::time_point{};
      if (end > s + 1) {
        run_band_steps(s, end);
      } else if (step.is_group) {
        const GroupStep& g = e_.groups[step.index];
        run_group(g.program, bind(g, s_.bindings[0]));
      } else {
        run_lower_step(e_.lowers[step.index]);
      }
      if (timers != nullptr) {  // See Note [Step profiling]
        metrics::TimedMetric* timer = end > s + 1 ? timers->band[s] : timers->step[s];
        timer->record(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
      }
      for (; s < end; ++s) {
        for (uint32_t r = e_.steps[s].release_begin; r < e_.steps[s].release_end; ++r) {
          s_.slots[e_.releases[r]] = Tensor();
        }
      }
    }
  }

 private:
  const char* input_data(const Place& p);
  Tensor allocate(const OutputPlace& o);
  char* output_data(const OutputPlace& o);
  GroupBindings bind(const GroupStep& g, BindingArrays& a);
  void run_band_steps(size_t first, size_t end);
  void run_lower_step(const LowerStep& l);

  const FusedExecutable& e_;
  ExecScratch& s_;
  const std::vector<exec::Input>& inputs_;
  bool exclusive_;  // owns the executable's reuse list
  ArenaBlock arena_;
};

// See Note [Views as index maps]: groups read bases as contiguous buffers.
const char* Execution::input_data(const Place& p) {
  static metrics::Counter& copies = metrics::counter("fusion.input_copies");
  if (p.slot == kNoSlot) return arena_.data() + p.offset;
  Tensor& t = s_.slots[p.slot];
  if (!t.is_contiguous()) {
    copies.add();
    t = t.contiguous();
  }
  return static_cast<const char*>(t.raw_data());
}

Tensor Execution::allocate(const OutputPlace& o) {
  static metrics::Counter& reused = metrics::counter("fusion.output_reuse");
  static metrics::Counter& in_place = metrics::counter("fusion.in_place_outputs");
  if (o.donor >= 0 && inputs_[static_cast<size_t>(o.donor)].donated) {
    const Tensor& input = inputs_[static_cast<size_t>(o.donor)].tensor;
    if (input.is_contiguous() && input.shape() == o.shape) {  // See Note [In-place outputs]
      in_place.add();
      return input;
    }
  }
  if (o.reuse < 0 || !exclusive_) return make_cpu_tensor(o.shape.sizes, o.shape.dtype);
  Tensor& previous = e_.reuse[static_cast<size_t>(o.reuse)];
  if (previous.defined() && previous.impl_ptr().use_count() == 1 &&
      previous.impl()->storage().use_count() == 1) {
    reused.add();
    return previous;
  }
  Tensor t = make_cpu_tensor(o.shape.sizes, o.shape.dtype);
  const size_t bytes = static_cast<size_t>(t.numel()) * itemsize(t.dtype());
  previous = bytes <= kReuseMaxBytes ? t : Tensor();
  return t;
}

char* Execution::output_data(const OutputPlace& o) {
  if (o.place.slot == kNoSlot) return arena_.data() + o.place.offset;
  Tensor& t = s_.slots[o.place.slot];
  t = allocate(o);
  return static_cast<char*>(t.raw_data());
}

// Allocates the group's outputs and points its bindings, held in `a`, at its data.
GroupBindings Execution::bind(const GroupStep& g, BindingArrays& a) {
  const GroupProgram& p = g.program;
  a.inputs.resize(g.inputs.size());
  for (size_t i = 0; i < g.inputs.size(); ++i) a.inputs[i] = input_data(g.inputs[i]);
  a.outputs.resize(g.outputs.size());
  for (size_t j = 0; j < g.outputs.size(); ++j) a.outputs[j] = output_data(g.outputs[j]);
  a.scalars.resize(g.scalar_slots.size());
  for (size_t k = 0; k < g.scalar_slots.size(); ++k) {
    a.scalars[k] = s_.slot_scalars[g.scalar_slots[k]];
  }
  GroupBindings b;
  b.inputs = a.inputs.data();
  b.outputs = a.outputs.data();
  b.scalars = a.scalars.data();
  if (p.has_reduction) {
    b.reduction = output_data(g.reduction);
    a.partials.resize(static_cast<size_t>(num_partials(p)));
    b.partials = a.partials.data();
  }
  return b;
}

// Steps [first, end), a row band (See Note [Row bands] in row_bands.h): every member is bound
// (its outputs allocated) before any runs, since blocks interleave them.
void Execution::run_band_steps(size_t first, size_t end) {
  static metrics::Counter& bands = metrics::counter("fusion.bands_run");
  BandMember members[kMaxBandMembers];
  const size_t count = end - first;
  for (size_t k = 0; k < count; ++k) {
    const GroupStep& g = e_.groups[e_.steps[first + k].index];
    members[k] = BandMember{&g.program, bind(g, s_.bindings[k])};
  }
  bands.add();
  const Band& band = e_.steps[first].band;
  run_band(members, count, band.rows, band.rows_per_block, band.parts);
}

void Execution::run_lower_step(const LowerStep& l) {
  s_.args.clear();
  for (uint32_t slot : l.operand_slots)
    s_.args.push_back(slot == kNoSlot ? Tensor() : s_.slots[slot]);
  std::vector<Tensor> outs = l.fn(*l.node, s_.args);
  s_.args.clear();
  if (outs.size() != l.node->num_outputs()) {
    throw std::logic_error("cpu-fused: the lowering of " + l.node->to_string() + " returned " +
                           std::to_string(outs.size()) + " tensors, expected " +
                           std::to_string(l.node->num_outputs()));
  }
  for (size_t j = 0; j < outs.size(); ++j) s_.slots[l.first_slot + j] = std::move(outs[j]);
}

// Marks an executable's scratch as in use for the lifetime of one execution, and leaves no
// tensor behind in it (also when a step throws).
class ScratchLease {
 public:
  explicit ScratchLease(const FusedExecutable& e)
      : e_(e),
        exclusive_(!e.busy.exchange(true, std::memory_order_acquire)),
        exceptions_(std::uncaught_exceptions()) {
    scratch().slots.resize(e.num_slots);
  }
  // Steps release what they no longer need, so after a normal run only the graph's inputs and
  // outputs are left; after an exception anything may be.
  ~ScratchLease() {
    std::vector<Tensor>& slots = scratch().slots;
    if (std::uncaught_exceptions() > exceptions_) {
      for (Tensor& t : slots) t = Tensor();
    } else {
      for (uint32_t slot : e_.input_slots) slots[slot] = Tensor();
      for (uint32_t slot : e_.output_slots) slots[slot] = Tensor();
    }
    scratch().args.clear();
    if (exclusive_) e_.busy.store(false, std::memory_order_release);
  }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  ExecScratch& scratch() { return exclusive_ ? e_.scratch : local_; }
  bool exclusive() const { return exclusive_; }

 private:
  const FusedExecutable& e_;
  bool exclusive_;
  int exceptions_;
  ExecScratch local_;
};

}  // namespace

std::vector<Tensor> FusedBackend::execute(const exec::Executable& executable,
                                          const std::vector<exec::Input>& inputs) {
  const auto& e = static_cast<const FusedExecutable&>(executable);
  if (inputs.size() != e.input_slots.size()) {
    throw std::invalid_argument("cpu-fused: " + std::to_string(inputs.size()) +
                                " inputs for a graph with " + std::to_string(e.input_slots.size()));
  }
  ScratchLease lease(e);
  ExecScratch& s = lease.scratch();
  s.slot_scalars.resize(e.num_slots);
  for (size_t k = 0; k < inputs.size(); ++k) {
    const exec::Input& in = inputs[k];
    const uint32_t slot = e.input_slots[k];
    if (!in.is_scalar()) {
      s.slots[slot] = in.tensor;
      continue;
    }
    s.slot_scalars[slot] = TileScalar::of(in.scalar);
    if (e.input_as_tensor[k]) s.slots[slot] = exec::input_as_tensor(in);
  }
  Execution(e, s, inputs, lease.exclusive()).run();
  std::vector<Tensor> out;
  out.reserve(e.output_slots.size());
  for (uint32_t slot : e.output_slots) out.push_back(s.slots[slot]);
  return out;
}

}  // namespace lazygen::cpu::fusion
