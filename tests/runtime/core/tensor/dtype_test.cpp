// Tests for lazygen/dtype.h: sizes, names and PyTorch's promotion table.
#include "lazygen/dtype.h"

#include <gtest/gtest.h>

#include <sstream>

namespace lazygen {
namespace {

constexpr DType kAll[] = {DType::Bool, DType::Int32, DType::Int64, DType::Float32, DType::Float64};

TEST(DType, ItemsizesAndNamesMatchPyTorch) {
  EXPECT_EQ(itemsize(DType::Bool), 1u);
  EXPECT_EQ(itemsize(DType::Int32), 4u);
  EXPECT_EQ(itemsize(DType::Int64), 8u);
  EXPECT_EQ(itemsize(DType::Float32), 4u);
  EXPECT_EQ(itemsize(DType::Float64), 8u);
  EXPECT_EQ(dtype_name(DType::Float32), "float32");
  EXPECT_EQ(dtype_name(DType::Bool), "bool");
  std::ostringstream os;
  os << DType::Int64;
  EXPECT_EQ(os.str(), "int64");
}

TEST(DType, CategoriesSeparateBoolIntegralAndFloating) {
  EXPECT_FALSE(is_integral(DType::Bool));
  EXPECT_FALSE(is_floating(DType::Bool));
  EXPECT_TRUE(is_integral(DType::Int32));
  EXPECT_TRUE(is_floating(DType::Float64));
  EXPECT_EQ(to_floating(DType::Int64), DType::Float32);
  EXPECT_EQ(to_floating(DType::Float64), DType::Float64);
}

TEST(DType, PromotionTableMatchesTorchPromoteTypes) {
  // Rows and columns in kAll order; from torch.promote_types.
  constexpr DType B = DType::Bool, I = DType::Int32, L = DType::Int64, F = DType::Float32,
                  D = DType::Float64;
  const DType expected[5][5] = {
      {B, I, L, F, D}, {I, I, L, F, D}, {L, L, L, F, D}, {F, F, F, F, D}, {D, D, D, D, D}};
  for (int a = 0; a < 5; ++a) {
    for (int b = 0; b < 5; ++b) {
      EXPECT_EQ(promote_types(kAll[a], kAll[b]), expected[a][b]) << a << " " << b;
    }
  }
}

TEST(DType, DispatchPassesTheMatchingCppType) {
  for (DType t : kAll) {
    EXPECT_EQ(dispatch_dtype(t, [](auto tag) { return dtype_of<decltype(tag)>(); }), t);
  }
}

}  // namespace
}  // namespace lazygen
