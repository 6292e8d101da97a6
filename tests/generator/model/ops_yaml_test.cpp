// Tests for loading and validating ops files (model/ops_yaml.cpp, model/validate.cpp): every
// error message the loader can give has a test here asserting where it points (`file:line:col`,
// 1-based, while yaml-cpp's marks are 0-based), what it quotes and what it suggests. Inputs are
// small YAML strings named "ops.yaml"; see Note [Columns inside values] in validate.h for how
// columns inside schema strings and expressions are counted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/names.h"
#include "model/op_entry.h"
#include "model/pointwise_functions.h"
#include "model/validate.h"

namespace lazygen::gen {
namespace {

OpsFile load(const std::string& yaml, OpsDialect dialect = OpsDialect::Lazygen,
             const std::vector<std::string>& select = {}) {
  return load_ops_text(yaml, "ops.yaml", dialect, select);
}

// The GenError that loading `yaml` throws (a test failure when it loads).
GenError load_error(const std::string& yaml, OpsDialect dialect = OpsDialect::Lazygen,
                    const std::vector<std::string>& select = {}) {
  try {
    load(yaml, dialect, select);
  } catch (const GenError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a GenError for:\n" << yaml;
  return GenError({}, "");
}

// A valid entry to put beside the one under test.
const char* const kRelu =
    "- func: relu(Tensor self) -> Tensor\n  shape: same\n  pointwise: max(self, 0)\n";

// ------------------------------------------------------------------ what a valid file gives

TEST(OpsYaml, ReadsEveryKeyOfAnEntry) {
  OpsFile file = load(
      "- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
      "  variants: function, method\n"
      "  shape: broadcast\n"
      "  dtype: float\n"
      "  pointwise: self + alpha * other\n"
      "  derivatives:\n"
      "    self: grad\n"
      "    other: grad * alpha\n");
  ASSERT_EQ(file.ops.size(), 1u);
  const OpEntry& op = file.ops[0];
  EXPECT_EQ(op.schema.name.str(), "add.Tensor");
  EXPECT_EQ(op.func, "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(op.entry_loc.str(), "ops.yaml:1:3");
  EXPECT_EQ(op.func_loc.str(), "ops.yaml:1:9");
  EXPECT_TRUE(op.function_variant);
  EXPECT_TRUE(op.method_variant);
  EXPECT_EQ(op.shape, ShapeRule::Broadcast);
  EXPECT_EQ(op.shape_loc.str(), "ops.yaml:3:10");
  EXPECT_EQ(op.dtype, DTypeRule::Float);
  EXPECT_EQ(op.pointwise, "self + alpha * other");
  EXPECT_EQ(op.pointwise_loc.str(), "ops.yaml:5:14");
  EXPECT_FALSE(op.custom_kernel);
  ASSERT_EQ(op.derivatives.size(), 2u);
  EXPECT_EQ(op.derivatives[1].argument, "other");
  EXPECT_EQ(op.derivatives[1].formula, "grad * alpha");
  EXPECT_EQ(op.derivatives[1].key_loc.str(), "ops.yaml:8:5");
  EXPECT_EQ(op.derivatives[1].loc.str(), "ops.yaml:8:12");
}

TEST(OpsYaml, DefaultsAreFunctionVariantAndPromote) {
  OpsFile file = load("- func: relu(Tensor self) -> Tensor\n  shape: same\n  kernel: custom\n");
  const OpEntry& op = file.ops.at(0);
  EXPECT_TRUE(op.function_variant);
  EXPECT_FALSE(op.method_variant);
  EXPECT_EQ(op.dtype, DTypeRule::Promote);
  EXPECT_TRUE(op.custom_kernel);
  EXPECT_EQ(op.kernel_loc.str(), "ops.yaml:3:11");
}

TEST(OpsYaml, EmptyFileHasNoOps) {
  EXPECT_TRUE(load("").ops.empty());
  EXPECT_TRUE(load("# only a comment\n").ops.empty());
}

TEST(OpsYaml, QuotedValuesPointPastTheQuote) {
  OpsFile file =
      load("- func: \"relu(Tensor self) -> Tensor\"\n  shape: same\n  pointwise: 'abs(self)'\n");
  EXPECT_EQ(file.ops.at(0).func_loc.str(), "ops.yaml:1:10");
  EXPECT_EQ(file.ops.at(0).pointwise_loc.str(), "ops.yaml:3:15");
}

TEST(OpsYaml, BlockScalarValuesStartOnTheNextLine) {
  OpsFile file =
      load("- func: relu(Tensor self) -> Tensor\n  shape: same\n  pointwise: >-\n    abs(self)\n");
  EXPECT_EQ(file.ops.at(0).pointwise, "abs(self)");
  EXPECT_EQ(file.ops.at(0).pointwise_loc.str(), "ops.yaml:4:5");
}

TEST(OpsYaml, NativeKeysAreAcceptedSoEntriesCanBePasted) {
  OpsFile file = load(
      "- func: relu(Tensor self) -> Tensor\n  shape: same\n  kernel: custom\n"
      "  dispatch:\n    CPU: relu\n  tags: pointwise\n");
  EXPECT_EQ(file.ops.size(), 1u);
}

TEST(OpsYaml, NativeDialectNeedsNoShapeOrKernel) {
  OpsFile file = load("- func: relu(Tensor self) -> Tensor\n- func: ones(int[] size) -> Tensor\n",
                      OpsDialect::Native);
  EXPECT_EQ(file.ops.size(), 2u);
}

// ------------------------------------------------------------------ YAML structure

TEST(OpsYaml, MalformedYamlPointsAtYamlCppsMarkOneBased) {
  GenError e = load_error("- func: relu(Tensor self) -> Tensor\n  shape: [same\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:3:1");
  EXPECT_EQ(e.message(), "malformed YAML: end of sequence flow not found");
  EXPECT_EQ(e.hint(), "check the indentation and quoting near this position");
}

// Found by fuzzing (tests/generator/fuzz): yaml-cpp marks an escape cut off by the end of the
// input one column past that end.
TEST(OpsYaml, MalformedYamlCutOffAtTheEndPointsJustPastIt) {
  GenError e = load_error("- func: \"relu(\\x<");
  EXPECT_EQ(e.loc().str(), "ops.yaml:1:18");
  EXPECT_EQ(e.message(), "malformed YAML: bad character found while scanning hex number");
}

// yaml-cpp would decode these (guessing UTF-16 from NUL bytes too) and mark positions in the
// converted text; ops files are UTF-8 (found by fuzzing, tests/generator/fuzz).
TEST(OpsYaml, Utf16FileIsRejectedAtItsByteOrderMark) {
  GenError e = load_error(std::string("\xFF\xFE-\0 \0f\0", 8));
  EXPECT_EQ(e.loc().str(), "ops.yaml:1:1");
  EXPECT_EQ(e.message(),
            "ops files are UTF-8; this one starts with a UTF-16 or UTF-32 byte order mark");
}

TEST(OpsYaml, NulBytePointsAtItself) {
  GenError e =
      load_error(std::string(kRelu) + std::string("- func: f(Tensor\0 a) -> Tensor\n", 30));
  EXPECT_EQ(e.loc().str(), "ops.yaml:4:17");
  EXPECT_EQ(e.message(), "NUL byte in an ops file");
}

TEST(OpsYaml, Utf8ByteOrderMarkIsNotAColumn) {
  GenError e = load_error(
      "\xEF\xBB\xBF- func: relu(Tensor self) -> Tensr\n  shape: same\n  kernel: custom\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:1:30");
}

TEST(OpsYaml, MalformedYamlBadIndentation) {
  GenError e = load_error("- func: relu(Tensor self) -> Tensor\n   shape: same\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:2:9");
  EXPECT_EQ(e.message(), "malformed YAML: illegal map value");
}

TEST(OpsYaml, RootMustBeAList) {
  GenError e = load_error("func: relu(Tensor self) -> Tensor\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:1:1");
  EXPECT_EQ(e.message(), "an ops file is a list of entries, not a map");
  EXPECT_EQ(e.hint(), "start each entry with '- func: <schema>'");
}

TEST(OpsYaml, EntryMustBeAMap) {
  GenError e = load_error(std::string(kRelu) + "- relu(Tensor self) -> Tensor\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:4:3");
  EXPECT_EQ(e.message(),
            "each entry must be a map starting with 'func:', not 'relu(Tensor self) -> Tensor'");
  EXPECT_EQ(e.hint(), "write e.g.\n  - func: relu(Tensor self) -> Tensor\n    shape: same");
}

TEST(OpsYaml, EntryWithoutFuncPointsAtTheEntry) {
  GenError e = load_error(std::string(kRelu) + "- shape: same\n  kernel: custom\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:4:3");
  EXPECT_EQ(e.message(), "entry has no 'func:' key");
  EXPECT_EQ(e.hint(),
            "every entry starts with the schema, e.g. '- func: relu(Tensor self) -> Tensor'");
}

TEST(OpsYaml, FuncMustBeASingleValue) {
  GenError e = load_error("- func: [relu, abs]\n  shape: same\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:1:9");
  EXPECT_EQ(e.message(), "'func' must be a single value, not a list");
  EXPECT_EQ(e.hint(), "write it on one line, e.g. 'func: ...'");
}

TEST(OpsYaml, DerivativesMustBeAMap) {
  GenError e = load_error(std::string(kRelu) + "  derivatives: grad\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:4:16");
  EXPECT_EQ(e.message(), "'derivatives' must be a map from argument to formula");
}

// ------------------------------------------------------------------ schema strings

TEST(OpsYaml, BadSchemaPointsInsideTheSchemaString) {
  // The value starts at column 9; the parser stops at "->" (offset 17) expecting ',' or ')'.
  GenError e = load_error("- func: relu(Tensor self -> Tensor\n  shape: same\n  kernel: custom\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:1:26");
  EXPECT_EQ(e.message(), "expected ',' or ')' after argument 'self', found '-'");
  EXPECT_EQ(e.hint(), "separate arguments with ', ' and close the list with ')'");
}

TEST(OpsYaml, BadSchemaInAQuotedValueCountsFromAfterTheQuote) {
  GenError e =
      load_error("- func: \"relu(Tensor self -> Tensor\"\n  shape: same\n  kernel: custom\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:1:27");
}

// Found by fuzzing (tests/generator/fuzz): a block scalar with nothing after it had no column.
TEST(OpsYaml, BadSchemaInAnEmptyBlockScalarPointsAtItsIndicator) {
  GenError e = load_error("- func: |\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:1:9");
  EXPECT_EQ(e.message(), "empty schema");
}

// yaml-cpp marks a value at its tag or anchor; a quote may follow a tag directly (found by
// fuzzing).
TEST(OpsYaml, BadSchemaAfterATagOrAnchorCountsFromTheValue) {
  const char* const kKernel = "\n  shape: same\n  kernel: custom\n";
  for (const char* func :
       {"!!str relu(Tensor self) -> Tensr", "&a  relu(Tensor self) -> Tensr",
        "!!str\"relu(Tensor self) -> Tensr\"", "!<x> relu(Tensor self) -> Tensr"}) {
    GenError e = load_error(std::string("- func: ") + func + kKernel);
    EXPECT_EQ(e.loc().col, static_cast<int>(std::string(func).find("Tensr")) + 9) << func;
    EXPECT_EQ(e.message(), "unknown type 'Tensr'") << func;
  }
}

TEST(OpsYaml, UnknownTypeInSchemaPointsAtTheType) {
  GenError e = load_error("- func: relu(Tensr self) -> Tensor\n  shape: same\n  kernel: custom\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:1:14");
  EXPECT_NE(e.message().find("'Tensr'"), std::string::npos) << e.what();
  EXPECT_NE(e.hint().find("did you mean 'Tensor'?"), std::string::npos) << e.what();
}

// ------------------------------------------------------------------ keys and values

TEST(OpsYaml, UnknownKeySuggestsNearestKey) {
  GenError e =
      load_error("- func: relu(Tensor self) -> Tensor\n  shape: same\n  pointwize: abs(self)\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:3:3");
  EXPECT_EQ(e.message(), "unknown key 'pointwize'");
  EXPECT_EQ(e.hint(),
            "did you mean 'pointwise'? valid: func, variants, shape, dtype, dtypes, pointwise, "
            "kernel, derivatives, domain, samples, torch");
}

TEST(OpsYaml, UnknownKeyIsAnErrorInTheNativeDialectToo) {
  GenError e = load_error("- func: relu(Tensor self) -> Tensor\n  dispach: {CPU: relu}\n",
                          OpsDialect::Native);
  EXPECT_EQ(e.loc().str(), "ops.yaml:2:3");
  EXPECT_EQ(e.message(), "unknown key 'dispach'");
}

TEST(OpsYaml, UnknownKeyFarFromAnyListsTheValidOnes) {
  GenError e = load_error("- func: relu(Tensor self) -> Tensor\n  frobnicate: yes\n");
  EXPECT_EQ(e.hint(),
            "valid: func, variants, shape, dtype, dtypes, pointwise, kernel, derivatives, domain, "
            "samples, torch");
}

TEST(OpsYaml, InvalidShapeSuggestsNearest) {
  GenError e =
      load_error("- func: relu(Tensor self) -> Tensor\n  shape: broadcst\n  kernel: custom\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:2:10");
  EXPECT_EQ(e.message(), "invalid shape 'broadcst'");
  EXPECT_EQ(e.hint(), "did you mean 'broadcast'? valid: same, broadcast, reduce, view, custom");
}

TEST(OpsYaml, InvalidDtypeSuggestsNearestCountingASwapAsOneEdit) {
  GenError e = load_error(
      "- func: relu(Tensor self) -> Tensor\n  shape: same\n  dtype: flaot\n  kernel: custom\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:3:10");
  EXPECT_EQ(e.message(), "invalid dtype 'flaot'");
  EXPECT_EQ(e.hint(), "did you mean 'float'? valid: promote, bool, float, self, index");
}

TEST(OpsYaml, InvalidKernelSuggestsCustom) {
  GenError e = load_error("- func: relu(Tensor self) -> Tensor\n  shape: same\n  kernel: custm\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:3:11");
  EXPECT_EQ(e.message(), "invalid kernel 'custm'");
  EXPECT_EQ(e.hint(), "did you mean 'custom'? valid: custom");
}

TEST(OpsYaml, InvalidVariantPointsAtTheVariant) {
  GenError e = load_error(
      "- func: relu(Tensor self) -> Tensor\n  variants: function, methd\n  shape: same\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:2:23");
  EXPECT_EQ(e.message(), "invalid variant 'methd'");
  EXPECT_EQ(e.hint(), "did you mean 'method'? valid: function, method");
}

TEST(OpsYaml, EmptyVariantIsInvalid) {
  GenError e =
      load_error("- func: relu(Tensor self) -> Tensor\n  variants: function,\n  shape: same\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:2:22");
  EXPECT_EQ(e.message(), "invalid variant ''");
}

TEST(OpsYaml, DuplicateOpPointsAtTheSecondAndNamesTheFirst) {
  GenError e = load_error(std::string(kRelu) +
                          "- func: relu(Tensor self) -> Tensor\n  shape: same\n  kernel: custom\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:4:9");
  EXPECT_EQ(e.message(), "duplicate op 'relu'");
  EXPECT_EQ(e.hint(), "it is already defined at ops.yaml:1:9; remove one entry");
}

// ------------------------------------------------------------------ derivatives

const char* const kAdd =
    "- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
    "  shape: broadcast\n"
    "  pointwise: self + alpha * other\n"
    "  derivatives:\n";
const char* const kAddSchema = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";

TEST(OpsYaml, DerivativeForANonTensorArgument) {
  GenError e = load_error(std::string(kAdd) + "    alpha: grad\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:5:5");
  EXPECT_EQ(e.message(), "add.Tensor: derivative for 'alpha', which is not a Tensor argument of " +
                             std::string(kAddSchema));
  EXPECT_EQ(e.hint(), "valid: self, other");
}

TEST(OpsYaml, DerivativeForAnUnknownArgumentSuggestsNearest) {
  GenError e = load_error(std::string(kAdd) + "    self: grad\n    othr: grad\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:6:5");
  EXPECT_EQ(e.message(), "add.Tensor: derivative for 'othr', which is not a Tensor argument of " +
                             std::string(kAddSchema));
  EXPECT_EQ(e.hint(), "did you mean 'other'? valid: self, other");
}

TEST(OpsYaml, FormulaNamingAMissingIdentifierPointsIntoTheFormula) {
  // "grad * alpah": the value starts at column 11, alpah at offset 7.
  GenError e = load_error(std::string(kAdd) + "    other: grad * alpah\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:5:19");
  EXPECT_EQ(e.message(),
            "add.Tensor: formula names 'alpah', which " + std::string(kAddSchema) + " lacks");
  EXPECT_EQ(e.hint(), "did you mean 'alpha'? valid: self, other, alpha, grad, non_differentiable, true, false, "
            "result");
}

TEST(OpsYaml, FormulaMayCallFunctionsAndUseGradAndResult) {
  OpsFile file = load(std::string(kAdd) + "    self: mul(grad, result).sum_to(self)\n");
  EXPECT_EQ(file.ops.at(0).derivatives.size(), 1u);
}

// ------------------------------------------------------------------ pointwise

TEST(OpsYaml, PointwiseWithAnUnknownInputPointsAtTheIdentifier) {
  // The value starts at column 14; "alpah" is at offset 7.
  GenError e = load_error(
      "- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
      "  shape: broadcast\n"
      "  pointwise: self + alpah * other\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:3:21");
  EXPECT_EQ(e.message(), "add.Tensor: pointwise expression uses unknown input 'alpah'");
  EXPECT_EQ(e.hint(), "did you mean 'alpha'? valid: self, other, alpha");
}

TEST(OpsYaml, PointwiseWithAnUnknownFunctionPointsAtTheCall) {
  GenError e = load_error(
      "- func: relu(Tensor self) -> Tensor\n  shape: same\n  pointwise: 2 * expp(self)\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:3:18");
  EXPECT_EQ(e.message(), "relu: pointwise expression uses unknown function 'expp'");
  EXPECT_EQ(e.hint(), "did you mean 'exp'? `lazygen --functions` lists the " +
                         std::to_string(pointwise_functions().size()) + " functions");
}

TEST(OpsYaml, PointwiseInputsAreTensorsAndScalarsOnly) {
  GenError e = load_error(
      "- func: foo(Tensor self, int dim) -> Tensor\n  shape: same\n  pointwise: self * dim\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:3:21");
  EXPECT_EQ(e.message(), "foo: pointwise expression uses unknown input 'dim'");
  EXPECT_EQ(e.hint(), "valid: self");
}

TEST(OpsYaml, PointwiseInAQuotedValueCountsFromAfterTheQuote) {
  GenError e = load_error(
      "- func: relu(Tensor self) -> Tensor\n  shape: same\n  pointwise: \"abs(slef)\"\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:3:19");
}

TEST(OpsYaml, PointwiseCallWithTheWrongArityPointsAtTheCall) {
  GenError e = load_error(
      "- func: foo(Tensor self, Tensor other) -> Tensor\n  shape: broadcast\n"
      "  pointwise: self + atan2(self)\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:3:21");
  EXPECT_EQ(e.message(), "foo: atan2 takes 2 arguments, got 1");
  EXPECT_EQ(e.hint(), "`lazygen --functions` lists each function with its arguments");
}

TEST(OpsYaml, AnIntegralFunctionInAnOpThatComputesInFloatingPointIsRefused) {
  const std::string op =
      "- func: my_and(Tensor self, Tensor other) -> Tensor\n  shape: broadcast\n"
      "  pointwise: bitwise_and(self, other)\n";
  GenError e = load_error(op);
  EXPECT_EQ(e.loc().str(), "ops.yaml:3:14");
  EXPECT_EQ(e.message(), "my_and: bitwise_and takes bool and integral values, but the op would compute in float32");
  EXPECT_EQ(e.hint(), "declare the dtypes it takes: 'dtypes: [bool, int32, int64]'");
  EXPECT_NO_THROW(load(op + "  dtypes: [bool, int32, int64]\n"));
}

TEST(OpsYaml, PointwiseOnAMultiOutputOp) {
  GenError e = load_error(
      "- func: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor "
      "indices)\n"
      "  shape: custom\n"
      "  pointwise: self\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:3:14");
  EXPECT_EQ(e.message(), "max.dim: 'pointwise' needs an op returning one Tensor");
  EXPECT_EQ(e.hint(), "use 'kernel: custom' for ops with several or non-tensor results");
}

TEST(OpsYaml, PointwiseAndCustomKernelTogether) {
  GenError e = load_error(std::string(kRelu) + "  kernel: custom\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:4:11");
  EXPECT_EQ(e.message(), "relu: both 'pointwise' and 'kernel: custom' given");
  EXPECT_EQ(
      e.hint(),
      "keep one: 'pointwise:' generates the kernel, 'kernel: custom' means it is hand-written");
}

// ------------------------------------------------------------------ hooks and required keys

TEST(OpsYaml, CustomHookOnAnOpWithoutTensors) {
  GenError e =
      load_error("- func: ones(int[] size) -> Tensor\n  shape: custom\n  kernel: custom\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:3:11");
  EXPECT_EQ(e.message(), "ones: a custom hook needs at least one Tensor argument");
  EXPECT_EQ(e.hint(), "ops without tensor inputs are factories: write them in runtime/ops by hand");
}

TEST(OpsYaml, CustomShapeOnAnOpWithoutTensorsInTheNativeDialect) {
  GenError e =
      load_error("- func: ones(int[] size) -> Tensor\n  shape: custom\n", OpsDialect::Native);
  EXPECT_EQ(e.loc().str(), "ops.yaml:2:10");
  EXPECT_EQ(e.message(), "ones: a custom hook needs at least one Tensor argument");
}

TEST(OpsYaml, MissingShape) {
  GenError e = load_error("- func: relu(Tensor self) -> Tensor\n  kernel: custom\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:1:3");
  EXPECT_EQ(e.message(), "relu: missing 'shape:'");
  EXPECT_EQ(e.hint(), "add 'shape: same|broadcast|reduce|view|custom'");
}

TEST(OpsYaml, NoKernel) {
  GenError e = load_error("- func: relu(Tensor self) -> Tensor\n  shape: same\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:1:3");
  EXPECT_EQ(e.message(), "relu: no kernel");
  EXPECT_EQ(e.hint(),
            "add 'pointwise: <expression>' or 'kernel: custom' (hand-written lazygen::cpu kernel)");
}

TEST(OpsYaml, ReduceWithoutSelf) {
  GenError e =
      load_error("- func: total(Tensor input) -> Tensor\n  shape: reduce\n  kernel: custom\n");
  EXPECT_EQ(e.loc().str(), "ops.yaml:2:10");
  EXPECT_EQ(e.message(), "total: 'shape: reduce' needs a 'self' argument");
  EXPECT_EQ(e.hint(), "use 'shape: custom' and write compute_shape_<op> by hand");
}

// ------------------------------------------------------------------ --ops selection

const char* const kTwoOps =
    "- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
    "- func: relu(Tensor self) -> Tensor\n"
    "- func: mm(Tensor self, Tensor mat2) -> Tensor\n";

TEST(OpsYaml, SelectKeepsFileOrderAndEachOpOnce) {
  OpsFile file = load(kTwoOps, OpsDialect::Native, {"mm", "add.Tensor", "mm"});
  ASSERT_EQ(file.ops.size(), 2u);
  EXPECT_EQ(file.ops[0].schema.name.str(), "add.Tensor");
  EXPECT_EQ(file.ops[1].schema.name.str(), "mm");
}

TEST(OpsYaml, SelectNamingAMissingOpSuggestsTheNearest) {
  GenError e = load_error(kTwoOps, OpsDialect::Native, {"relu", "ad.Tensor"});
  EXPECT_EQ(e.loc().str(), "ops.yaml");
  EXPECT_EQ(e.message(), "--ops names 'ad.Tensor', which ops.yaml lacks");
  EXPECT_EQ(e.hint(), "did you mean 'add.Tensor'?");
}

TEST(OpsYaml, SelectNamingAnOpFarFromAnySaysHowToList) {
  GenError e = load_error(kTwoOps, OpsDialect::Native, {"convolution"});
  EXPECT_EQ(e.message(), "--ops names 'convolution', which ops.yaml lacks");
  EXPECT_EQ(e.hint(),
            "no op has a similar name; `lazygen --dump-schema ops.yaml` lists every schema");
}

// ------------------------------------------------------------------ derived C++ names

TEST(OpsYaml, TwoOpsDerivingOneOpIdAreRejected) {
  OpsFile file =
      load("- func: foo_bar(Tensor self) -> Tensor\n- func: foo.bar(Tensor self) -> Tensor\n",
           OpsDialect::Native);
  try {
    api::check_unique_ids(file.ops);
    FAIL() << "expected a GenError";
  } catch (const GenError& e) {
    EXPECT_EQ(e.loc().str(), "ops.yaml:2:9");
    EXPECT_EQ(e.message(),
              "'foo.bar' and 'foo_bar' (at ops.yaml:1:9) both derive the C++ name 'foo_bar'");
    EXPECT_EQ(e.hint(), "rename one overload");
  }
}

TEST(OpsYaml, TwoOpsDerivingOneClassNameAreRejected) {
  // Distinct op ids (foo_bar, foo__bar) but one class name: PascalCase drops the underscores.
  OpsFile file =
      load("- func: foo_bar(Tensor self) -> Tensor\n- func: foo__bar(Tensor self) -> Tensor\n",
           OpsDialect::Native);
  try {
    api::check_unique_ids(file.ops);
    FAIL() << "expected a GenError";
  } catch (const GenError& e) {
    EXPECT_EQ(e.loc().str(), "ops.yaml:2:9");
    EXPECT_EQ(e.message(),
              "'foo__bar' and 'foo_bar' (at ops.yaml:1:9) both derive the C++ name 'FooBar'");
  }
}

TEST(OpsYaml, InplaceAndFunctionalOverloadsDeriveDistinctNames) {
  OpsFile file = load(
      "- func: add.Tensor(Tensor self, Tensor other) -> Tensor\n"
      "- func: add_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)\n",
      OpsDialect::Native);
  EXPECT_NO_THROW(api::check_unique_ids(file.ops));
}

TEST(OpsYaml, LoadOpsFileReportsAMissingFile) {
  try {
    load_ops_file("/nonexistent/ops.yaml", OpsDialect::Lazygen);
    FAIL() << "expected a GenError";
  } catch (const GenError& e) {
    EXPECT_EQ(e.loc().str(), "/nonexistent/ops.yaml");
    EXPECT_EQ(e.message(), "cannot open file");
  }
}

}  // namespace
}  // namespace lazygen::gen

namespace lazygen::gen {
namespace {

// Multi-output ops: formulas name outputs as result (output 0), result0, result1, ... or by the
// return's name; qualified names (std::get) are not taken for variables.
TEST(OpsYaml, FormulasMayNameEachOutputOfAMultiOutputOp) {
  OpsFile file = load_ops_text(
      "- func: pool(Tensor self) -> (Tensor out, Tensor indices)\n"
      "  shape: custom\n"
      "  kernel: custom\n"
      "  derivatives:\n"
      "    self: pool_backward(grad, self, result1, indices, std::get<0>(std::make_tuple(result0)))\n",
      "ops.yaml", OpsDialect::Lazygen);
  ASSERT_EQ(file.ops.size(), 1u);
  auto names = file.ops[0].schema.result_names();
  ASSERT_EQ(names.size(), 5u);
  EXPECT_EQ(names[1], std::make_pair(std::string("result0"), 0));
  EXPECT_EQ(names[2], std::make_pair(std::string("result1"), 1));
  EXPECT_EQ(names[4], std::make_pair(std::string("indices"), 1));
}

TEST(OpsYaml, FormulaNamingAMissingOutputSuggestsTheOutputs) {
  try {
    load_ops_text(
        "- func: pool(Tensor self) -> (Tensor, Tensor)\n  shape: custom\n  kernel: custom\n"
        "  derivatives:\n    self: f(grad, result2)\n",
        "ops.yaml", OpsDialect::Lazygen);
    FAIL() << "expected an error";
  } catch (const GenError& e) {
    EXPECT_EQ(e.loc().str(), "ops.yaml:5:19");
    EXPECT_NE(e.hint().find("result1"), std::string::npos) << e.hint();
  }
}

}  // namespace
}  // namespace lazygen::gen
