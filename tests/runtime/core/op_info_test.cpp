// Tests for the OpInfo table (lazygen/op_info.h, runtime/core/op_info.cpp and the generated
// generated/src/op_info.cpp): lookup, boxed calls through the op API, the facts of ops.yaml each
// record carries, and the errors of a wrong call.
#include "lazygen/op_info.h"

#include <gtest/gtest.h>

#include "lazygen/factory.h"
#include "lazygen/lazy.h"

namespace lazygen {
namespace {

std::vector<float> values(const Tensor& t) {
  Tensor c = t.cpu().contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

TEST(OpInfo, FindsOpsBySchemaNameAndOpId) {
  const OpInfo* by_name = find_op("add_.Tensor");
  ASSERT_NE(by_name, nullptr);
  EXPECT_EQ(by_name, find_op("add_inplace_tensor"));
  EXPECT_EQ(by_name->functional, "add.Tensor");
  EXPECT_EQ(find_op("no_such_op"), nullptr);
  EXPECT_EQ(&all_ops().front(), find_op("add.Tensor"));
}

TEST(OpInfo, CallsTheOverloadItsSchemaNames) {
  Tensor a = tensor<float>({1, 2}), b = tensor<float>({10, 20});
  EXPECT_EQ(values(call_op("add.Tensor", {a, b, Scalar(2)}).at(0)), (std::vector<float>{21, 42}));
  EXPECT_EQ(values(call_op("add.Scalar", {a, Scalar(3), int64_t{2}}).at(0)),
            (std::vector<float>{7, 8}));
}

TEST(OpInfo, DispatchesOnTheTensorsDevice) {
  Tensor a = tensor<float>({1, 2}).to(kLazy);
  Tensor r = call_op("mul.Scalar", {a, 0.5}).at(0);
  EXPECT_TRUE(r.device().is_lazy());
  EXPECT_EQ(values(r), (std::vector<float>{0.5, 1}));
  mark_step();
}

TEST(OpInfo, InPlaceAndOutOpsReturnTheWrittenTensor) {
  Tensor a = tensor<float>({1, 2}), out = zeros({2});
  EXPECT_TRUE(call_op("mul_.Scalar", {a, Scalar(2)}).at(0).is_same(a));
  EXPECT_TRUE(call_op("add.out", {a, a, Scalar(1), out}).at(0).is_same(out));  // schema order
  EXPECT_EQ(values(out), (std::vector<float>{4, 8}));
}

TEST(OpInfo, TupleResultsComeBackInOrder) {
  std::vector<Tensor> r =
      call_op("max.dim", {tensor<float>({3, 7, 5}, IntList{1, 3}), int64_t{1}, false});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(values(r[0]), (std::vector<float>{7}));
  EXPECT_EQ(r[1].item<int64_t>(), 1);
}

TEST(OpInfo, DefaultsAreBoxedAndNoneFillsOptionals) {
  const OpInfo& conv = *find_op("conv2d");
  const ArgInfo& stride = conv.args.at(static_cast<size_t>(conv.arg_index("stride")));
  EXPECT_EQ(std::get<std::vector<int64_t>>(*stride.default_value), (std::vector<int64_t>{1, 1}));
  const ArgInfo& bias = conv.args.at(2);
  EXPECT_EQ(bias.kind, ArgKind::Tensor);
  EXPECT_TRUE(bias.optional);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(*bias.default_value));
  std::vector<Arg> args = {ones({1, 1, 3, 3}), ones({1, 1, 2, 2}), Arg()};
  for (size_t i = 3; i < conv.args.size(); ++i) args.push_back(*conv.args[i].default_value);
  EXPECT_EQ(call_op(conv, args).at(0).sizes(), (IntList{1, 1, 2, 2}));
}

TEST(OpInfo, RecordsWhatOpsYamlSays) {
  const OpInfo& log_op = *find_op("log");
  EXPECT_EQ(log_op.shape, ShapeKind::Same);
  EXPECT_EQ(log_op.dtype, DTypeRule::Float);
  EXPECT_TRUE(log_op.pointwise);
  EXPECT_EQ(log_op.args.at(0).domain.kind, Domain::Positive);
  const OpInfo& mm = *find_op("mm");
  EXPECT_EQ(mm.shape, ShapeKind::Custom);
  ASSERT_FALSE(mm.samples.empty());
  const auto& [name, value] = mm.samples[0].values.at(0);
  EXPECT_EQ(name, "self");
  EXPECT_EQ(std::get<TensorSample>(value).sizes, (IntList{2, 3}));
  EXPECT_EQ(find_op("add_.Tensor")->variant, OpVariant::Inplace);
  EXPECT_TRUE(find_op("add_.Tensor")->args.at(0).written);
}

TEST(OpInfo, AWrongArgumentCountNamesTheSchema) {
  try {
    call_op("mm", {ones({2, 2})});
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "mm: expected 2 arguments, got 1 (mm(Tensor self, Tensor mat2) -> Tensor)");
  }
}

TEST(OpInfo, AWrongKindNamesTheArgument) {
  try {
    call_op("transpose.int", {ones({2, 2}), 0.5, int64_t{1}});
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "transpose.int: argument 'dim0' got double "
                 "(transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a))");
  }
  EXPECT_THROW(call_op("no_such_op", {}), std::invalid_argument);
}

}  // namespace
}  // namespace lazygen
