// Random programs, cpu vs lazy (random_program.h; See Note [Random programs]).
#include "random_program.h"

#include <map>
#include <exception>
#include <random>
#include <sstream>

#include "core/tensor/tensor_impl.h"
#include "lazygen/factory.h"
#include "lazygen/lazy.h"
#include "lazygen/op_info.h"
#include "op_inputs.h"

namespace lazygen::testing {
namespace {

// Slot ids: step id * kSlotsPerStep + k, k < 8 for the step's outputs, 8 + 2 * arg for a fresh
// tensor argument and 9 + 2 * arg for the tensor it is a view of.
constexpr int64_t kSlotsPerStep = 64;
constexpr int64_t kMaxOutputs = 8;
constexpr size_t kMaxSlots = 24;        // the oldest slots are dropped beyond it

struct Slot {
  int64_t id;
  Tensor cpu, lazy;
};

ProgramStats& stats() {
  static ProgramStats s;
  return s;
}

const std::vector<std::vector<DType>>& flat_dtype_sets(const OpInfo& op) {
  static std::vector<std::vector<std::vector<DType>>> cache(all_ops().size());
  std::vector<std::vector<DType>>& sets = cache[static_cast<size_t>(&op - all_ops().data())];
  if (sets.empty()) {
    for (const DTypeSets& d : dtype_sets(op)) sets.insert(sets.end(), d.sets.begin(), d.sets.end());
  }
  return sets;
}

// The cases of `op` in its dtype set `set`, made once (InputTensor::make copies, so they are
// reused safely).
const std::vector<OpCase>& cases_of(uint32_t op, uint32_t set) {
  static std::map<std::pair<uint32_t, uint32_t>, std::vector<OpCase>> cache;
  auto it = cache.find({op, set});
  if (it == cache.end()) {
    const OpInfo& info = all_ops()[op];
    it = cache.emplace(std::pair(op, set), make_cases(info, flat_dtype_sets(info)[set], false)).first;
  }
  return it->second;
}

// Whether a program may call `op`: its cases can be generated.
bool usable(uint32_t op) {
  try {
    return !cases_of(op, 0).empty();
  } catch (const std::exception&) {
    return false;
  }
}

const std::vector<uint32_t>& usable_ops() {
  static const std::vector<uint32_t> ops = [] {
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < all_ops().size(); ++i) {
      if (usable(i)) out.push_back(i);
    }
    return out;
  }();
  return ops;
}

// What a tensor argument of a case looks like to a slot that could stand in for it; no sizes:
// any (an op of `shape: same` whose only tensor this is takes every shape).
struct Want {
  DType dtype;
  std::optional<std::vector<int64_t>> sizes;
  bool fits(const Tensor& t) const { return t.dtype() == dtype && (!sizes || t.sizes() == *sizes); }
};

bool takes_any_shape(const OpInfo& op) {
  if (op.shape != ShapeKind::Same) return false;
  int tensors = 0;
  for (const ArgInfo& a : op.args) tensors += a.kind == ArgKind::Tensor || a.kind == ArgKind::TensorList;
  return tensors == 1;
}

// Whether the values of argument `arg` are restricted (a domain, here or in a sample): an
// earlier result could hold any value, so it never stands in for such an argument.
bool restricted(const OpInfo& op, size_t arg) {
  const Domain::Kind domain = op.args[arg].domain.kind;
  if (domain != Domain::Any && domain != Domain::Bool) return true;
  for (const Sample& sample : op.samples) {
    for (const auto& [name, value] : sample.values) {
      const auto* t = std::get_if<TensorSample>(&value);
      if (name == op.args[arg].name && t != nullptr && t->domain) return true;
    }
  }
  return false;
}

std::optional<Want> want_of(const OpInfo& op, size_t arg, const std::optional<InputValue>& v,
                            const std::optional<Tensor>& out_like) {
  if (restricted(op, arg)) return std::nullopt;
  if (!v) {
    if (!out_like) return std::nullopt;
    return Want{out_like->dtype(), out_like->sizes()};
  }
  const auto* t = std::get_if<InputTensor>(&*v);
  if (t == nullptr) return std::nullopt;
  if (takes_any_shape(op)) return Want{t->values().dtype(), std::nullopt};
  const std::vector<int64_t> sizes =
      t->layout() == InputTensor::Layout::Expanded ? t->expand_to() : t->make(kCPU).sizes();
  return Want{t->values().dtype(), sizes};
}

// A step's arguments: per device, and the fresh tensors made for it (See keep_inputs).
struct StepArgs {
  std::vector<Arg> cpu, lazy;
  std::vector<std::pair<Tensor, Tensor>> fresh;  // (cpu, lazy): 2 * arg, and 2 * arg + 1 its base
};

class Runner {
 public:
  explicit Runner(std::mt19937_64* rng) : rng_(rng) {}

  // Runs one step (choosing its random parts first when generating); "" or the failure.
  std::string step(ProgramStep& s);
  // Draws the step's op, dtype set and case, preferring (after a first result) ones that can
  // take an earlier result as an argument.
  void choose(ProgramStep& s);
  bool arguments(const ProgramStep& s, const OpCase& c, const std::optional<Tensor>& like,
                 StepArgs& out) const;
  std::string check_slots() const;

 private:
  uint32_t draw(size_t n) {
    return static_cast<uint32_t>(std::uniform_int_distribution<size_t>(0, n - 1)(*rng_));
  }
  bool fits_a_slot(const OpInfo& op, const OpCase& c) const;
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(*rng_) < p; }
  const Slot* slot(int64_t id) const {
    for (const Slot& s : slots_) {
      if (s.id == id) return &s;
    }
    return nullptr;
  }
  int64_t pick_slot(const Want& want, bool written);
  std::optional<Tensor> out_like(const OpInfo& op, const OpCase& c);
  void keep(uint32_t step_id, const OpInfo& op, const std::vector<Arg>& cpu_args,
            const std::vector<Tensor>& cpu, const std::vector<Tensor>& lazy);
  void keep_inputs(uint32_t step_id, const std::vector<std::pair<Tensor, Tensor>>& fresh);

  std::mt19937_64* rng_;  // null when replaying
  std::vector<Slot> slots_;
};

bool Runner::fits_a_slot(const OpInfo& op, const OpCase& c) const {
  for (size_t i = 0; i < c.args.size(); ++i) {
    const std::optional<Want> want = c.args[i] ? want_of(op, i, c.args[i], std::nullopt) : std::nullopt;
    if (!want) continue;
    for (const Slot& s : slots_) {
      if (want->fits(s.cpu)) return true;
    }
  }
  return false;
}

void Runner::choose(ProgramStep& s) {
  const std::vector<uint32_t>& ops = usable_ops();
  const int attempts = !slots_.empty() && chance(0.7) ? 40 : 1;
  for (int a = 0; a < attempts; ++a) {
    s.op = ops[draw(ops.size())];
    s.dtype_set = draw(flat_dtype_sets(all_ops()[s.op]).size());
    const std::vector<OpCase>& cases = cases_of(s.op, s.dtype_set);
    s.case_index = draw(cases.size());
    if (fits_a_slot(all_ops()[s.op], cases[s.case_index])) return;
  }
}

int64_t Runner::pick_slot(const Want& want, bool written) {
  std::vector<int64_t> fits;
  for (const Slot& s : slots_) {
    if (want.fits(s.cpu)) fits.push_back(s.id);
  }
  if (fits.empty() || !chance(written ? 0.9 : 0.75)) return -1;
  return fits[std::uniform_int_distribution<size_t>(0, fits.size() - 1)(*rng_)];
}

// For an out= op, the functional op's result on the case's cpu inputs (what out= holds).
std::optional<Tensor> Runner::out_like(const OpInfo& op, const OpCase& c) {
  const OpInfo* functional = op.functional.empty() ? nullptr : find_op(op.functional);
  if (functional == nullptr) return std::nullopt;
  std::vector<Arg> args;
  for (size_t i = 0; i < c.args.size(); ++i) {
    if (!c.args[i]) continue;
    if (const auto* t = std::get_if<InputTensor>(&*c.args[i])) {
      const Arg made(t->make(kCPU));  // (a temporary variant trips GCC's maybe-uninitialized)
      args.push_back(made);
    } else if (const auto* a = std::get_if<Arg>(&*c.args[i])) {
      args.push_back(*a);
    } else {
      return std::nullopt;
    }
  }
  try {
    return call_op(*functional, args).at(0);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Keeps the step's results as slots (not views the cpu had to copy: See Note [Random programs]).
void Runner::keep(uint32_t step_id, const OpInfo& op, const std::vector<Arg>& cpu_args,
                  const std::vector<Tensor>& cpu, const std::vector<Tensor>& lazy) {
  const bool view_like = op.shape == ShapeKind::View || op.name == "reshape" ||
                         op.name == "flatten.using_ints" || op.name == "contiguous";
  for (size_t k = 0; k < cpu.size() && k < lazy.size() && k < kMaxOutputs; ++k) {
    if (!cpu[k].defined() || !lazy[k].defined()) continue;
    if (view_like) {
      const auto* self = cpu_args.empty() ? nullptr : std::get_if<Tensor>(&cpu_args[0]);
      if (self == nullptr || cpu[k].impl()->storage() != self->impl()->storage()) continue;
    }
    slots_.push_back({static_cast<int64_t>(step_id) * kSlotsPerStep + static_cast<int64_t>(k),
                      cpu[k], lazy[k]});
  }
  while (slots_.size() > kMaxSlots) slots_.erase(slots_.begin());
}

// Keeps the step's fresh tensor arguments and their bases (pairs at 2 * arg and 2 * arg + 1;
// undefined when not fresh): later steps can then write into them, and the checks see writes
// made through views of them.
void Runner::keep_inputs(uint32_t step_id, const std::vector<std::pair<Tensor, Tensor>>& fresh) {
  for (size_t k = 0; k < fresh.size(); ++k) {
    if (!fresh[k].first.defined()) continue;
    if (k % 2 == 1 && fresh[k].first.is_same(fresh[k - 1].first)) continue;  // no view: kept once
    slots_.push_back({static_cast<int64_t>(step_id) * kSlotsPerStep + 8 + static_cast<int64_t>(k),
                      fresh[k].first, fresh[k].second});
  }
  while (slots_.size() > kMaxSlots) slots_.erase(slots_.begin());
}

std::string describe_error(const std::string& cpu, const std::string& lazy) {
  return "cpu " + (cpu.empty() ? std::string("ran") : "raised: " + cpu) + "; lazy " +
         (lazy.empty() ? std::string("ran") : "raised: " + lazy);
}

// The step's arguments on both devices: earlier results where the step names one, else the
// case's (made fresh, and kept in out.fresh with their bases). False when an out= op has no
// functional result to size its out= tensor by.
bool Runner::arguments(const ProgramStep& s, const OpCase& c, const std::optional<Tensor>& like,
                       StepArgs& out) const {
  out.fresh.assign(2 * c.args.size(), {});
  for (size_t i = 0; i < c.args.size(); ++i) {
    const Slot* from = i < s.inputs.size() && s.inputs[i] >= 0 ? slot(s.inputs[i]) : nullptr;
    if (from != nullptr) {
      out.cpu.emplace_back(from->cpu);
      out.lazy.emplace_back(from->lazy);
    } else if (!c.args[i]) {
      if (!like) return false;
      const Arg on_cpu(zeros(like->sizes(), like->dtype()));
      const Arg on_lazy(zeros(like->sizes(), like->dtype(), kLazy));
      out.cpu.push_back(on_cpu);
      out.lazy.push_back(on_lazy);
    } else if (const auto* t = std::get_if<InputTensor>(&*c.args[i])) {
      Tensor cpu_base, lazy_base;
      const Tensor on_cpu = t->make(kCPU, &cpu_base), on_lazy = t->make(kLazy, &lazy_base);
      out.fresh[2 * i] = {on_cpu, on_lazy};
      out.fresh[2 * i + 1] = {cpu_base, lazy_base};
      const Arg cpu_arg(on_cpu), lazy_arg(on_lazy);
      out.cpu.push_back(cpu_arg);
      out.lazy.push_back(lazy_arg);
    } else if (const auto* list = std::get_if<std::vector<InputTensor>>(&*c.args[i])) {
      std::vector<Tensor> on_cpu, on_lazy;
      for (const InputTensor& t : *list) {
        on_cpu.push_back(t.make(kCPU));
        on_lazy.push_back(t.make(kLazy));
      }
      out.cpu.push_back(on_cpu);
      out.lazy.push_back(on_lazy);
    } else {
      out.cpu.push_back(std::get<Arg>(*c.args[i]));
      out.lazy.push_back(std::get<Arg>(*c.args[i]));
    }
  }
  return true;
}

std::string Runner::step(ProgramStep& s) {
  if (rng_ != nullptr) choose(s);
  const OpInfo& op = all_ops()[s.op];
  const OpCase& c = cases_of(s.op, s.dtype_set)[s.case_index];
  const std::optional<Tensor> like = op.variant == OpVariant::Out ? out_like(op, c) : std::nullopt;
  if (rng_ != nullptr) {
    s.inputs.assign(c.args.size(), -1);
    for (size_t i = 0; i < c.args.size(); ++i) {
      if (std::optional<Want> want = want_of(op, i, c.args[i], like)) {
        s.inputs[i] = pick_slot(*want, op.args[i].written);
      }
    }
    s.mark_step_after = chance(0.25);
  }
  StepArgs args;
  if (!arguments(s, c, like, args)) return "";  // no out= tensor to give: the step does nothing
  std::vector<Arg>& cpu_args = args.cpu;
  std::vector<Arg>& lazy_args = args.lazy;
  bool chained = false, written = false;
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    if (s.inputs[i] < 0 || slot(s.inputs[i]) == nullptr) continue;
    chained = true;
    written = written || op.args[i].written;
  }
  ++stats().steps;
  stats().chained += chained;
  stats().written_slots += written;
  stats().mark_steps += s.mark_step_after;
  std::vector<Tensor> cpu, lazy;
  std::string cpu_error, lazy_error;
  try {
    cpu = call_op(op, cpu_args);
  } catch (const std::exception& e) {
    cpu_error = e.what();
  }
  try {
    lazy = call_op(op, lazy_args);
  } catch (const std::exception& e) {
    lazy_error = e.what();
  }
  if (op.name == "view" && !cpu_error.empty() && lazy_error.empty() &&
      cpu_error.find("is not compatible") != std::string::npos) {
    cpu_error.clear();  // the deliberate difference (See Note [Random programs]): not kept
    cpu.clear();
  }
  if (cpu_error.empty() != lazy_error.empty()) {
    return std::string(op.name) + ": " + describe_error(cpu_error, lazy_error);
  }
  stats().both_raised += !cpu_error.empty();
  if (cpu_error.empty()) keep(s.id, op, cpu_args, cpu, lazy);
  keep_inputs(s.id, args.fresh);
  if (s.mark_step_after) mark_step();
  return "";
}

// "" when `cpu` and `lazy` (on the cpu) agree (See Note [Random programs]), else how not.
std::string differ(const Tensor& cpu, const Tensor& lazy) {
  return value_difference(cpu, lazy, !is_floating(cpu.dtype()), 1e-4, 1e-5, "cpu");
}

std::string Runner::check_slots() const {
  for (const Slot& s : slots_) {
    Tensor lazy_values;
    try {
      lazy_values = s.lazy.cpu();
    } catch (const std::exception& e) {
      return "slot " + std::to_string(s.id / kSlotsPerStep) + "." +
             std::to_string(s.id % kSlotsPerStep) + ": lazy raised when read: " + e.what();
    }
    const std::string d = differ(s.cpu, lazy_values);
    if (!d.empty()) {
      return "slot " + std::to_string(s.id / kSlotsPerStep) + "." +
             std::to_string(s.id % kSlotsPerStep) + " (" + s.cpu.shape().str() + "): " + d;
    }
  }
  return "";
}

// Every fourth program runs the lazy device without fusion (the lowering path).
bool fused(const Program& program) { return program.seed % 4 != 0; }

std::string run(Program& program, std::mt19937_64* rng) {
  mark_step();
  const bool fusion_was_on = fusion_enabled();
  set_fusion_enabled(fused(program));
  Runner runner(rng);
  std::string failure;
  for (size_t i = 0; i < program.steps.size() && failure.empty(); ++i) {
    try {
      failure = runner.step(program.steps[i]);
    } catch (const std::exception& e) {
      failure = std::string("the harness: ") + e.what();
    }
    if (!failure.empty()) failure = "step " + std::to_string(program.steps[i].id) + ": " + failure;
  }
  if (failure.empty()) failure = runner.check_slots();
  mark_step();
  set_fusion_enabled(fusion_was_on);
  return failure;
}

}  // namespace

const ProgramStats& program_stats() { return stats(); }

Program generate_program(uint64_t seed, int length, std::string& failure) {
  Program program{seed, std::vector<ProgramStep>(static_cast<size_t>(length))};
  for (size_t i = 0; i < program.steps.size(); ++i) program.steps[i].id = static_cast<uint32_t>(i);
  std::mt19937_64 rng(seed);
  failure = run(program, &rng);
  return program;
}

std::string run_program(const Program& program) {
  Program copy = program;
  return run(copy, nullptr);
}

Program minimize(const Program& program) {
  Program best = program;
  for (size_t i = best.steps.size(); i-- > 0;) {
    Program fewer = best;
    fewer.steps.erase(fewer.steps.begin() + static_cast<std::ptrdiff_t>(i));
    if (!run_program(fewer).empty()) best = std::move(fewer);
  }
  return best;
}

std::string describe(const Program& program) {
  std::ostringstream os;
  os << "program (seed " << program.seed << (fused(program) ? "" : ", fusion off") << "):\n";
  for (size_t i = 0; i < program.steps.size(); ++i) {
    const ProgramStep& s = program.steps[i];
    const OpInfo& op = all_ops()[s.op];
    const std::vector<DType>& dtypes = flat_dtype_sets(op)[s.dtype_set];
    os << "  " << s.id << ": " << op.name << " [";
    for (size_t k = 0; k < dtypes.size(); ++k) os << (k ? ", " : "") << dtype_name(dtypes[k]);
    os << "] case '" << cases_of(s.op, s.dtype_set)[s.case_index].label << "'";
    for (size_t a = 0; a < s.inputs.size(); ++a) {
      if (s.inputs[a] >= 0) {
        os << " " << op.args[a].name << "=slot " << s.inputs[a] / kSlotsPerStep << "."
           << s.inputs[a] % kSlotsPerStep;
      }
    }
    if (s.mark_step_after) os << " mark_step";
    os << "\n";
  }
  return os.str();
}

}  // namespace lazygen::testing
