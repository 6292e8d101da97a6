// Tests for the schema model: the parser on every grammar feature, the kind() classification, the
// canonical printer, every parse error (column, message, hint), and the round trip
// print_schema(parse_schema(s)) == s over all 2493 `func:` strings of PyTorch's real
// native_functions.yaml (skipped when python3-torch is not installed).
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>
#include <vector>

#include "model/schema.h"

namespace lazygen::gen {
namespace {

constexpr const char* kNativeFunctions =
    "/usr/lib/python3/dist-packages/torchgen/packaged/ATen/native/native_functions.yaml";

Type parse_type(const std::string& type) {
  return parse_schema("f(" + type + " x) -> ()").arguments.at(0).type;
}

DefaultValue parse_default(const std::string& arg) {
  return *parse_schema("f(" + arg + ") -> ()").arguments.at(0).default_value;
}

Annotation parse_annotation(const std::string& type) {
  return *parse_schema("f(" + type + " x) -> ()").arguments.at(0).annotation;
}

// ---- grammar ----

TEST(SchemaParser, ParsesAddTensor) {
  FunctionSchema s =
      parse_schema("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(s.name.base, "add");
  EXPECT_EQ(s.name.overload, "Tensor");
  ASSERT_EQ(s.arguments.size(), 3u);
  EXPECT_EQ(s.arguments[0].name, "self");
  EXPECT_EQ(s.arguments[0].type.base, BaseType::Tensor);
  EXPECT_FALSE(s.arguments[1].kwarg_only);
  EXPECT_TRUE(s.arguments[2].kwarg_only);
  EXPECT_EQ(s.arguments[2].type.base, BaseType::Scalar);
  EXPECT_EQ(s.arguments[2].default_value, (DefaultValue{DefaultValue::Kind::Int, "1"}));
  ASSERT_EQ(s.returns.size(), 1u);
  EXPECT_EQ(s.returns[0].name, "");
  EXPECT_EQ(s.returns[0].type, Type{});
}

TEST(SchemaParser, ParsesOperatorNames) {
  EXPECT_EQ(parse_schema("relu(Tensor self) -> Tensor").name, (OperatorName{"relu", ""}));
  EXPECT_EQ(parse_schema("__and__.Scalar(Tensor self, Scalar other) -> Tensor").name,
            (OperatorName{"__and__", "Scalar"}));
  EXPECT_EQ(parse_schema("_foo_(Tensor(a!) self) -> Tensor(a!)").name, (OperatorName{"_foo_", ""}));
  EXPECT_EQ(parse_schema("_cast_Byte(Tensor self, bool non_blocking=False) -> Tensor").name.base,
            "_cast_Byte");
}

TEST(SchemaParser, ParsesEveryBaseType) {
  for (int i = 0; i <= static_cast<int>(BaseType::ConstQuantizerPtr); ++i) {
    BaseType base = static_cast<BaseType>(i);
    EXPECT_EQ(parse_type(std::string(base_type_name(base))).base, base) << base_type_name(base);
  }
}

TEST(SchemaParser, ParsesTypeSuffixes) {
  EXPECT_TRUE(parse_type("Tensor?").elem_optional);
  EXPECT_TRUE(parse_type("Tensor?").is_optional());
  EXPECT_EQ(parse_type("int[]"), (Type{BaseType::Int, false, true, std::nullopt, false}));
  EXPECT_EQ(parse_type("SymInt[2]"), (Type{BaseType::SymInt, false, true, 2, false}));
  EXPECT_EQ(parse_type("Tensor?[]"), (Type{BaseType::Tensor, true, true, std::nullopt, false}));
  EXPECT_FALSE(parse_type("Tensor?[]").is_optional());
  EXPECT_EQ(parse_type("float[]?"), (Type{BaseType::Float, false, true, std::nullopt, true}));
  EXPECT_EQ(parse_type("int[1]?"), (Type{BaseType::Int, false, true, 1, true}));
  EXPECT_TRUE(parse_type("int[1]?").is_optional());
}

TEST(SchemaParser, ParsesAliasAnnotations) {
  EXPECT_EQ(parse_annotation("Tensor(a)"), (Annotation{{"a"}, false, {}}));
  EXPECT_EQ(parse_annotation("Tensor(b!)"), (Annotation{{"b"}, true, {}}));
  EXPECT_EQ(parse_annotation("Tensor(a -> *)"), (Annotation{{"a"}, false, {"*"}}));
  EXPECT_EQ(parse_annotation("Tensor(a|b)"), (Annotation{{"a", "b"}, false, {}}));
  EXPECT_EQ(parse_annotation("Tensor(a! -> a|b)"), (Annotation{{"a"}, true, {"a", "b"}}));
}

TEST(SchemaParser, PutsAnnotationsBetweenBaseTypeAndSuffix) {
  FunctionSchema s = parse_schema("f(Tensor(a!)[] xs, Tensor(b)? y) -> ()");
  EXPECT_TRUE(s.arguments[0].type.is_list);
  EXPECT_TRUE(s.arguments[0].is_write());
  EXPECT_TRUE(s.arguments[1].type.elem_optional);
  EXPECT_FALSE(s.arguments[1].is_write());
}

TEST(SchemaParser, FindsTheArgumentAViewAliases) {
  FunctionSchema t = parse_schema("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)");
  ASSERT_NE(t.viewed_argument(), nullptr);
  EXPECT_EQ(t.viewed_argument()->name, "self");
  FunctionSchema second = parse_schema("f(Tensor x, Tensor(b) y) -> Tensor(b)");
  ASSERT_NE(second.viewed_argument(), nullptr);
  EXPECT_EQ(second.viewed_argument()->name, "y");
  // Not views: written arguments, no annotation, several returns, another alias set.
  EXPECT_EQ(parse_schema("add_(Tensor(a!) self) -> Tensor(a!)").viewed_argument(), nullptr);
  EXPECT_EQ(parse_schema("add(Tensor self) -> Tensor").viewed_argument(), nullptr);
  EXPECT_EQ(parse_schema("f(Tensor(a) self) -> (Tensor(a), Tensor(a))").viewed_argument(), nullptr);
  EXPECT_EQ(parse_schema("f(Tensor(a) self) -> Tensor(b)").viewed_argument(), nullptr);
  EXPECT_EQ(parse_schema("f(Tensor(a)[] xs) -> Tensor(a)").viewed_argument(), nullptr);
}

TEST(SchemaParser, ClassifiesDefaults) {
  using Kind = DefaultValue::Kind;
  EXPECT_EQ(parse_default("Tensor? w=None"), (DefaultValue{Kind::None, "None"}));
  EXPECT_EQ(parse_default("bool b=True"), (DefaultValue{Kind::Bool, "True"}));
  EXPECT_EQ(parse_default("bool b=False"), (DefaultValue{Kind::Bool, "False"}));
  EXPECT_EQ(parse_default("int i=-100"), (DefaultValue{Kind::Int, "-100"}));
  EXPECT_EQ(parse_default("int[2] stride=1"), (DefaultValue{Kind::Int, "1"}));
  EXPECT_EQ(parse_default("float eps=1e-05"), (DefaultValue{Kind::Float, "1e-05"}));
  EXPECT_EQ(parse_default("float p=0.3333333333333333"),
            (DefaultValue{Kind::Float, "0.3333333333333333"}));
  EXPECT_EQ(parse_default("float m=-1.0"), (DefaultValue{Kind::Float, "-1.0"}));
  EXPECT_EQ(parse_default("float m=inf"), (DefaultValue{Kind::Float, "inf"}));
  EXPECT_EQ(parse_default("int reduction=Mean"), (DefaultValue{Kind::Identifier, "Mean"}));
  EXPECT_EQ(parse_default("MemoryFormat f=contiguous_format"),
            (DefaultValue{Kind::Identifier, "contiguous_format"}));
  EXPECT_EQ(parse_default("ScalarType dtype=long"), (DefaultValue{Kind::Identifier, "long"}));
}

TEST(SchemaParser, KeepsStringDefaultsAsWritten) {
  using Kind = DefaultValue::Kind;
  EXPECT_EQ(parse_default("str r=\"mean\""), (DefaultValue{Kind::String, "\"mean\""}));
  EXPECT_EQ(parse_default("str r='none'"), (DefaultValue{Kind::String, "'none'"}));
  FunctionSchema s =
      parse_schema(R"(_test_string_default(Tensor dummy, str a="\"'\\", str b='"\'\\') -> Tensor)");
  EXPECT_EQ(s.arguments[1].default_value->text, R"("\"'\\")");
  EXPECT_EQ(s.arguments[2].default_value->text, R"('"\'\\')");
}

TEST(SchemaParser, KeepsListDefaultsAsWritten) {
  using Kind = DefaultValue::Kind;
  EXPECT_EQ(parse_default("int[] dims=[]"), (DefaultValue{Kind::List, "[]"}));
  EXPECT_EQ(parse_default("int[2] dim=[0,1]"), (DefaultValue{Kind::List, "[0,1]"}));
  EXPECT_EQ(parse_default("int[2] dim=[-2,-1]"), (DefaultValue{Kind::List, "[-2,-1]"}));
  EXPECT_EQ(parse_default("int[1] dim=[-1]"), (DefaultValue{Kind::List, "[-1]"}));
}

TEST(SchemaParser, MarksEverythingAfterStarKeywordOnly) {
  FunctionSchema s = parse_schema("f(*, Tensor a, int b=0) -> Tensor");
  EXPECT_TRUE(s.arguments[0].kwarg_only);
  EXPECT_TRUE(s.arguments[1].kwarg_only);
  EXPECT_TRUE(parse_schema("f() -> Tensor").arguments.empty());
}

TEST(SchemaParser, ParsesNamedTupleReturns) {
  FunctionSchema s = parse_schema(
      "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  ASSERT_EQ(s.returns.size(), 2u);
  EXPECT_EQ(s.returns[0].name, "values");
  EXPECT_EQ(s.returns[1].name, "indices");
}

TEST(SchemaParser, ParsesAnnotatedTupleReturns) {
  FunctionSchema s = parse_schema(
      "cummax.out(Tensor self, int dim, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) "
      "values, Tensor(b!) indices)");
  ASSERT_EQ(s.returns.size(), 2u);
  EXPECT_EQ(s.returns[1].annotation, (Annotation{{"b"}, true, {}}));
  EXPECT_EQ(parse_schema("f(Tensor a) -> (Tensor, Tensor, float, int)").returns.size(), 4u);
}

TEST(SchemaParser, ParsesEmptyAndListReturns) {
  EXPECT_TRUE(parse_schema("_foo(Tensor(a!) self) -> ()").returns.empty());
  FunctionSchema s =
      parse_schema("chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]");
  ASSERT_EQ(s.returns.size(), 1u);
  EXPECT_TRUE(s.returns[0].type.is_list);
  EXPECT_EQ(s.returns[0].annotation, (Annotation{{"a"}, false, {}}));
}

TEST(SchemaParser, ParsesNonTensorAndSingleNamedReturns) {
  EXPECT_EQ(parse_schema("f(Tensor a) -> int").returns[0].type.base, BaseType::Int);
  EXPECT_EQ(parse_schema("f(Tensor a) -> bool").returns[0].type.base, BaseType::Bool);
  EXPECT_EQ(parse_schema("f(Tensor a) -> ScalarType").returns[0].type.base, BaseType::ScalarType);
  EXPECT_EQ(parse_schema("f(Tensor a) -> QScheme").returns[0].type.base, BaseType::QScheme);
  EXPECT_EQ(parse_schema("f(Tensor a) -> int[]").returns[0].type.is_list, true);
  EXPECT_EQ(parse_schema("f(Tensor a) -> Tensor output").returns[0].name, "output");
}

TEST(SchemaParser, ToleratesExtraSpacesAndPrintsThemCanonically) {
  FunctionSchema s =
      parse_schema("  add.Tensor( Tensor self ,Tensor other,*,Scalar alpha = 1 )->Tensor ");
  EXPECT_EQ(print_schema(s), "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
}

// ---- classification ----

SchemaKind kind_of(const std::string& text) {
  return parse_schema(text).kind();
}

TEST(SchemaKind, ClassifiesTheFourKinds) {
  EXPECT_EQ(kind_of("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"),
            SchemaKind::Functional);
  EXPECT_EQ(kind_of("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"),
            SchemaKind::Inplace);
  EXPECT_EQ(kind_of("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> "
                    "Tensor(a!)"),
            SchemaKind::Out);
  EXPECT_EQ(kind_of("_foo(Tensor(a!) self, Tensor other) -> ()"), SchemaKind::Mutable);
  EXPECT_EQ(kind_of("_cummax_helper(Tensor self, Tensor(a!) values, Tensor(b!) indices, int dim) "
                    "-> ()"),
            SchemaKind::Mutable);
}

TEST(SchemaKind, ViewsAreFunctional) {
  EXPECT_EQ(kind_of("view(Tensor(a) self, SymInt[] size) -> Tensor(a)"), SchemaKind::Functional);
}

TEST(SchemaKind, TreatsAugmentedAssignmentDundersAsInplace) {
  EXPECT_EQ(kind_of("__iand__.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)"),
            SchemaKind::Inplace);
  EXPECT_EQ(kind_of("__ilshift__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"),
            SchemaKind::Inplace);
  EXPECT_EQ(kind_of("__and__.Scalar(Tensor self, Scalar other) -> Tensor"), SchemaKind::Functional);
}

TEST(SchemaKind, NamesItsKinds) {
  EXPECT_EQ(schema_kind_name(SchemaKind::Functional), "functional");
  EXPECT_EQ(schema_kind_name(SchemaKind::Inplace), "inplace");
  EXPECT_EQ(schema_kind_name(SchemaKind::Out), "out");
  EXPECT_EQ(schema_kind_name(SchemaKind::Mutable), "mutable");
}

TEST(OperatorName, KnowsWhenItIsInplace) {
  EXPECT_TRUE((OperatorName{"add_", "Tensor"}.is_inplace()));
  EXPECT_TRUE((OperatorName{"_foo_", ""}.is_inplace()));
  EXPECT_TRUE((OperatorName{"__ior__", "Scalar"}.is_inplace()));
  EXPECT_FALSE((OperatorName{"add", "out"}.is_inplace()));
  EXPECT_FALSE((OperatorName{"__or__", "Scalar"}.is_inplace()));
  EXPECT_FALSE((OperatorName{"__index__", ""}.is_inplace()));
}

TEST(OperatorName, PrintsWithAndWithoutOverload) {
  EXPECT_EQ((OperatorName{"add", "Tensor"}.str()), "add.Tensor");
  EXPECT_EQ((OperatorName{"relu", ""}.str()), "relu");
}

TEST(FunctionSchema, FindsTensorOutAndNamedArguments) {
  FunctionSchema s = parse_schema(
      "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) "
      "max_values) -> (Tensor(a!) values, Tensor(b!) indices)");
  std::vector<const Argument*> tensors = s.tensor_arguments();
  ASSERT_EQ(tensors.size(), 3u);
  EXPECT_EQ(tensors[0]->name, "self");
  std::vector<const Argument*> outs = s.out_arguments();
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[1]->name, "max_values");
  ASSERT_NE(s.find_argument("keepdim"), nullptr);
  EXPECT_EQ(s.find_argument("keepdim")->default_value->text, "False");
  EXPECT_EQ(s.find_argument("nope"), nullptr);
}

// ---- errors ----

// Errors point at `loc` (the schema starts at ops.yaml:3:9) plus the offending character's offset.
const SourceLoc kLoc{"ops.yaml", 3, 9};

GenError parse_error(const std::string& text) {
  try {
    parse_schema(text, kLoc);
  } catch (const GenError& error) {
    return error;
  }
  ADD_FAILURE() << "no error for: " << text;
  return GenError({}, "");
}

TEST(SchemaErrors, UnknownTypeSuggestsTheClosestOne) {
  GenError e = parse_error("add(Tensor self, Tensr other) -> Tensor");
  EXPECT_EQ(e.loc().str(), "ops.yaml:3:26");
  EXPECT_EQ(e.message(), "unknown type 'Tensr'");
  EXPECT_EQ(e.hint(),
            "did you mean 'Tensor'? types are: Tensor, int, SymInt, float, bool, str, Scalar, "
            "ScalarType, Layout, Device, MemoryFormat, Generator, Dimname, Storage, Stream, "
            "QScheme, ConstQuantizerPtr");
  EXPECT_EQ(e.what(), "ops.yaml:3:26: error: unknown type 'Tensr'\n  hint: " + e.hint());
}

TEST(SchemaErrors, UnknownTypeMapsCppSpellings) {
  EXPECT_EQ(parse_error("f(double x) -> ()").hint().substr(0, 22), "did you mean 'float'? ");
  EXPECT_EQ(parse_error("f(int64_t x) -> ()").hint().substr(0, 20), "did you mean 'int'? ");
  GenError e = parse_error("f(Tensor& x) -> ()");
  EXPECT_EQ(e.message(), "unknown type 'Tensor&'");
  EXPECT_EQ(e.hint().substr(0, 23), "did you mean 'Tensor'? ");
}

TEST(SchemaErrors, UnknownTypeCompletesACutOffName) {
  EXPECT_EQ(parse_error("f(Tens x) -> ()").hint().substr(0, 23), "did you mean 'Tensor'? ");
  EXPECT_EQ(parse_error("f(MemoryForm x) -> ()").hint().substr(0, 29),
            "did you mean 'MemoryFormat'? ");
}

TEST(SchemaErrors, UnknownTypeWithoutCloseMatchListsTheTypes) {
  EXPECT_EQ(parse_error("f(Widget x) -> ()").hint().substr(0, 19), "types are: Tensor, ");
}

struct ErrorCase {
  const char* name;
  const char* text;
  const char* at;  // the offending text: the column is where it starts; "" means the end
  const char* message;
  const char* hint_part;
};

class SchemaErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(SchemaErrorTest, PointsAtTheProblemAndSaysWhatToWrite) {
  const ErrorCase& c = GetParam();
  std::string text = c.text;
  size_t offset = *c.at ? text.find(c.at) : text.size();
  ASSERT_NE(offset, std::string::npos) << "bad test case: '" << c.at << "' not in " << text;
  GenError e = parse_error(text);
  EXPECT_EQ(e.loc().col, 9 + static_cast<int>(offset)) << e.what();
  EXPECT_EQ(e.loc().line, 3);
  EXPECT_EQ(e.message(), c.message);
  EXPECT_NE(e.hint().find(c.hint_part), std::string::npos) << e.hint();
}

const ErrorCase kErrorCases[] = {
    {"Empty", "  ", "", "empty schema", "add.Tensor(Tensor self) -> Tensor"},
    {"NoName", "(Tensor self) -> Tensor", "(", "expected an operator name, found '('",
     "identifiers"},
    {"EmptyOverload", "add.(Tensor self) -> Tensor", "(",
     "expected an overload name after 'add.', found '('", "drop the '.'"},
    {"BadNameChar", "add-x(Tensor self) -> Tensor", "-", "unexpected '-' after operator name 'add'",
     "letters, digits and '_'"},
    {"NoArgumentList", "add.Tensor", "", "missing argument list after 'add.Tensor'",
     "add.Tensor(Tensor self)"},
    {"UnclosedArguments", "add(Tensor self", "", "expected ')' to close the argument list",
     "ends with ')'"},
    {"MissingComma", "add(Tensor self Tensor other) -> Tensor", "Tensor other",
     "expected ',' or ')' after argument 'self', found 'Tensor'", "separate arguments"},
    {"TrailingComma", "add(Tensor self, ) -> Tensor", ")", "expected a type, found ')'",
     "types are: Tensor"},
    {"MissingArgumentName", "add(Tensor(a!)[], int x) -> Tensor", ", int",
     "argument of type 'Tensor(a!)[]' has no name", "'Tensor(a!)[] self'"},
    {"DuplicateArgument", "add(Tensor self, Tensor self) -> Tensor", "self)",
     "duplicate argument name 'self'", "rename"},
    {"StarTwice", "add(Tensor self, *, Tensor a, *, Tensor b) -> Tensor", "*, Tensor b",
     "'*' may appear only once", "already keyword-only"},
    {"StarLast", "add(Tensor self, *) -> Tensor", ")",
     "'*' must be followed by keyword-only arguments, found ')'", "remove the '*'"},
    {"StarWithoutComma", "f(Tensor a, * Tensor b) -> ()", "Tensor b",
     "expected ',' after '*', found 'Tensor'", "'*, Scalar alpha=1'"},
    {"AnnotationOnInt", "f(int(a) x) -> ()", "(a)", "alias annotation on non-Tensor type 'int'",
     "only Tensor"},
    {"UnclosedAnnotation", "f(Tensor(a", "", "expected ')' to close the alias annotation",
     "'Tensor(a!)'"},
    {"BadAnnotation", "f(Tensor(a!! x) -> ()", "! x", "unexpected '!' in alias annotation",
     "'Tensor(a -> *)'"},
    {"EmptyAnnotation", "f(Tensor() x) -> ()", ")",
     "expected an alias set name such as 'a', found ')'", "'Tensor(a)'"},
    {"BadListSize", "f(int[x] a) -> ()", "x]", "invalid list size 'x'",
     "'[N]' with N a positive integer"},
    {"ZeroListSize", "f(int[0] a) -> ()", "0]", "invalid list size '0'", "'[N]'"},
    {"UnclosedListType", "f(int[2 a) -> ()", " a)", "expected ']' to close the list type",
     "'T[N]'"},
    {"NestedList", "f(int[][] a) -> ()", "[] a", "unexpected '[' after type 'int[]'",
     "one list suffix"},
    {"DoubleOptional", "f(int?? a) -> ()", "? a", "unexpected '?' after type 'int?'",
     "at most one '?'"},
    {"EmptyDefault", "add(Tensor self, *, Scalar alpha=) -> Tensor", ") ->",
     "default value for 'alpha' is empty", "or remove the '='"},
    {"InvalidDefault", "f(int a=1x) -> ()", "1x", "invalid default value '1x' for 'a'",
     "defaults are None"},
    {"UnterminatedString", "f(str a=\"mean) -> ()", "\"mean",
     "unterminated string in the default value of 'a'", "close the string with \""},
    {"BadListElement", "f(int[] a=[0,]) -> ()", "])",
     "invalid list element ']' in the default value of 'a'", "[0,1]"},
    {"UnclosedListDefault", "f(int[] a=[0,1", "[0", "expected ']' to close the list default of 'a'",
     "'[-2,-1]'"},
    {"NoneOnNonOptional", "f(int[] a=None) -> ()", "None",
     "default None for 'a' needs an optional type", "write 'int[]? a=None'"},
    {"MissingArrow", "add(Tensor self)", "", "missing '->' and return type", "'-> Tensor'"},
    {"WrongArrow", "add(Tensor self) => Tensor", "=",
     "expected '->' after the argument list, found '='", "'-> ()'"},
    {"MissingReturnType", "add(Tensor self) -> ", "", "missing return type after '->'",
     "'-> (Tensor, Tensor)'"},
    {"UnknownReturnType", "f() -> Tensors", "Tensors", "unknown type 'Tensors'",
     "did you mean 'Tensor'?"},
    {"UnclosedReturnTuple", "f() -> (Tensor a, Tensor b", "",
     "expected ')' to close the return tuple", "(Tensor values, Tensor indices)"},
    {"BadReturnTuple", "f() -> (Tensor a Tensor b)", "Tensor b",
     "expected ',' or ')' in the return tuple, found 'Tensor'", "(Tensor, Tensor)"},
    {"TrailingText", "f() -> Tensor out extra", "extra", "unexpected 'extra' after the return type",
     "nothing may follow"},
};

INSTANTIATE_TEST_SUITE_P(Schema, SchemaErrorTest, testing::ValuesIn(kErrorCases),
                         [](const testing::TestParamInfo<ErrorCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(SchemaErrors, HaveNoColumnWhenTheLocationHasNone) {
  try {
    parse_schema("add(Tensor self)");
    FAIL() << "no error";
  } catch (const GenError& e) {
    EXPECT_TRUE(std::string_view(e.what()).starts_with("error: missing '->' and return type\n"))
        << e.what();
  }
}

// ---- printing ----

TEST(SchemaPrinter, PrintsTypes) {
  for (const char* type : {"Tensor", "Tensor?", "int[]", "SymInt[2]", "Tensor?[]", "float[]?",
                           "int[1]?", "ConstQuantizerPtr"}) {
    EXPECT_EQ(print_type(parse_type(type)), type);
  }
}

TEST(SchemaPrinter, PrintsArgumentsWithAnnotationAndDefault) {
  FunctionSchema s = parse_schema("f(Tensor(a!)[] self, int[2] dim=[0,1], *, str r='mean') -> ()");
  EXPECT_EQ(print_argument(s.arguments[0]), "Tensor(a!)[] self");
  EXPECT_EQ(print_argument(s.arguments[1]), "int[2] dim=[0,1]");
  EXPECT_EQ(print_argument(s.arguments[2]), "str r='mean'");
}

TEST(SchemaPrinter, WritesStarBeforeFirstKeywordOnlyArgument) {
  FunctionSchema s;
  s.name = {"f", ""};
  s.arguments = {Argument{"a", {}, {}, {}, false}, Argument{"b", {}, {}, {}, true},
                 Argument{"c", {}, {}, {}, true}};
  s.returns = {Return{}};
  EXPECT_EQ(print_schema(s), "f(Tensor a, *, Tensor b, Tensor c) -> Tensor");
}

TEST(SchemaPrinter, WritesOneReturnBareAndOthersInParentheses) {
  EXPECT_EQ(print_schema(parse_schema("f() -> (Tensor x)")), "f() -> Tensor x");
  EXPECT_EQ(print_schema(parse_schema("f() -> ( )")), "f() -> ()");
  EXPECT_EQ(print_schema(parse_schema("f() -> (Tensor(a -> *),int)")),
            "f() -> (Tensor(a -> *), int)");
}

// The promise of the whole model: every real schema survives parse + print unchanged.
TEST(SchemaPrinter, RoundTripsEveryNativeFunction) {
  if (!std::filesystem::exists(kNativeFunctions)) {
    GTEST_SKIP() << kNativeFunctions << " is absent; install python3-torch (Debian) to run this";
  }
  YAML::Node root = YAML::LoadFile(kNativeFunctions);
  ASSERT_TRUE(root.IsSequence());
  size_t count = 0;
  for (const YAML::Node& entry : root) {
    std::string func = entry["func"].as<std::string>();
    SCOPED_TRACE(func);
    FunctionSchema schema = parse_schema(func, {kNativeFunctions, 0, 0});
    ASSERT_EQ(print_schema(schema), func);
    ASSERT_EQ(parse_schema(print_schema(schema)), schema);
    ++count;
  }
  EXPECT_EQ(count, 2493u);
}

}  // namespace
}  // namespace lazygen::gen
