// Tests for C++ signatures (api/signature.h): one CppSignature prints the declaration (with
// defaults), the definition (without) and the call arguments; defaults survive only on a
// trailing run of parameters; out= arguments come first as in PyTorch's C++ API; methods drop
// `self` and are const.
#include "api/signature.h"

#include <gtest/gtest.h>

#include <string>

#include "api/names.h"

namespace lazygen::gen::api {
namespace {

OpEntry entry(const std::string& schema) {
  OpEntry op;
  op.func = schema;
  op.schema = parse_schema(schema);
  return op;
}

CppSignature api_signature(const OpEntry& op) {
  return op_signature(op, api_name(op.schema), TypeUse::Api);
}

const char* const kAdd = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";

TEST(Signature, DeclarationKeepsDefaults) {
  OpEntry op = entry(kAdd);
  EXPECT_EQ(api_signature(op).declaration(),
            "Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);");
}

TEST(Signature, DefinitionDropsDefaultsAndTakesAQualifier) {
  OpEntry op = entry(kAdd);
  CppSignature sig = api_signature(op);
  EXPECT_EQ(sig.definition(),
            "Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha)");
  EXPECT_EQ(sig.definition("lazygen::"),
            "Tensor lazygen::add(const Tensor& self, const Tensor& other, const Scalar& alpha)");
}

TEST(Signature, CallArgsNameEveryParameter) {
  OpEntry op = entry(kAdd);
  EXPECT_EQ(api_signature(op).call_args(), "self, other, alpha");
}

TEST(Signature, ParametersPointAtTheirArguments) {
  OpEntry op = entry(kAdd);
  CppSignature sig = api_signature(op);
  ASSERT_EQ(sig.params.size(), 3u);
  EXPECT_EQ(sig.params[2].arg, &op.schema.arguments[2]);
  EXPECT_EQ(sig.params[2].default_value, "1");
}

TEST(Signature, OnlyATrailingRunOfDefaultsIsKept) {
  OpEntry op = entry("foo(Tensor self, int dim=0, Tensor other, bool keepdim=False) -> Tensor");
  EXPECT_EQ(
      api_signature(op).declaration(),
      "Tensor foo(const Tensor& self, int64_t dim, const Tensor& other, bool keepdim = false);");
}

TEST(Signature, InplaceReturnsAConstHandle) {
  OpEntry op = entry("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  EXPECT_EQ(
      api_signature(op).declaration(),
      "const Tensor& add_(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);");
}

TEST(Signature, OutArgumentsMoveFirst) {
  OpEntry op =
      entry("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
  CppSignature sig = api_signature(op);
  EXPECT_EQ(sig.declaration(),
            "const Tensor& add_out(const Tensor& out, const Tensor& self, const Tensor& other, "
            "const Scalar& alpha = 1);");
  EXPECT_EQ(sig.call_args(), "out, self, other, alpha");
}

TEST(Signature, SeveralOutArgumentsKeepTheirOrder) {
  OpEntry op = entry(
      "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) "
      "max_values) -> "
      "(Tensor(a!) values, Tensor(b!) indices)");
  EXPECT_EQ(api_signature(op).call_args(), "max, max_values, self, dim, keepdim");
}

TEST(Signature, ViewInverseTakesTheBaseAndTheNewViewValueThenTheOtherArguments) {
  OpEntry op = entry(
      "slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) "
      "-> Tensor(a)");
  EXPECT_EQ(view_inverse_signature(op).declaration(),
            "Tensor slice_tensor(const Tensor& base, const Tensor& mutated_view, int64_t dim, "
            "std::optional<int64_t> start, std::optional<int64_t> end, int64_t step);");
}

TEST(Signature, ShapeFunctionTakesShapesAndHasNoDefaults) {
  OpEntry op = entry(kAdd);
  CppSignature sig = op_signature(op, shape_fn_name(op.schema.name), TypeUse::ShapeFn);
  EXPECT_EQ(sig.declaration(),
            "std::vector<Shape> compute_shape_add_tensor(const Shape& self, const Shape& other, "
            "const Scalar& alpha);");
}

TEST(Signature, ShapeFunctionKeepsOutArgumentsInPlace) {
  OpEntry op =
      entry("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
  CppSignature sig = op_signature(op, shape_fn_name(op.schema.name), TypeUse::ShapeFn);
  EXPECT_EQ(sig.call_args(), "self, other, alpha, out");
}

TEST(Signature, MethodDropsSelfAndIsConst) {
  OpEntry op = entry(kAdd);
  CppSignature sig = method_signature(op);
  EXPECT_EQ(sig.declaration(), "Tensor add(const Tensor& other, const Scalar& alpha = 1) const;");
  EXPECT_EQ(sig.definition("Tensor::"),
            "Tensor Tensor::add(const Tensor& other, const Scalar& alpha) const");
  EXPECT_EQ(sig.call_args(), "other, alpha");
}

TEST(Signature, MethodOfAnInplaceOp) {
  OpEntry op = entry("mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)");
  EXPECT_EQ(method_signature(op).declaration(), "const Tensor& mul_(const Scalar& other) const;");
}

TEST(Signature, ReservedNamesGetATrailingUnderscore) {
  EXPECT_EQ(cpp_name("default"), "default_");
  EXPECT_EQ(cpp_name("float"), "float_");
  EXPECT_EQ(cpp_name("Tensor"), "Tensor_");
  EXPECT_EQ(cpp_name("self"), "self");
  OpEntry op = entry("fill.Scalar(Tensor self, Scalar default) -> Tensor");
  EXPECT_EQ(api_signature(op).call_args(), "self, default_");
}

}  // namespace
}  // namespace lazygen::gen::api
