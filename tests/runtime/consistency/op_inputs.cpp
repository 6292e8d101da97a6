// See op_inputs.h. Generated cases, by the op's `shape:` kind:
//   same       one shape for every tensor input: 2-d, 3-d, 0-dim, zero-size, one element,
//              transposed, sliced, expanded (stride 0) and large (41x1000: both threads, eager
//              and fused)
//   broadcast  shapes cycled over the inputs: equal, pairwise and rank broadcasts, a 0-dim on
//              either side, zero-size, one element, non-contiguous and large; an in-place op's
//              self takes the broadcast shape (it is the result)
//   reduce     shapes with `dim` lists: several dims, the last kept, all, over a zero-size dim,
//              non-contiguous and large
// The second case of each kind repeats the first with new values and Scalars: on the lazy device
// it replays the first one's compiled graph (a computation-cache hit with new parameters).
// Non-tensor arguments: a Scalar without a default takes 2, 0.5 and -1.5 in turn (integral and
// floating Scalars both meet integer tensors), one with a default takes 2 on every other case;
// `dim` and `keepdim` follow the case; other arguments take their defaults (optionals without
// one are None, bools false). Anything else needs `samples:`. Listed samples are run as written
// and again with every tensor input made non-contiguous.
#include "op_inputs.h"

#include <cmath>
#include <random>
#include <sstream>
#include <stdexcept>

#include "lazygen/factory.h"
#include "lazygen/generated/ops/broadcast.h"
#include "lazygen/generated/ops/copy_.h"
#include "lazygen/generated/ops/slice.h"
#include "lazygen/generated/ops/transpose.h"

namespace lazygen::testing {
namespace {

using Sizes = std::vector<int64_t>;
using Layout = InputTensor::Layout;

struct TensorPlan {
  Sizes sizes;
  Layout layout = Layout::Contiguous;
  Sizes expand_to = {};
};

struct ShapePlan {
  std::string label;
  std::vector<TensorPlan> inputs;  // cycled over the op's tensor inputs
  std::optional<Sizes> dims = {};  // reduce: the dims (nullopt: all)
  bool keepdim = false;
  bool large = false;
};

const Layout T = Layout::Transposed, S = Layout::Sliced, E = Layout::Expanded;

std::vector<ShapePlan> same_plans() {
  return {{"2-d", {{{3, 4}}}, Sizes{-1}},
          {"2-d-again", {{{3, 4}}}, Sizes{-1}},
          {"3-d", {{{2, 3, 4}}}, Sizes{1}},
          {"0-dim", {{{}}}, Sizes{-1}},
          {"zero-size", {{{0, 3}}}, Sizes{-1}},
          {"one-element", {{{1}}}, Sizes{0}},
          {"transposed", {{{4, 5}, T}}, Sizes{0}},
          {"sliced", {{{3, 5}, S}}, Sizes{-1}},
          {"expanded", {{{3, 1}, E, {3, 4}}}, Sizes{-1}},
          {"large", {{{41, 1000}}}, Sizes{-1}, false, true}};
}

std::vector<ShapePlan> broadcast_plans() {
  return {{"equal", {{{3, 4}}}},
          {"equal-again", {{{3, 4}}}},
          {"broadcast", {{{3, 1}}, {{1, 4}}, {{4}}}},
          {"rank", {{{2, 3, 4}}, {{3, 1}}, {{4}}}},
          {"0-dim-first", {{{}}, {{2, 3}}}},
          {"0-dim-second", {{{2, 3}}, {{}}}},
          {"zero-size", {{{0, 3}}, {{3}}}},
          {"zero-size-broadcast", {{{0, 1}}, {{1, 3}}}},
          {"one-element", {{{1}}, {{1, 1}}}},
          {"transposed", {{{4, 5}, T}}},
          {"sliced", {{{3, 5}, S}}},
          {"expanded", {{{3, 1}, E, {3, 4}}, {{3, 4}}}},
          {"large", {{{41, 1000}}, {{1000}}, {{41, 1}}}, std::nullopt, false, true}};
}

std::vector<ShapePlan> reduce_plans() {
  return {{"3-d-dims-0-2", {{{3, 4, 5}}}, Sizes{0, 2}},
          {"3-d-dims-0-2-again", {{{3, 4, 5}}}, Sizes{0, 2}},
          {"3-d-last-keepdim", {{{3, 4, 5}}}, Sizes{-1}, true},
          {"0-dim", {{{}}}, std::nullopt},
          {"zero-size-dim-1", {{{0, 3}}}, Sizes{1}},
          {"zero-size-all", {{{0, 3}}}, std::nullopt},
          {"one-element", {{{1}}}, Sizes{0}, true},
          {"transposed", {{{4, 5}, T}}, Sizes{0}},
          {"sliced", {{{3, 5}, S}}, Sizes{-1}},
          {"expanded", {{{3, 1}, E, {3, 4}}}, Sizes{1}},
          {"large-all", {{{41, 1000}}}, std::nullopt, false, true},
          {"large-last", {{{41, 1000}}}, Sizes{-1}, false, true}};
}

// FNV-1a: a seed that does not depend on the standard library's std::hash.
uint64_t seed_of(const std::string& text) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

Tensor make_values(const Sizes& sizes, DType dtype, const Domain& domain, uint64_t seed) {
  std::mt19937_64 rng(seed);
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  const bool floating = is_floating(dtype);
  // Integers (or eighths for floats) in [lo, hi]; positive/nonzero domains keep away from 0.
  int64_t lo = floating ? -16 : -4, hi = floating ? 16 : 4;
  if (dtype == DType::Bool) lo = 0, hi = 1;
  if (domain.kind == Domain::Positive || domain.kind == Domain::Nonzero) lo = floating ? 4 : 1;
  if (domain.kind == Domain::Index) lo = 0, hi = domain.bound - 1;
  std::uniform_int_distribution<int64_t> pick(lo, hi);
  std::bernoulli_distribution negate(domain.kind == Domain::Nonzero ? 0.5 : 0.0);
  std::vector<double> values(static_cast<size_t>(n));
  for (double& v : values) {
    v = static_cast<double>(pick(rng)) / (floating && domain.kind != Domain::Index ? 8.0 : 1.0);
    if (negate(rng)) v = -v;
  }
  return tensor<double>(values, sizes).to(dtype);
}

// What the case builder knows about one op, and the running state of one case.
class CaseBuilder {
 public:
  CaseBuilder(const OpInfo& op, const std::vector<DType>& dtypes) : op_(op), dtypes_(dtypes) {}

  [[noreturn]] void need_samples(const std::string& why) const {
    throw std::runtime_error(
        std::string(op_.name) + ": " + why +
        "; add `samples:` to its ops.yaml entry (see docs/ops-yaml.md)");
  }

  // A tensor of `sizes` for argument `arg`; its dtype is fixed by a bool/index domain or else
  // the next of the case's dtypes.
  InputTensor tensor(const ArgInfo& arg, const TensorPlan& plan,
                     const std::optional<Domain>& given) {
    Domain domain = given.value_or(arg.domain);
    DType dtype = domain.kind == Domain::Bool    ? DType::Bool
                  : domain.kind == Domain::Index ? DType::Int64
                                                 : dtypes_[next_dtype_++ % dtypes_.size()];
    std::string key = std::string(op_.id) + "/" + label_ + "/" + std::string(arg.name) + "/" +
                      std::to_string(counter_++) + "/" + std::string(dtype_name(dtype));
    return InputTensor(make_values(plan.sizes, dtype, domain, seed_of(key)), plan.layout,
                       plan.expand_to);
  }

  std::vector<OpCase> generated(bool large) {
    std::vector<ShapePlan> plans = op_.shape == ShapeKind::Same        ? same_plans()
                                   : op_.shape == ShapeKind::Broadcast ? broadcast_plans()
                                                                       : reduce_plans();
    std::vector<OpCase> cases;
    for (size_t i = 0; i < plans.size(); ++i) {
      if (plans[i].large && !large) continue;
      cases.push_back(generated_case(plans[i], i));
    }
    return cases;
  }

  std::vector<OpCase> listed() {
    std::vector<OpCase> cases;
    for (size_t i = 0; i < op_.samples.size(); ++i) {
      for (bool strided : {false, true}) {
        start("sample " + std::to_string(i) + (strided ? " non-contiguous" : ""));
        OpCase c{label_, {}};
        for (const ArgInfo& arg : op_.args)
          c.args.push_back(listed_value(arg, op_.samples[i], strided));
        cases.push_back(std::move(c));
      }
    }
    return cases;
  }

 private:
  void start(const std::string& label) {
    label_ = label;
    next_dtype_ = 0;
  }

  static Sizes broadcast(const Sizes& a, const Sizes& b) {
    Sizes out(std::max(a.size(), b.size()), 1);
    for (size_t i = 0; i < out.size(); ++i) {
      int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1,
              y = i < b.size() ? b[b.size() - 1 - i] : 1;
      out[out.size() - 1 - i] = x == 1 ? y : x;
    }
    return out;
  }

  OpCase generated_case(const ShapePlan& plan, size_t index) {
    start(plan.label);
    OpCase c{plan.label, {}};
    Sizes full;  // the broadcast shape: an in-place op's self
    size_t k = 0;
    for (const ArgInfo& arg : op_.args) {
      if (arg.kind != ArgKind::Tensor || arg.optional || (arg.written && arg.kwarg_only)) continue;
      const TensorPlan& t = plan.inputs[k++ % plan.inputs.size()];
      full = broadcast(full, t.layout == E ? t.expand_to : t.sizes);
    }
    k = 0;
    for (const ArgInfo& arg : op_.args)
      c.args.push_back(generated_value(arg, plan, index, full, k));
    return c;
  }

  std::optional<InputValue> generated_value(const ArgInfo& arg, const ShapePlan& plan, size_t index,
                                            const Sizes& full, size_t& k) {
    const bool odd = index % 2 == 1;
    if (arg.kind == ArgKind::Tensor && arg.written && arg.kwarg_only) return std::nullopt;  // out=
    if (arg.kind == ArgKind::Tensor && arg.written) {  // in-place self: the result's shape
      const TensorPlan& own = plan.inputs[k++ % plan.inputs.size()];
      return tensor(arg, {full, own.layout == E ? Layout::Contiguous : own.layout}, std::nullopt);
    }
    if (arg.kind == ArgKind::Tensor && !arg.optional)
      return tensor(arg, plan.inputs[k++ % plan.inputs.size()], std::nullopt);
    if (arg.name == "dim" && (arg.kind == ArgKind::IntList || arg.kind == ArgKind::Int))
      return dim_value(arg, plan);
    if (arg.name == "keepdim" && arg.kind == ArgKind::Bool) return Arg(plan.keepdim);
    if (arg.kind == ArgKind::Scalar && !arg.default_value) {
      static const Arg kScalars[] = {Arg(int64_t{2}), Arg(0.5), Arg(-1.5)};
      return kScalars[index % 3];
    }
    if (arg.kind == ArgKind::Scalar && odd) return Arg(int64_t{2});
    if (arg.default_value) return *arg.default_value;
    if (arg.optional) return Arg();
    if (arg.kind == ArgKind::Bool) return Arg(false);
    need_samples("argument '" + std::string(arg.name) + "' has no default and no generated value");
  }

  Arg dim_value(const ArgInfo& arg, const ShapePlan& plan) const {
    if (!plan.dims) {
      if (arg.optional) return Arg();
      if (arg.default_value) return *arg.default_value;
      return arg.kind == ArgKind::Int ? Arg(int64_t{-1}) : Arg(Sizes{});
    }
    if (arg.kind == ArgKind::Int) return Arg(plan.dims->front());
    return Arg(*plan.dims);
  }

  // A listed tensor, made non-contiguous when `strided` and its sizes allow.
  InputTensor listed_tensor(const ArgInfo& arg, const TensorSample& s, bool strided) {
    TensorPlan plan{s.sizes};
    int64_t n = 1;
    for (int64_t d : s.sizes) n *= d;
    if (strided && s.sizes.size() >= 2 && s.sizes.back() > 1 && s.sizes[s.sizes.size() - 2] > 1)
      plan.layout = T;
    else if (strided && !s.sizes.empty() && n >= 2)
      plan.layout = S;
    return tensor(arg, plan, s.domain);
  }

  std::optional<InputValue> listed_value(const ArgInfo& arg, const Sample& sample, bool strided) {
    for (const auto& [name, value] : sample.values) {
      if (name != arg.name) continue;
      if (const auto* t = std::get_if<TensorSample>(&value)) return listed_tensor(arg, *t, strided);
      if (const auto* ts = std::get_if<std::vector<TensorSample>>(&value)) {
        std::vector<InputTensor> list;
        for (const TensorSample& t : *ts) list.push_back(listed_tensor(arg, t, strided));
        return list;
      }
      return std::get<Arg>(value);
    }
    if (arg.written && arg.kwarg_only) return std::nullopt;  // out=: made by the runner
    return *arg.default_value;  // the generator checked that omitted arguments have one
  }

  const OpInfo& op_;
  std::vector<DType> dtypes_;
  std::string label_;
  size_t next_dtype_ = 0;
  size_t counter_ = 0;
};

}  // namespace

InputTensor::InputTensor(const Tensor& values, Layout layout, std::vector<int64_t> expand_to)
    : values_(values), layout_(layout), expand_to_(std::move(expand_to)) {
  const int64_t last = values.dim() - 1;
  if (layout == Layout::Transposed) {
    storage_ = transpose(values, last - 1, last).contiguous();
  } else if (layout == Layout::Sliced) {
    Sizes sizes = values.sizes();
    sizes.back() *= 2;
    storage_ = full(sizes, 99, values.dtype());  // odd elements: values no sample holds
    copy_(slice(storage_, last, std::nullopt, std::nullopt, 2), values);
  } else {
    storage_ = values;
  }
}

Tensor InputTensor::make(Device device, Tensor* base) const {
  Tensor t = storage_.clone().to(device);
  if (base) *base = t;
  const int64_t last = t.dim() - 1;
  switch (layout_) {
    case Layout::Transposed:
      return transpose(t, last - 1, last);
    case Layout::Sliced:
      return slice(t, last, std::nullopt, std::nullopt, 2);
    case Layout::Expanded:
      return t.expand(expand_to_);
    case Layout::Contiguous:
      break;
  }
  return t;
}

std::string InputTensor::str() const {
  static const char* const kLayouts[] = {"", " transposed", " sliced", " expanded"};
  std::ostringstream os;
  os << dtype_name(values_.dtype()) << sizes_str(values_.sizes())
     << kLayouts[static_cast<int>(layout_)];
  if (layout_ == Layout::Expanded) os << " to " << sizes_str(expand_to_);
  return os.str();
}

std::vector<OpCase> make_cases(const OpInfo& op, const std::vector<DType>& dtypes, bool large) {
  CaseBuilder builder(op, dtypes);
  bool generated = op.shape == ShapeKind::Same || op.shape == ShapeKind::Broadcast ||
                   op.shape == ShapeKind::Reduce;
  if (!generated && op.samples.empty()) {
    builder.need_samples(std::string("its inputs cannot be generated for `shape: ") +
                         (op.shape == ShapeKind::View ? "view`" : "custom`"));
  }
  std::vector<OpCase> cases = generated ? builder.generated(large) : std::vector<OpCase>{};
  for (OpCase& c : builder.listed()) cases.push_back(std::move(c));
  return cases;
}

std::vector<DTypeSets> dtype_sets(const OpInfo& op) {
  using D = DType;
  std::vector<DTypeSets> out = {{"float32", {{D::Float32}}},
                                {"float64", {{D::Float64}}},
                                {"int32", {{D::Int32}}},
                                {"int64", {{D::Int64}}},
                                {"bool", {{D::Bool}}}};
  if (has_mixable_inputs(op)) {
    out.push_back({"mixed",
                   {{D::Float32, D::Float64}, {D::Float64, D::Int32}, {D::Int32, D::Float32},
                    {D::Int64, D::Int32}, {D::Bool, D::Float32}}});
  }
  return out;
}

std::string primary_dtype(const OpInfo& op) {
  if (op.dtypes & dtype_bit(DType::Float32)) return "float32";
  for (DType t : {DType::Bool, DType::Int32, DType::Int64, DType::Float64}) {
    if (op.dtypes & dtype_bit(t)) return std::string(dtype_name(t));
  }
  return "float32";
}

bool has_mixable_inputs(const OpInfo& op) {
  int count = 0;
  for (const ArgInfo& arg : op.args) {
    bool fixed = arg.domain.kind == Domain::Bool || arg.domain.kind == Domain::Index;
    if (arg.kind == ArgKind::TensorList)
      count += 2;
    else if (arg.kind == ArgKind::Tensor && !fixed && !(arg.written && arg.kwarg_only))
      ++count;
  }
  return count >= 2;
}

std::string value_difference(const Tensor& expected, const Tensor& actual, bool exact, double rtol,
                             double atol, std::string_view expected_name) {
  const std::string name(expected_name);
  if (expected.dtype() != actual.dtype()) {
    return "dtype " + std::string(dtype_name(actual.dtype())) + ", " + name + " " +
           std::string(dtype_name(expected.dtype()));
  }
  if (expected.sizes() != actual.sizes()) {
    return "sizes " + sizes_str(actual.sizes()) + ", " + name + " " + sizes_str(expected.sizes());
  }
  const Tensor e = expected.to(DType::Float64).contiguous(), a = actual.to(DType::Float64).contiguous();
  const double* pe = e.numel() ? e.data_ptr<double>() : nullptr;
  const double* pa = a.numel() ? a.data_ptr<double>() : nullptr;
  for (int64_t i = 0; i < e.numel(); ++i) {
    if ((std::isnan(pe[i]) && std::isnan(pa[i])) || pe[i] == pa[i]) continue;
    if (!exact && std::abs(pe[i] - pa[i]) <= atol + rtol * std::abs(pe[i])) continue;
    std::ostringstream os;
    os.precision(17);
    os << "element " << i << ": " << pa[i] << ", " << name << " " << pe[i] << (exact ? " (exact)" : "");
    return os.str();
  }
  return "";
}

}  // namespace lazygen::testing
