// Tests for the case builder of the consistency suite (op_inputs.h), on hand-made OpInfo records:
// what it generates, and that an op it cannot feed asks for `samples:` in ops.yaml.
#include "op_inputs.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace lazygen::testing {
namespace {

OpInfo record(ShapeKind shape, std::vector<ArgInfo> args) {
  return OpInfo{.name = "my_op",
                .id = "my_op",
                .schema = "my_op(...) -> Tensor",
                .functional = "",
                .shape = shape,
                .dtype = DTypeRule::Promote,
                .variant = OpVariant::Functional,
                .pointwise = false,
                .dtypes = kAllDTypes,
                .args = std::move(args),
                .num_outputs = 1,
                .samples = {},
                .call = nullptr};
}

std::string error_of(const OpInfo& op) {
  try {
    make_cases(op, {DType::Float32}, true);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(OpInputs, ACustomOpWithoutSamplesAsksForThem) {
  OpInfo op = record(ShapeKind::Custom, {{.name = "self", .kind = ArgKind::Tensor}});
  EXPECT_EQ(error_of(op),
            "my_op: its inputs cannot be generated for `shape: custom`; add `samples:` to its "
            "ops.yaml entry (see docs/ops-yaml.md)");
  op.samples.push_back(Sample{{{"self", TensorSample{{2, 3}}}}});
  std::vector<OpCase> cases = make_cases(op, {DType::Float32}, true);
  ASSERT_EQ(cases.size(), 2u);  // as listed, and non-contiguous
  EXPECT_EQ(std::get<InputTensor>(*cases[1].args[0]).str(), "float32[2, 3] transposed");
}

TEST(OpInputs, AnArgumentWithNoRuleAsksForSamples) {
  OpInfo op = record(ShapeKind::Same, {{.name = "self", .kind = ArgKind::Tensor},
                                       {.name = "n", .kind = ArgKind::Int}});
  EXPECT_EQ(error_of(op),
            "my_op: argument 'n' has no default and no generated value; add `samples:` to its "
            "ops.yaml entry (see docs/ops-yaml.md)");
}

TEST(OpInputs, BroadcastCasesCycleShapesAndGiveInPlaceSelfTheResultShape) {
  OpInfo op =
      record(ShapeKind::Broadcast, {{.name = "self", .kind = ArgKind::Tensor, .written = true},
                                    {.name = "other", .kind = ArgKind::Tensor}});
  for (const OpCase& c : make_cases(op, {DType::Float64}, false)) {
    if (c.label != "broadcast") continue;
    EXPECT_EQ(std::get<InputTensor>(*c.args[0]).str(), "float64[3, 4]");
    EXPECT_EQ(std::get<InputTensor>(*c.args[1]).str(), "float64[1, 4]");
    return;
  }
  FAIL() << "no broadcast case";
}

TEST(OpInputs, DomainsFixValuesAndDtypes) {
  OpInfo op = record(ShapeKind::Same,
                     {{.name = "self", .kind = ArgKind::Tensor, .domain = {Domain::Positive}},
                      {.name = "mask", .kind = ArgKind::Tensor, .domain = {Domain::Bool}}});
  for (const OpCase& c : make_cases(op, {DType::Int32}, true)) {
    Tensor self = std::get<InputTensor>(*c.args[0]).make(kCPU).to(DType::Float64).contiguous();
    for (int64_t i = 0; i < self.numel(); ++i) EXPECT_GT(self.data_ptr<double>()[i], 0) << c.label;
    EXPECT_EQ(std::get<InputTensor>(*c.args[1]).make(kCPU).dtype(), DType::Bool);
  }
}

TEST(OpInputs, LargeCasesUseBothThreadsAndAreOptional) {
  OpInfo op = record(ShapeKind::Same, {{.name = "self", .kind = ArgKind::Tensor}});
  size_t with = make_cases(op, {DType::Float32}, true).size();
  std::vector<OpCase> without = make_cases(op, {DType::Float32}, false);
  EXPECT_EQ(with, without.size() + 1);
  for (const OpCase& c : without) EXPECT_NE(c.label, "large");
}

}  // namespace
}  // namespace lazygen::testing
