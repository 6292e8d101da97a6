// Tests of the autograd engine (runtime/autograd/engine.cpp) on graphs of hand-written backward
// functions: execution order, input buffers and diamonds, accumulation into leaves, retain_graph
// and released functions, multi-output functions, broadcast reduction and the error cases.
#include "autograd/engine.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "autograd/function.h"
#include "lazygen/autograd.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/log.h"
#include "lazygen/generated/ops/mul.h"

namespace lazygen::autograd {
namespace {

// Passes `scale` times each incoming gradient to every edge, and logs its runs.
class ScaleBackward final : public Function {
 public:
  ScaleBackward(std::string name, double scale, std::vector<std::string>* log)
      : name_(std::move(name)), scale_(scale), log_(log) {}

  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    if (log_ != nullptr) log_->push_back(name_);
    last_grads = grads;
    std::vector<Tensor> out;
    for (size_t i = 0; i < next_edges.size(); ++i) {
      out.push_back(needs_input_grad(i) ? mul(grads[0], scale_) : Tensor());
    }
    return out;
  }
  const char* name() const override { return name_.c_str(); }
  void release_saved() override { ++releases; }

  std::vector<Tensor> last_grads;
  int releases = 0;

 private:
  std::string name_;
  double scale_;
  std::vector<std::string>* log_;
};

Tensor leaf(const std::vector<double>& v) {
  return tensor<double>(v).requires_grad_();
}

// A fresh result of the given sizes whose history is `fn` (output `output_nr`), fn's edges
// pointing at `inputs`.
Tensor record(const std::shared_ptr<Function>& fn, const std::vector<Tensor>& inputs,
              const IntList& sizes = {1}, uint32_t output_nr = 0) {
  if (fn->next_edges.empty()) fn->next_edges = gradient_edges(inputs);
  Tensor result = zeros(sizes, DType::Float64);
  set_history(result, fn, output_nr);
  return result;
}

std::vector<double> values_of(const Tensor& t) {
  Tensor c = t.cpu().contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

TEST(AutogradEngine, PassesTheRootGradientToTheLeaf) {
  Tensor x = leaf({1.0});
  auto fn = std::make_shared<ScaleBackward>("Scale", 3.0, nullptr);
  Tensor y = record(fn, {x});
  y.backward();
  EXPECT_EQ(values_of(x.grad()), std::vector<double>{3.0});
}

TEST(AutogradEngine, AccumulatesGradientsIntoLeavesAcrossBackwardCalls) {
  Tensor x = leaf({1.0});
  auto fn = std::make_shared<ScaleBackward>("Scale", 2.0, nullptr);
  Tensor y = record(fn, {x});
  y.backward({}, /*retain_graph=*/true);
  y.backward();
  EXPECT_EQ(values_of(x.grad()), std::vector<double>{4.0});
  x.zero_grad_();
  EXPECT_FALSE(x.grad().defined());
}

TEST(AutogradEngine, AccumulatesGradientsOfADiamondOnce) {
  // x -> a, x -> b, (a, b) -> c: x's accumulator and c's inputs each see one summed gradient.
  std::vector<std::string> log;
  Tensor x = leaf({1.0});
  auto a_fn = std::make_shared<ScaleBackward>("A", 2.0, &log);
  auto b_fn = std::make_shared<ScaleBackward>("B", 5.0, &log);
  Tensor a = record(a_fn, {x});
  Tensor b = record(b_fn, {x});
  auto c_fn = std::make_shared<ScaleBackward>("C", 1.0, &log);
  Tensor c = record(c_fn, {a, b});
  c.backward();
  EXPECT_EQ(values_of(x.grad()), std::vector<double>{7.0});
  EXPECT_EQ(log, (std::vector<std::string>{"C", "B", "A"}));  // latest created first
}

TEST(AutogradEngine, SumsGradientsReachingOneOutputAlongSeveralPaths) {
  Tensor x = leaf({1.0});
  auto a_fn = std::make_shared<ScaleBackward>("A", 1.0, nullptr);
  Tensor a = record(a_fn, {x});
  auto b_fn = std::make_shared<ScaleBackward>("B", 3.0, nullptr);
  Tensor b = record(b_fn, {a, a});  // both edges point at a's output 0
  b.backward();
  ASSERT_EQ(a_fn->last_grads.size(), 1u);
  EXPECT_EQ(values_of(a_fn->last_grads[0]), std::vector<double>{6.0});
  EXPECT_EQ(values_of(x.grad()), std::vector<double>{6.0});
}

TEST(AutogradEngine, RunsAFunctionOnlyAfterEverythingFeedingItRan) {
  // The chain y -> m -> z is created before w, yet z waits for both paths into it.
  std::vector<std::string> log;
  Tensor x = leaf({1.0});
  Tensor z = record(std::make_shared<ScaleBackward>("Z", 1.0, &log), {x});
  Tensor m = record(std::make_shared<ScaleBackward>("M", 1.0, &log), {z});
  Tensor w = record(std::make_shared<ScaleBackward>("W", 1.0, &log), {z});
  Tensor root = record(std::make_shared<ScaleBackward>("Root", 1.0, &log), {m, w});
  root.backward();
  EXPECT_EQ(log, (std::vector<std::string>{"Root", "W", "M", "Z"}));
  EXPECT_EQ(values_of(x.grad()), std::vector<double>{2.0});
}

TEST(AutogradEngine, ReleasesSavedTensorsAndRefusesASecondBackwardNamingTheFunction) {
  Tensor x = leaf({1.0});
  auto fn = std::make_shared<ScaleBackward>("SavingBackward", 1.0, nullptr);
  Tensor y = record(fn, {x});
  y.backward();
  EXPECT_EQ(fn->releases, 1);
  EXPECT_TRUE(fn->released);
  try {
    y.backward();
    FAIL() << "expected a second backward to throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("backward through the graph a second time"),
              std::string::npos);
    EXPECT_NE(std::string(e.what()).find("SavingBackward"), std::string::npos) << e.what();
  }
  EXPECT_EQ(values_of(x.grad()), std::vector<double>{1.0});  // nothing accumulated
}

TEST(AutogradEngine, RetainGraphKeepsSavedTensors) {
  Tensor x = leaf({1.0});
  auto fn = std::make_shared<ScaleBackward>("Scale", 1.0, nullptr);
  Tensor y = record(fn, {x});
  y.backward({}, /*retain_graph=*/true);
  EXPECT_EQ(fn->releases, 0);
  EXPECT_FALSE(fn->released);
  y.backward({}, /*retain_graph=*/true);
  EXPECT_EQ(values_of(x.grad()), std::vector<double>{2.0});
}

TEST(AutogradEngine, ALeafAccumulatorSurvivesItsGraphBeingReleased) {
  Tensor x = leaf({1.0});
  record(std::make_shared<ScaleBackward>("First", 1.0, nullptr), {x}).backward();
  record(std::make_shared<ScaleBackward>("Second", 1.0, nullptr), {x}).backward();
  EXPECT_EQ(values_of(x.grad()), std::vector<double>{2.0});
}

TEST(AutogradEngine, GivesAMultiOutputFunctionGradientsOnlyForOutputsThatReceivedOne) {
  Tensor x = leaf({1.0});
  auto fn = std::make_shared<ScaleBackward>("TwoOutputs", 1.0, nullptr);
  fn->num_outputs = 2;
  fn->next_edges = gradient_edges({x});
  Tensor values = record(fn, {x}, {1}, 0);
  Tensor indices = record(fn, {x}, {1}, 1);
  EXPECT_EQ(values.grad_fn(), indices.grad_fn());
  values.backward();
  ASSERT_EQ(fn->last_grads.size(), 2u);
  EXPECT_TRUE(fn->last_grads[0].defined());
  EXPECT_FALSE(fn->last_grads[1].defined());
}

TEST(AutogradEngine, SkipsAFunctionNoGradientReached) {
  // Root's apply returns no gradient for its edge: `skipped` is not applied, x gets nothing.
  class NoGradient final : public Function {
   public:
    std::vector<Tensor> apply(std::vector<Tensor>&&) override { return {Tensor()}; }
    const char* name() const override { return "NoGradient"; }
  };
  std::vector<std::string> log;
  Tensor x = leaf({1.0});
  Tensor a = record(std::make_shared<ScaleBackward>("Skipped", 1.0, &log), {x});
  Tensor root = record(std::make_shared<NoGradient>(), {a});
  root.backward();
  EXPECT_TRUE(log.empty());
  EXPECT_FALSE(x.grad().defined());
}

TEST(AutogradEngine, SkipsInputsThatNeedNoGradient) {
  Tensor x = leaf({1.0});
  Tensor constant = tensor<double>({4.0});  // no requires_grad: an invalid edge
  auto fn = std::make_shared<ScaleBackward>("Scale", 2.0, nullptr);
  Tensor y = record(fn, {constant, x});
  EXPECT_FALSE(fn->needs_input_grad(0));
  EXPECT_TRUE(fn->needs_input_grad(1));
  y.backward();
  EXPECT_FALSE(constant.grad().defined());
  EXPECT_EQ(values_of(x.grad()), std::vector<double>{2.0});
}

TEST(AutogradEngine, SumsBroadcastGradientsToTheInputShapes) {
  Tensor x = tensor<double>({1.0, 2.0, 3.0}, IntList{3}).requires_grad_();
  auto fn = std::make_shared<ScaleBackward>("Broadcast", 1.0, nullptr);
  fn->input_shapes = {Shape(DType::Float64, {3})};
  Tensor y = record(fn, {x}, {2, 3});
  y.backward(ones({2, 3}, DType::Float64));
  EXPECT_EQ(x.grad().sizes(), (IntList{3}));
  EXPECT_EQ(values_of(x.grad()), (std::vector<double>{2.0, 2.0, 2.0}));
}

TEST(AutogradEngine, CastsGradientsToTheInputDtype) {
  Tensor x = tensor<float>({1.0f}).requires_grad_();
  auto fn = std::make_shared<ScaleBackward>("Widening", 1.0, nullptr);
  fn->input_shapes = {x.shape()};
  Tensor y = record(fn, {x});  // a float64 result
  y.backward();
  EXPECT_EQ(x.grad().dtype(), DType::Float32);
}

TEST(AutogradEngine, RunsBackwardFunctionsWithGradModeOff) {
  class ModeProbe final : public Function {
   public:
    std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
      mode_during_apply = grad_mode_enabled();
      return {grads[0]};
    }
    const char* name() const override { return "ModeProbe"; }
    bool mode_during_apply = true;
  };
  Tensor x = leaf({1.0});
  auto fn = std::make_shared<ModeProbe>();
  record(fn, {x}).backward();
  EXPECT_FALSE(fn->mode_during_apply);
  EXPECT_TRUE(grad_mode_enabled());
}

TEST(AutogradEngine, ReportsAFunctionReturningTheWrongNumberOfGradients) {
  class Wrong final : public Function {
   public:
    std::vector<Tensor> apply(std::vector<Tensor>&&) override { return {}; }
    const char* name() const override { return "WrongCountBackward"; }
  };
  Tensor x = leaf({1.0});
  Tensor y = record(std::make_shared<Wrong>(), {x});
  EXPECT_THROW(y.backward(), std::logic_error);
}

TEST(AutogradEngine, RefusesAnImplicitGradientForARootWithSeveralElements) {
  Tensor x = leaf({1.0, 2.0});
  Tensor y = record(std::make_shared<ScaleBackward>("Scale", 1.0, nullptr), {x}, {2});
  try {
    y.backward();
    FAIL() << "expected backward() to throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("grad can be implicitly created only for scalar outputs"),
              std::string::npos);
  }
}

TEST(AutogradEngine, RefusesAGradientOfTheWrongShape) {
  Tensor x = leaf({1.0, 2.0});
  Tensor y = record(std::make_shared<ScaleBackward>("Scale", 1.0, nullptr), {x}, {2});
  EXPECT_THROW(y.backward(ones({3}, DType::Float64)), std::runtime_error);
}

TEST(AutogradEngine, RefusesARootThatDoesNotRequireGrad) {
  Tensor x = tensor<double>({1.0});
  try {
    x.backward();
    FAIL() << "expected backward() to throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("does not require grad"), std::string::npos);
  }
}

TEST(AutogradEngine, AcceptsALeafAsTheRoot) {
  Tensor x = leaf({1.0, 2.0});
  backward(x, tensor<double>({3.0, 4.0}));
  EXPECT_EQ(values_of(x.grad()), (std::vector<double>{3.0, 4.0}));
}

}  // namespace
}  // namespace lazygen::autograd
