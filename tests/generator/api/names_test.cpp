// Tests for name derivation (api/names.h, Note [Op identity]): op ids, class names, shape
// function names and op API names for the kinds of schema names that occur in
// native_functions.yaml (overloads, in-place, out=, leading underscores, dunders), and finding
// the functional op behind an in-place or out= entry.
#include "api/names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace lazygen::gen::api {
namespace {

OperatorName name_of(const std::string& schema) {
  return parse_schema(schema).name;
}

struct Names {
  std::string op_id, class_name, shape_fn, api;
};

Names names(const std::string& schema) {
  FunctionSchema s = parse_schema(schema);
  return {op_id(s.name), class_name(s.name), shape_fn_name(s.name), api_name(s)};
}

TEST(Names, OverloadIsJoinedLowercase) {
  Names n = names("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(n.op_id, "add_tensor");
  EXPECT_EQ(n.class_name, "AddTensor");
  EXPECT_EQ(n.shape_fn, "compute_shape_add_tensor");
  EXPECT_EQ(n.api, "add");
}

TEST(Names, InplaceIsSpelledOutSoItDiffersFromTheFunctional) {
  Names n = names("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  EXPECT_EQ(n.op_id, "add_inplace_tensor");
  EXPECT_EQ(n.class_name, "AddInplaceTensor");
  EXPECT_EQ(n.shape_fn, "compute_shape_add_inplace_tensor");
  EXPECT_EQ(n.api, "add_");
}

TEST(Names, OutVariantApiNameEndsInOut) {
  Names n =
      names("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(n.op_id, "add_out");
  EXPECT_EQ(n.class_name, "AddOut");
  EXPECT_EQ(n.api, "add_out");
}

TEST(Names, NoOverload) {
  Names n = names("relu(Tensor self) -> Tensor");
  EXPECT_EQ(n.op_id, "relu");
  EXPECT_EQ(n.class_name, "Relu");
  EXPECT_EQ(n.shape_fn, "compute_shape_relu");
  EXPECT_EQ(n.api, "relu");
}

TEST(Names, LeadingUnderscoreStaysVisibleInTheClassName) {
  Names n = names("_softmax(Tensor self, int dim, bool half_to_float) -> Tensor");
  EXPECT_EQ(n.op_id, "_softmax");
  EXPECT_EQ(n.class_name, "UnderscoreSoftmax");
  EXPECT_EQ(n.shape_fn, "compute_shape__softmax");
  EXPECT_NE(n.class_name, class_name(name_of("softmax.int(Tensor self, int dim) -> Tensor")));
}

TEST(Names, DunderKeepsItsLettersOnly) {
  Names n = names("__and__.Tensor(Tensor self, Tensor other) -> Tensor");
  EXPECT_EQ(n.op_id, "and_tensor");
  EXPECT_EQ(n.class_name, "AndTensor");
  EXPECT_EQ(n.shape_fn, "compute_shape_and_tensor");
}

TEST(Names, InplaceDunderKeepsItsLettersOnly) {
  EXPECT_EQ(op_id(name_of("__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)")),
            "iand_tensor");
  EXPECT_EQ(class_name(name_of("__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)")),
            "IandTensor");
}

TEST(Names, MixedCaseOverloadIsLowercased) {
  Names n = names(
      "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> "
      "Tensor");
  EXPECT_EQ(n.op_id, "sum_dim_intlist");
  EXPECT_EQ(n.class_name, "SumDimIntlist");
  EXPECT_EQ(n.shape_fn, "compute_shape_sum_dim_intlist");
}

TEST(Names, TrailingUnderscoreOfAnOverloadIsKept) {
  // native_functions.yaml has both range.out and range.out_.
  OperatorName plain = name_of(
      "range.out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out) -> Tensor(a!)");
  OperatorName under =
      name_of("range.out_(Scalar start, Scalar end, *, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(op_id(under), "range_out_");
  EXPECT_EQ(class_name(under), "RangeOut_");
  EXPECT_NE(class_name(plain), class_name(under));
}

TEST(Names, FunctorNameIsTheClassName) {
  OperatorName n = name_of("mul.Scalar(Tensor self, Scalar other) -> Tensor");
  EXPECT_EQ(functor_name(n), "MulScalar");
}

// find_functional over a small file.
std::vector<OpEntry> entries(const std::vector<std::string>& schemas) {
  std::vector<OpEntry> out;
  for (const std::string& s : schemas) {
    OpEntry op;
    op.func = s;
    op.schema = parse_schema(s);
    out.push_back(op);
  }
  return out;
}

TEST(Names, FindFunctionalOfInplaceMatchesTheOverload) {
  std::vector<OpEntry> ops =
      entries({"add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
               "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
               "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"});
  EXPECT_EQ(find_functional(ops[2], ops), &ops[1]);
}

TEST(Names, FindFunctionalOfOutMatchesTheInputs) {
  std::vector<OpEntry> ops = entries(
      {"add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
       "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
       "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"});
  EXPECT_EQ(find_functional(ops[2], ops), &ops[1]);
}

TEST(Names, FindFunctionalOfInplaceDunder) {
  std::vector<OpEntry> ops =
      entries({"__and__.Tensor(Tensor self, Tensor other) -> Tensor",
               "__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"});
  EXPECT_EQ(find_functional(ops[1], ops), &ops[0]);
}

TEST(Names, FindFunctionalIsNullWhenTheFileLacksIt) {
  std::vector<OpEntry> ops = entries(
      {"mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", "relu(Tensor self) -> Tensor"});
  EXPECT_EQ(find_functional(ops[0], ops), nullptr);
  EXPECT_EQ(find_functional(ops[1], ops), nullptr);  // a functional op has none
}

}  // namespace
}  // namespace lazygen::gen::api
