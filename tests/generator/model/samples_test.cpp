// Tests for the ops.yaml keys that describe test inputs, `domain:` and `samples:`
// (model/samples.cpp): what a valid entry gives, and every error with where it points
// (`file:line:col`, 1-based) and what it suggests.
#include <gtest/gtest.h>

#include <string>

#include "model/op_entry.h"

namespace lazygen::gen {
namespace {

const char* const kMm =
    "- func: mm(Tensor self, Tensor mat2) -> Tensor\n  shape: custom\n  kernel: custom\n";

OpEntry load_one(const std::string& yaml) {
  return load_ops_text(yaml, "ops.yaml", OpsDialect::Lazygen).ops.at(0);
}

GenError load_error(const std::string& yaml) {
  try {
    load_ops_text(yaml, "ops.yaml", OpsDialect::Lazygen);
  } catch (const GenError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a GenError for:\n" << yaml;
  return GenError({}, "");
}

TEST(OpSamples, ReadsTensorsAndTheirDomains) {
  OpEntry op = load_one(std::string(kMm) +
                        "  samples:\n"
                        "    - {self: [2, 3], mat2: {shape: [3, 0], domain: index<4>}}\n");
  ASSERT_EQ(op.samples.size(), 1u);
  const OpSample& s = op.samples[0];
  EXPECT_EQ(s.loc.str(), "ops.yaml:5:7");
  ASSERT_EQ(s.values.size(), 2u);
  EXPECT_EQ(s.values[0].first, "self");
  EXPECT_EQ(s.values[0].second.kind, SampleValue::Kind::Tensor);
  EXPECT_EQ(s.values[0].second.sizes, (std::vector<int64_t>{2, 3}));
  EXPECT_FALSE(s.values[0].second.domain);
  const SampleValue& mat2 = s.values[1].second;
  EXPECT_EQ(mat2.sizes, (std::vector<int64_t>{3, 0}));
  ASSERT_TRUE(mat2.domain);
  EXPECT_EQ(mat2.domain->kind, ValueDomain::Kind::Index);
  EXPECT_EQ(mat2.domain->bound, 4);
}

TEST(OpSamples, ReadsEveryKindOfPlainValue) {
  OpEntry op = load_one(
      "- func: f(Tensor[] xs, Tensor? w, int dim, int[2] stride, float eps, bool flag, Scalar s, "
      "ScalarType t, str reduce, int? n=None) -> Tensor\n  shape: custom\n  kernel: custom\n  "
      "samples:\n"
      "    - {xs: [[2], []], w: None, dim: -1, stride: 2, eps: 1e-5, flag: true, s: 0.5, t: "
      "float64, reduce: amax}\n");
  const auto& v = op.samples.at(0).values;
  ASSERT_EQ(v.size(), 9u);
  EXPECT_EQ(v[0].second.kind, SampleValue::Kind::TensorList);
  EXPECT_EQ(v[0].second.tensors.size(), 2u);
  EXPECT_EQ(v[1].second.kind, SampleValue::Kind::None);
  EXPECT_EQ(v[2].second.kind, SampleValue::Kind::Int);
  EXPECT_EQ(v[2].second.text, "-1");
  EXPECT_EQ(v[3].second.kind, SampleValue::Kind::IntList);
  EXPECT_EQ(v[3].second.sizes, (std::vector<int64_t>{2, 2}));  // one value for int[2]
  EXPECT_EQ(v[4].second.kind, SampleValue::Kind::Float);
  EXPECT_EQ(v[5].second.kind, SampleValue::Kind::Bool);
  EXPECT_EQ(v[5].second.text, "true");
  EXPECT_EQ(v[6].second.kind, SampleValue::Kind::Float);
  EXPECT_EQ(v[7].second.kind, SampleValue::Kind::ScalarType);
  EXPECT_EQ(v[7].second.text, "float64");
  EXPECT_EQ(v[8].second.kind, SampleValue::Kind::Str);
  EXPECT_EQ(v[8].second.text, "amax");
}

TEST(OpSamples, ReadsDomains) {
  OpEntry op = load_one(
      "- func: log(Tensor self) -> Tensor\n  shape: same\n  pointwise: log(self)\n  domain: {self: "
      "positive}\n");
  ASSERT_EQ(op.domains.size(), 1u);
  EXPECT_EQ(op.domains[0].first, "self");
  EXPECT_EQ(op.domains[0].second.kind, ValueDomain::Kind::Positive);
  EXPECT_EQ(op.domains[0].second.loc.str(), "ops.yaml:4:18");
}

TEST(OpSamples, OutTensorsAndDefaultedArgumentsMayBeLeftOut) {
  OpEntry op = load_one(
      "- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> "
      "Tensor(a!)\n"
      "  shape: broadcast\n  pointwise: self + alpha * other\n  samples:\n    - {self: [2], other: "
      "[2]}\n");
  EXPECT_EQ(op.samples.at(0).values.size(), 2u);
}

TEST(OpSamples, SamplesMustBeAList) {
  GenError e = load_error(std::string(kMm) + "  samples: {self: [2, 3]}\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:4:12");
  EXPECT_EQ(e.message(), "mm: 'samples' must be a list of samples");
}

TEST(OpSamples, EachSampleMustBeAMap) {
  GenError e = load_error(std::string(kMm) + "  samples:\n    - [2, 3]\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:5:7");
  EXPECT_EQ(e.message(), "mm: each sample must be a map from argument to value, not a list");
}

TEST(OpSamples, UnknownArgumentSuggestsTheNearest) {
  GenError e = load_error(std::string(kMm) + "  samples:\n    - {self: [2, 3], mat3: [3, 4]}\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:5:22");
  EXPECT_EQ(e.message(),
            "mm: sample names 'mat3', which is not an argument of mm(Tensor self, Tensor mat2) -> "
            "Tensor");
  EXPECT_NE(e.hint().find("did you mean 'mat2'?"), std::string::npos) << e.what();
}

TEST(OpSamples, AnArgumentWithoutDefaultMustBeGiven) {
  GenError e = load_error(std::string(kMm) + "  samples:\n    - {self: [2, 3]}\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:5:7");
  EXPECT_EQ(e.message(), "mm: sample gives no 'mat2', which has no default");
  EXPECT_EQ(e.hint(), "add 'mat2: <value>' to the sample");
}

TEST(OpSamples, ATensorIsItsSizes) {
  GenError e = load_error(std::string(kMm) + "  samples:\n    - {self: 3, mat2: [3, 4]}\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:5:14");
  EXPECT_EQ(e.message(), "mm: 'self' is a Tensor, not '3'");
  EXPECT_EQ(e.hint(), "write its sizes, e.g. [2, 3], or {shape: [2, 3], domain: positive}");
}

TEST(OpSamples, NegativeSizePointsAtTheSize) {
  GenError e = load_error(std::string(kMm) + "  samples:\n    - {self: [2, -3], mat2: [3, 4]}\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:5:18");
  EXPECT_EQ(e.message(), "mm: negative size in 'self'");
}

TEST(OpSamples, UnknownKeyInATensor) {
  GenError e = load_error(std::string(kMm) +
                          "  samples:\n    - {self: {shape: [2], domian: positive}, mat2: [2]}\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:5:27");
  EXPECT_EQ(e.message(), "mm: unknown key 'domian' in tensor 'self'");
  EXPECT_NE(e.hint().find("did you mean 'domain'?"), std::string::npos) << e.what();
}

TEST(OpSamples, InvalidDomainSuggestsTheNearest) {
  GenError e = load_error(std::string(kMm) + "  domain: {self: postive}\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:4:18");
  EXPECT_EQ(e.message(), "mm: invalid domain 'postive'");
  EXPECT_NE(e.hint().find("did you mean 'positive'?"), std::string::npos) << e.what();
}

TEST(OpSamples, IndexDomainNeedsAPositiveBound) {
  GenError e = load_error(std::string(kMm) + "  domain: {self: index<0>}\n");
  EXPECT_EQ(e.message(), "mm: invalid index domain 'index<0>'");
  EXPECT_EQ(e.hint(), "write index<N> with N >= 1, e.g. index<3>");
}

TEST(OpSamples, DomainOnlyForTensorArguments) {
  GenError e = load_error(
      "- func: mul.Scalar(Tensor self, Scalar other) -> Tensor\n  shape: same\n  pointwise: self * "
      "other\n"
      "  domain: {other: nonzero}\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:4:12");
  EXPECT_EQ(e.message(),
            "mul.Scalar: domain for 'other', which is not a Tensor argument of mul.Scalar(Tensor "
            "self, Scalar other) -> Tensor");
}

TEST(OpSamples, NoneOnlyForOptionalArguments) {
  GenError e = load_error(std::string(kMm) + "  samples:\n    - {self: None, mat2: [2]}\n");
  EXPECT_EQ(e.message(), "mm: 'self' is Tensor, which cannot be None");
}

TEST(OpSamples, IntegersMustBeIntegers) {
  GenError e = load_error(
      "- func: f(Tensor self, int dim) -> Tensor\n  shape: custom\n  kernel: custom\n  samples:\n"
      "    - {self: [2], dim: 0.5}\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:5:24");
  EXPECT_EQ(e.message(), "f: 'dim' is int, not '0.5'");
  EXPECT_EQ(e.hint(), "write an integer");
}

TEST(OpSamples, NumbersAreDecimalLiterals) {
  GenError e = load_error(
      "- func: f(Tensor self, float eps) -> Tensor\n  shape: custom\n  kernel: custom\n  samples:\n"
      "    - {self: [2], eps: inf}\n");
  EXPECT_EQ(e.message(), "f: 'eps' is float, not 'inf'");
}

TEST(OpSamples, UnknownDTypeSuggestsTheNearest) {
  GenError e = load_error(
      "- func: f(Tensor self, ScalarType t) -> Tensor\n  shape: custom\n  kernel: custom\n  "
      "samples:\n"
      "    - {self: [2], t: float23}\n");
  EXPECT_EQ(e.message(), "f: invalid dtype 'float23' for 't'");
  EXPECT_NE(e.hint().find("did you mean 'float32'?"), std::string::npos) << e.what();
}

TEST(OpSamples, StringsArePlain) {
  GenError e = load_error(
      "- func: f(Tensor self, str mode) -> Tensor\n  shape: custom\n  kernel: custom\n  "
      "samples:\n"
      "    - {self: [2], mode: 'a\"b'}\n");
  EXPECT_EQ(e.message(), "f: 'mode' may not hold quotes, backslashes or line breaks");
  EXPECT_EQ(e.loc().str(), "ops.yaml:5:25");
}

TEST(OpSamples, TypesWithoutASampleFormMustBeLeftOut) {
  GenError e = load_error(
      "- func: f(Tensor self, Generator? g=None) -> Tensor\n  shape: custom\n  kernel: custom\n  "
      "samples:\n"
      "    - {self: [2], g: 1}\n");
  EXPECT_EQ(e.message(), "f: 'g' has type Generator?, which samples cannot give");
  EXPECT_EQ(e.hint(), "leave it out of the sample so that its default is used");
}

}  // namespace
}  // namespace lazygen::gen
