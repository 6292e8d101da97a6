// Tests for schema types -> C++ types (api/cpp_types.h): one test per row of the table in that
// header, for each place a value appears (op API, shape function, IR node member), plus return
// types, defaults and which arguments become IR operands.
#include "api/cpp_types.h"

#include <gtest/gtest.h>

#include <string>

namespace lazygen::gen::api {
namespace {

// The single argument of "f(<decl>) -> Tensor".
Argument arg(const std::string& decl) {
  return parse_schema("f(" + decl + ") -> Tensor").arguments.at(0);
}

std::string api(const std::string& decl) {
  return cpp_type(arg(decl), TypeUse::Api);
}
std::string shape_fn(const std::string& decl) {
  return cpp_type(arg(decl), TypeUse::ShapeFn);
}
std::string member(const std::string& decl) {
  return cpp_type(arg(decl), TypeUse::Member);
}
std::string returns(const std::string& ret) {
  return cpp_return_type(parse_schema("f(Tensor self) -> " + ret));
}
std::string default_of(const std::string& decl) {
  return cpp_default(arg(decl));
}

TEST(CppTypes, Tensor) {
  EXPECT_EQ(api("Tensor self"), "const Tensor&");
  EXPECT_EQ(api("Tensor(a!) self"), "Tensor&");
  EXPECT_EQ(shape_fn("Tensor self"), "const Shape&");
  EXPECT_EQ(shape_fn("Tensor(a!) self"), "const Shape&");
}

TEST(CppTypes, OptionalTensor) {
  EXPECT_EQ(api("Tensor? weight"), "const std::optional<Tensor>&");
  EXPECT_EQ(shape_fn("Tensor? weight"), "const std::optional<Shape>&");
}

TEST(CppTypes, TensorList) {
  EXPECT_EQ(api("Tensor[] tensors"), "const std::vector<Tensor>&");
  EXPECT_EQ(shape_fn("Tensor[] tensors"), "const std::vector<Shape>&");
  EXPECT_EQ(api("Tensor?[] indices"), "const std::vector<std::optional<Tensor>>&");
}

TEST(CppTypes, IntAndSymInt) {
  for (const char* decl : {"int dim", "SymInt dim"}) {
    EXPECT_EQ(api(decl), "int64_t");
    EXPECT_EQ(shape_fn(decl), "int64_t");
    EXPECT_EQ(member(decl), "int64_t");
  }
  EXPECT_EQ(api("int? dim"), "std::optional<int64_t>");
  EXPECT_EQ(member("int? dim"), "std::optional<int64_t>");
}

TEST(CppTypes, IntLists) {
  for (const char* decl : {"int[] dims", "int[2] stride", "SymInt[] size"}) {
    EXPECT_EQ(api(decl), "const std::vector<int64_t>&");
    EXPECT_EQ(shape_fn(decl), "const std::vector<int64_t>&");
    EXPECT_EQ(member(decl), "std::vector<int64_t>");
  }
  EXPECT_EQ(api("int[1]? dim"), "const std::optional<std::vector<int64_t>>&");
  EXPECT_EQ(member("int[1]? dim"), "std::optional<std::vector<int64_t>>");
}

TEST(CppTypes, FloatAndBool) {
  EXPECT_EQ(api("float eps"), "double");
  EXPECT_EQ(member("float eps"), "double");
  EXPECT_EQ(api("bool keepdim"), "bool");
  EXPECT_EQ(member("bool keepdim"), "bool");
  EXPECT_EQ(api("float[] weights"), "const std::vector<double>&");
  EXPECT_EQ(api("bool[3] output_mask"), "const std::vector<bool>&");
  EXPECT_EQ(api("float? p"), "std::optional<double>");
}

TEST(CppTypes, Str) {
  EXPECT_EQ(api("str reduce"), "std::string_view");
  EXPECT_EQ(member("str reduce"), "std::string");
  EXPECT_EQ(api("str? rounding_mode"), "std::optional<std::string_view>");
  EXPECT_EQ(member("str? rounding_mode"), "std::optional<std::string>");
}

TEST(CppTypes, Scalar) {
  EXPECT_EQ(api("Scalar alpha"), "const Scalar&");
  EXPECT_EQ(shape_fn("Scalar alpha"), "const Scalar&");
  EXPECT_EQ(api("Scalar? min"), "const std::optional<Scalar>&");
  EXPECT_EQ(api("Scalar[] values"), "const std::vector<Scalar>&");
}

TEST(CppTypes, ScalarType) {
  EXPECT_EQ(api("ScalarType dtype"), "DType");
  EXPECT_EQ(member("ScalarType dtype"), "DType");
  EXPECT_EQ(api("ScalarType? dtype"), "std::optional<DType>");
}

TEST(CppTypes, SmallValueTypesArePassedByValue) {
  EXPECT_EQ(api("Layout? layout"), "std::optional<Layout>");
  EXPECT_EQ(api("Layout layout"), "Layout");
  EXPECT_EQ(api("MemoryFormat memory_format"), "MemoryFormat");
  EXPECT_EQ(api("MemoryFormat? memory_format"), "std::optional<MemoryFormat>");
  EXPECT_EQ(api("Device? device"), "std::optional<Device>");
  EXPECT_EQ(api("Stream s"), "Stream");
  EXPECT_EQ(member("Stream s"), "Stream");
}

TEST(CppTypes, Generator) {
  EXPECT_EQ(api("Generator? generator"), "const std::optional<Generator>&");
  EXPECT_EQ(member("Generator? generator"), "std::optional<Generator>");
}

TEST(CppTypes, Dimname) {
  EXPECT_EQ(api("Dimname dim"), "const std::string&");
  EXPECT_EQ(member("Dimname dim"), "std::string");
  EXPECT_EQ(api("Dimname[]? names"), "const std::optional<std::vector<std::string>>&");
}

TEST(CppTypes, StorageIsSharedBecauseItCannotBeCopied) {
  EXPECT_EQ(api("Storage source"), "const std::shared_ptr<Storage>&");
  EXPECT_EQ(member("Storage source"), "std::shared_ptr<Storage>");
}

TEST(CppTypes, QuantizedTypesHaveNoMapping) {
  try {
    cpp_type(arg("QScheme qscheme"), TypeUse::Api, {"ops.yaml", 4, 9});
    FAIL() << "expected a GenError";
  } catch (const GenError& e) {
    EXPECT_EQ(e.loc().str(), "ops.yaml:4:9");
    EXPECT_EQ(e.message(), "type 'QScheme' has no C++ mapping in lazygen");
    EXPECT_EQ(e.hint(), "quantized ops are not supported; leave this op out of the selection");
  }
  EXPECT_THROW(api("ConstQuantizerPtr quantizer"), GenError);
}

TEST(CppTypes, ReturnTypes) {
  EXPECT_EQ(returns("Tensor"), "Tensor");
  EXPECT_EQ(returns("Tensor(a!)"), "Tensor&");
  EXPECT_EQ(returns("Tensor(a)"), "Tensor");
  EXPECT_EQ(returns("()"), "void");
  EXPECT_EQ(returns("Tensor[]"), "std::vector<Tensor>");
  EXPECT_EQ(returns("(Tensor values, Tensor indices)"), "std::tuple<Tensor, Tensor>");
  EXPECT_EQ(returns("(Tensor(a!) values, Tensor(b!) indices)"), "std::tuple<Tensor, Tensor>");
  EXPECT_EQ(returns("Scalar"), "Scalar");
  EXPECT_EQ(returns("int"), "int64_t");
  EXPECT_EQ(returns("float"), "double");
  EXPECT_EQ(returns("bool"), "bool");
  EXPECT_EQ(returns("ScalarType"), "DType");
}

TEST(CppTypes, OperandsAreTensorsAndNonOptionalScalars) {
  EXPECT_TRUE(is_operand(arg("Tensor self")));
  EXPECT_TRUE(is_operand(arg("Tensor? weight")));
  EXPECT_TRUE(is_operand(arg("Tensor[] tensors")));
  EXPECT_TRUE(is_operand(arg("Scalar alpha")));
  EXPECT_FALSE(is_operand(arg("Scalar? min")));
  EXPECT_FALSE(is_operand(arg("Scalar[] values")));
  EXPECT_FALSE(is_operand(arg("int dim")));
  EXPECT_TRUE(is_scalar(arg("Scalar alpha")));
  EXPECT_FALSE(is_scalar(arg("Tensor self")));
}

TEST(CppDefaults, NoneBoolsAndNumbers) {
  EXPECT_EQ(default_of("Tensor self"), "");
  EXPECT_EQ(default_of("Tensor? weight=None"), "std::nullopt");
  EXPECT_EQ(default_of("bool keepdim=True"), "true");
  EXPECT_EQ(default_of("bool keepdim=False"), "false");
  EXPECT_EQ(default_of("float eps=1e-05"), "1e-05");
  EXPECT_EQ(default_of("int dim=-1"), "-1");
  EXPECT_EQ(default_of("Scalar alpha=1"), "1");
}

TEST(CppDefaults, Lists) {
  EXPECT_EQ(default_of("int[] dims=[0,1]"), "{0, 1}");
  EXPECT_EQ(default_of("int[] dims=[]"), "{}");
  EXPECT_EQ(default_of("int[1]? dim=None"), "std::nullopt");
}

TEST(CppDefaults, AScalarDefaultOfASizedListRepeats) {
  EXPECT_EQ(default_of("int[2] stride=1"), "{1, 1}");
  EXPECT_EQ(default_of("int[3] padding=0"), "{0, 0, 0}");
  EXPECT_EQ(default_of("int[] dims=1"), "{1}");
}

TEST(CppDefaults, Strings) {
  EXPECT_EQ(default_of("str reduce=\"mean\""), "\"mean\"");
  EXPECT_EQ(default_of("str reduce='mean'"), "\"mean\"");
}

TEST(CppDefaults, Identifiers) {
  EXPECT_EQ(default_of("int reduction=Mean"), "1");
  EXPECT_EQ(default_of("int reduction=Sum"), "2");
  EXPECT_EQ(default_of("MemoryFormat memory_format=contiguous_format"), "MemoryFormat::Contiguous");
  EXPECT_EQ(default_of("ScalarType dtype=long"), "DType::Int64");
}

TEST(CppDefaults, UnknownIdentifierIsAnError) {
  try {
    cpp_default(arg("int reduction=Bogus"), {"ops.yaml", 2, 9});
    FAIL() << "expected a GenError";
  } catch (const GenError& e) {
    EXPECT_EQ(e.loc().str(), "ops.yaml:2:9");
    EXPECT_EQ(e.message(), "default 'Bogus' of 'reduction' has no C++ meaning in lazygen");
  }
}

}  // namespace
}  // namespace lazygen::gen::api
