// The consistency suite: every op of ops.yaml (through its OpInfo record, lazygen/op_info.h) run
// eager on the cpu and lazily, on the cases op_inputs.h builds, in each dtype (float32, float64,
// int32, int64, bool) and, for ops with two or more tensor inputs, in mixed dtypes. One test per op
// and dtype; adding an op to ops.yaml adds its tests.
//
// The lazy runs use the lazy device's backend: lazygen's cpu backends, each case once with fusion
// on and once off; or the backend named by LAZYGEN_LAZY_BACKEND, alone. That makes this file a
// kit for backends built outside lazygen: lazygen_add_consistency_test (cmake/LazygenConsistency
// .cmake, installed with lazygen; docs/backends.md) builds it with a backend's sources and runs it
// with that backend selected.
//
// For each case the lazy run must agree with the eager one: both raise, or both return results
// of equal dtype, sizes and values, within:
//   exact      integer and bool results, and `pointwise:` ops (one scalar functor compiled into
//              the eager, fused and unfused kernels; the grid values keep every intermediate exact)
//   1e-5 rel   other float32 results (+1e-6 abs); float64: 1e-12 rel and abs
// NaNs must meet NaNs. In-place and out= ops must return the written tensor itself, and its
// value is compared. An error raised while tracing or while executing counts as raising.
// Random ops are no exception: _dropout_mask draws element i from Philox block (seed, i/4), so
// eager and lazy give the same mask and are compared exactly like the rest.
#include <gtest/gtest.h>

#include <sstream>

#include "lazygen/autograd.h"
#include "lazygen/factory.h"
#include "lazygen/lazy.h"
#include "lazygen/op_info.h"
#include "op_inputs.h"
#include "runtime/distributed/local_world.h"  // the collectives run as a world of one

namespace lazygen::testing {
namespace {

struct Outcome {
  std::vector<Tensor> outputs;   // on the cpu
  std::string error;             // "" when the op ran
  bool returned_written = true;  // in-place/out=: the result is the written tensor
};

// The out= tensors the runner makes: zeros shaped like the functional op's eager result.
void add_out_tensors(const OpInfo& op, OpCase& c) {
  bool missing = false;
  for (const auto& a : c.args) missing |= !a.has_value();
  if (!missing) return;
  const OpInfo* functional = find_op(op.functional);
  if (!functional) {
    throw std::runtime_error(std::string(op.name) +
                             ": its out= tensor must be listed in `samples:` "
                             "(ops.yaml lists no functional op to size it from)");
  }
  std::vector<Arg> args;
  for (size_t i = 0; i < op.args.size(); ++i) {
    if (!c.args[i]) continue;
    if (const auto* t = std::get_if<InputTensor>(&*c.args[i]))
      args.push_back(t->make(kCPU));
    else if (const auto* a = std::get_if<Arg>(&*c.args[i]))
      args.push_back(*a);
    else
      args.push_back(Arg());  // tensor lists never meet out= ops here
  }
  Tensor like;
  try {
    like = call_op(*functional, args).at(0);
  } catch (const std::exception&) {
    like = zeros({0});  // the functional op rejects the inputs; the out= op should too
  }
  for (auto& a : c.args) {
    if (!a) a = InputTensor(zeros(like.sizes(), like.dtype()), InputTensor::Layout::Contiguous);
  }
}

// The case's arguments on `device`; `bases` (if given) receives each tensor argument's base.
std::vector<Arg> materialize(const OpCase& c, Device device, std::vector<Tensor>* bases = nullptr) {
  std::vector<Arg> args;
  if (bases) bases->assign(c.args.size(), Tensor());
  for (const auto& value : c.args) {
    if (const auto* t = std::get_if<InputTensor>(&*value)) {
      args.push_back(t->make(device, bases ? &(*bases)[args.size()] : nullptr));
    } else if (const auto* list = std::get_if<std::vector<InputTensor>>(&*value)) {
      std::vector<Tensor> tensors;
      for (const InputTensor& t : *list) tensors.push_back(t.make(device));
      args.push_back(tensors);
    } else {
      args.push_back(std::get<Arg>(*value));
    }
  }
  return args;
}

Outcome run(const OpInfo& op, const OpCase& c, Device device) {
  Outcome out;
  std::vector<Arg> args = materialize(c, device);
  try {
    std::vector<Tensor> results = call_op(op, args);
    for (size_t i = 0; i < op.args.size(); ++i) {
      if (op.args[i].written && !results.empty()) {
        out.returned_written = results[0].is_same(std::get<Tensor>(args[i]));
      }
    }
    if (device.is_lazy()) sync(results);
    for (const Tensor& r : results) out.outputs.push_back(r.cpu());
  } catch (const std::exception& e) {
    out.outputs.clear();
    out.error = e.what();
  }
  if (device.is_lazy()) mark_step();
  return out;
}

std::string describe(const OpCase& c, const OpInfo& op) {
  std::ostringstream os;
  os << "case '" << c.label << "' (";
  for (size_t i = 0; i < c.args.size(); ++i) {
    os << (i ? ", " : "") << op.args[i].name << "=";
    const auto& v = *c.args[i];
    if (const auto* t = std::get_if<InputTensor>(&v))
      os << t->str();
    else if (const auto* l = std::get_if<std::vector<InputTensor>>(&v))
      os << l->size() << " tensors";
    else if (const auto* a = std::get_if<Arg>(&v))
      os << arg_type_name(*a);
  }
  return os.str() + ")";
}

// "" when `actual` matches `expected` within the tolerance of op and dtype, else why not.
std::string compare(const OpInfo& op, const Tensor& expected, const Tensor& actual) {
  const DType dt = expected.dtype();
  const bool exact = !is_floating(dt) || op.pointwise;
  const double rtol = dt == DType::Float32 ? 1e-5 : 1e-12,
               atol = dt == DType::Float32 ? 1e-6 : 1e-12;
  return value_difference(expected, actual, exact, rtol, atol, "eager");
}

void expect_same(const OpInfo& op, const OpCase& c, const Outcome& eager, const Outcome& lazy,
                 const std::string& mode) {
  const std::string where = std::string(op.name) + ", " + describe(c, op) + ", lazy " + mode;
  if (!eager.error.empty() || !lazy.error.empty()) {
    EXPECT_EQ(eager.error.empty(), lazy.error.empty())
        << where << ": eager " << (eager.error.empty() ? "ran" : "raised: " + eager.error)
        << "; lazy " << (lazy.error.empty() ? "ran" : "raised: " + lazy.error);
    return;
  }
  EXPECT_TRUE(eager.returned_written) << where << ": eager did not return the written tensor";
  EXPECT_TRUE(lazy.returned_written) << where << ": lazy did not return the written tensor";
  ASSERT_EQ(eager.outputs.size(), lazy.outputs.size()) << where;
  for (size_t i = 0; i < eager.outputs.size(); ++i) {
    std::string diff = compare(op, eager.outputs[i], lazy.outputs[i]);
    EXPECT_EQ(diff, "") << where << ", output " << i;
  }
}

// What the lazy device must give for `c`: the eager result, except where the lazy device differs
// on purpose. Lazy tensors are contiguous, so view() of one always succeeds (Note [Lazy view
// lowering] in generator/dest/lowering.cpp): where the cpu refuses a view of strided data, the
// lazy result must be reshape()'s.
Outcome eager_reference(const OpInfo& op, const OpCase& c) {
  Outcome eager = run(op, c, kCPU);
  if (op.name == "view" && eager.error.find("is not compatible") != std::string::npos)
    return run(*find_op("reshape"), c, kCPU);
  return eager;
}

struct Param {
  const OpInfo* op;
  std::string label;                           // "float32", ..., "mixed"
  std::vector<std::vector<DType>> dtype_sets;  // one case list per set (cycled over inputs)
};

void PrintTo(const Param& p, std::ostream* os) {
  *os << p.op->id << "_" << p.label;
}

std::vector<Param> params() {
  std::vector<Param> out;
  for (const OpInfo& op : all_ops()) {
    for (const DTypeSets& d : dtype_sets(op)) out.push_back({&op, d.label, d.sets});
  }
  return out;
}

// Whether the lazy device runs on lazygen's cpu backends, whose fusion the suite switches.
bool on_cpu_backends() {
  return lazy_backend() == "cpu";
}

// The lazy modes each case runs in: "fused" and "unfused" on lazygen's cpu backends, else the
// selected backend's name (one mode).
std::vector<std::string> lazy_modes() {
  if (on_cpu_backends()) return {"fused", "unfused"};
  return {lazy_backend()};
}

class OpConsistency : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override { mark_step(); }
  void TearDown() override {
    if (on_cpu_backends()) set_fusion_enabled(fusion_was_on_);
  }
  bool fusion_was_on_ = fusion_enabled();
};

TEST_P(OpConsistency, LazyMatchesEager) {
  const Param& p = GetParam();
  const OpInfo& op = *p.op;
  std::vector<OpCase> cases;
  const bool single = p.dtype_sets.size() == 1;
  try {
    for (const auto& dtypes : p.dtype_sets) {
      for (OpCase& c : make_cases(op, dtypes, /*large=*/single)) {
        add_out_tensors(op, c);
        cases.push_back(std::move(c));
      }
    }
  } catch (const std::runtime_error& e) {
    FAIL() << e.what();
  }
  std::vector<Outcome> eager;
  for (const OpCase& c : cases) eager.push_back(eager_reference(op, c));
  for (const std::string& mode : lazy_modes()) {
    if (on_cpu_backends()) set_fusion_enabled(mode == "fused");
    for (size_t i = 0; i < cases.size(); ++i) {
      expect_same(op, cases[i], eager[i], run(op, cases[i], kLazy), mode);
    }
  }
  size_t ran = 0;
  for (const Outcome& o : eager) ran += o.error.empty();
  // Every op works on its first dtype (float32 when it takes float32): a case list eager rejects
  // entirely tests nothing.
  if (p.label == primary_dtype(op)) {
    EXPECT_GT(ran, 0u) << op.name << ": eager rejects every " << p.label << " case (e.g. "
                       << (eager.empty() ? "none" : eager[0].error)
                       << "); check its ops.yaml samples";
  }
  RecordProperty("cases", static_cast<int>(cases.size()));
  RecordProperty("cases_eager_rejects", static_cast<int>(cases.size() - ran));
}

INSTANTIATE_TEST_SUITE_P(Ops, OpConsistency, ::testing::ValuesIn(params()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return std::string(info.param.op->id) + "_" + info.param.label;
                         });

// An in-place op on a view (`x.t().mul_(2)`) must change the tensor it views, on the lazy device
// as on the cpu (See Note [Lazy views]). The suite above compares the written tensor itself; this
// test runs each in-place op on a transposed and on a sliced self and compares the base.
TEST(OpConsistencyViews, InPlaceOnAViewUpdatesItsBase) {
  std::vector<std::string> differ;
  int checked = 0;
  for (const OpInfo& op : all_ops()) {
    if (op.variant != OpVariant::Inplace || op.shape == ShapeKind::Custom ||
        op.shape == ShapeKind::View)
      continue;
    for (const OpCase& c : make_cases(op, {DType::Float32}, /*large=*/false)) {
      if (c.label != "transposed" && c.label != "sliced") continue;
      const int self = op.arg_index("self");
      std::vector<Tensor> cpu_bases, lazy_bases;
      call_op(op, materialize(c, kCPU, &cpu_bases));
      call_op(op, materialize(c, kLazy, &lazy_bases));
      mark_step();
      ++checked;
      if (!compare(op, cpu_bases[self], lazy_bases[self].cpu()).empty())
        differ.push_back(std::string(op.name) + " (" + c.label + ")");
    }
  }
  EXPECT_GT(checked, 10);
  EXPECT_TRUE(differ.empty()) << differ.size() << " of " << checked
                              << " in-place ops on a view left the base as it was, e.g. "
                              << differ.front();
}

// Note [No silent gradient loss] (runtime/autograd/function.h), over every op: called on float64
// inputs that require grad, a functional op either records a backward function (its floating
// results require grad), raises "the derivative for '<op>' is not implemented", or returns no
// floating result. A result that is floating and does not require grad would cut the gradient.
TEST(OpAutograd, NoOpCutsAGradientSilently) {
  std::vector<std::string> silent;
  int checked = 0;
  for (const OpInfo& op : all_ops()) {
    if (op.variant != OpVariant::Functional || op.name == "_dropout_mask")
      continue;  // non_differentiable
    for (const OpCase& c : make_cases(op, {DType::Float64}, /*large=*/false)) {
      std::vector<Arg> args = materialize(c, kCPU);
      bool any = false;
      auto track = [&](Tensor& t) {
        if (!is_floating(t.dtype())) return;
        t = t.detach().requires_grad_();
        any = true;
      };
      for (Arg& a : args) {
        if (auto* t = std::get_if<Tensor>(&a)) track(*t);
        if (auto* list = std::get_if<std::vector<Tensor>>(&a)) {
          for (Tensor& t : *list) track(t);
        }
      }
      if (!any) continue;
      std::vector<Tensor> results;
      try {
        results = call_op(op, args);
      } catch (const std::exception&) {
        continue;  // not implemented (fine), or inputs this op rejects: try the next case
      }
      for (const Tensor& r : results) {
        if (is_floating(r.dtype()) && !r.requires_grad()) silent.push_back(std::string(op.name) + " (" + c.label + ")");
      }
      ++checked;
      break;  // one case that ran is enough
    }
  }
  EXPECT_GT(checked, 40);
  EXPECT_TRUE(silent.empty()) << silent.size() << " ops return a floating result without "
                              << "recording a gradient, e.g. " << silent.front();
}

}  // namespace
}  // namespace lazygen::testing
