// Tests for Tensor::str(): every expected string was printed by PyTorch 1.13 for the same tensor.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "core/tensor/tensor_impl.h"
#include "lazygen/factory.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen {
namespace {

Tensor reshaped(const Tensor& t, const std::vector<int64_t>& sizes) {
  return make_view(t, sizes, contiguous_strides(sizes), 0);
}

TEST(Printing, FloatMatrixUsesIntModeAndRowIndent) {
  EXPECT_EQ(tensor({1.f, 2.f, 3.f, 4.f}, IntList{2, 2}).str(),
            "tensor([[1., 2.],\n        [3., 4.]])");
}

TEST(Printing, FractionsUseFourDecimalsPaddedToOneWidth) {
  EXPECT_EQ(tensor({1.5f, -2.25f, 3.0f}).str(), "tensor([ 1.5000, -2.2500,  3.0000])");
}

TEST(Printing, IntegersAndBools) {
  EXPECT_EQ(tensor<int64_t>({1, 2}).str(), "tensor([1, 2])");
  EXPECT_EQ(tensor<int32_t>({1, -20}).str(), "tensor([  1, -20], dtype=torch.int32)");
  EXPECT_EQ(tensor({true, false}).str(), "tensor([ True, False])");
  EXPECT_EQ(tensor<int64_t>({-9223372036854775807, 9223372036854775807}).str(),
            "tensor([-9223372036854775807,  9223372036854775807])");
}

TEST(Printing, NonDefaultDTypeAddsSuffix) {
  EXPECT_EQ(tensor<double>({1, 2, 3, 4}, IntList{2, 2}).str(),
            "tensor([[1., 2.],\n        [3., 4.]], dtype=torch.float64)");
}

TEST(Printing, ZeroDimTensors) {
  EXPECT_EQ(scalar_tensor(3.5).str(), "tensor(3.5000)");
  EXPECT_EQ(scalar_tensor(7, DType::Int64).str(), "tensor(7)");
  EXPECT_EQ(scalar_tensor(true, DType::Bool).str(), "tensor(True)");
}

TEST(Printing, EmptyTensorsShowSizeAndDType) {
  EXPECT_EQ(zeros({0}).str(), "tensor([])");
  EXPECT_EQ(zeros({0, 3}).str(), "tensor([], size=(0, 3))");
  EXPECT_EQ(zeros({0}, DType::Int64).str(), "tensor([], dtype=torch.int64)");
}

TEST(Printing, ScientificNotationForWideRanges) {
  EXPECT_EQ(tensor({1e-5f, 1.0f}).str(), "tensor([1.0000e-05, 1.0000e+00])");
  EXPECT_EQ(tensor({1e9f, 1.0f}).str(), "tensor([1.0000e+09, 1.0000e+00])");
  EXPECT_EQ(tensor({1.f, 5000.f}).str(), "tensor([1.0000e+00, 5.0000e+03])");
}

TEST(Printing, NonFiniteAndSignedZero) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(tensor({nan, inf, -inf, 1.5f}).str(), "tensor([   nan,    inf,   -inf, 1.5000])");
  EXPECT_EQ(tensor({nan, 1.f}).str(), "tensor([nan, 1.])");
  EXPECT_EQ(zeros({3}).str(), "tensor([0., 0., 0.])");
  EXPECT_EQ(tensor({-0.f, 1.f}).str(), "tensor([-0., 1.])");
}

TEST(Printing, SummarizesAboveAThousandElements) {
  EXPECT_EQ(arange(2000).str(), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
  EXPECT_EQ(reshaped(arange(2000), {40, 50}).str(),
            "tensor([[   0,    1,    2,  ...,   47,   48,   49],\n"
            "        [  50,   51,   52,  ...,   97,   98,   99],\n"
            "        [ 100,  101,  102,  ...,  147,  148,  149],\n"
            "        ...,\n"
            "        [1850, 1851, 1852,  ..., 1897, 1898, 1899],\n"
            "        [1900, 1901, 1902,  ..., 1947, 1948, 1949],\n"
            "        [1950, 1951, 1952,  ..., 1997, 1998, 1999]])");
}

TEST(Printing, SummarizedRowsWrapAtTheLineWidth) {
  EXPECT_EQ(reshaped(arange(0, 2000, 1, DType::Float32), {2, 1000}).str(),
            "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 9.9700e+02, 9.9800e+02,\n"
            "         9.9900e+02],\n"
            "        [1.0000e+03, 1.0010e+03, 1.0020e+03,  ..., 1.9970e+03, 1.9980e+03,\n"
            "         1.9990e+03]])");
}

TEST(Printing, ThreeDimsSeparateBlocksWithBlankLines) {
  EXPECT_EQ(reshaped(arange(8), {2, 2, 2}).str(),
            "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])");
}

TEST(Printing, LongVectorsWrapAtEightyColumns) {
  std::vector<float> v;
  for (int i = 0; i < 30; ++i) v.push_back(static_cast<float>(i) / 7.0f);
  EXPECT_EQ(tensor(v).str(),
            "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000, 1.1429,\n"
            "        1.2857, 1.4286, 1.5714, 1.7143, 1.8571, 2.0000, 2.1429, 2.2857, 2.4286,\n"
            "        2.5714, 2.7143, 2.8571, 3.0000, 3.1429, 3.2857, 3.4286, 3.5714, 3.7143,\n"
            "        3.8571, 4.0000, 4.1429])");
}

TEST(Printing, SuffixPastTheLineWidthStartsANewLine) {
  EXPECT_EQ(arange(0, 40, 1, DType::Float64).str(),
            "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
            "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n"
            "        28., 29., 30., 31., 32., 33., 34., 35., 36., 37., 38., 39.],\n"
            "       dtype=torch.float64)");
}

TEST(Printing, SummarizedThreeDimsElideWholeBlocks) {
  const std::string s = reshaped(arange(1200), {12, 10, 10}).str();
  EXPECT_EQ(s.substr(0, 57), "tensor([[[   0,    1,    2,  ...,    7,    8,    9],\n    ");
  EXPECT_NE(s.find("  [ 290,  291,  292,  ...,  297,  298,  299]],\n\n        ...,\n\n"
                   "        [[ 900,  901,"),
            std::string::npos);
}

TEST(Printing, NonCpuDevicesPrintTheirDevice) {
  testing::FakeDevice fake(DeviceType::Lazy);
  EXPECT_EQ(tensor({1.f, 2.f}, std::nullopt, std::nullopt, kLazy).str(),
            "tensor([1., 2.], device='lazy:0')");
  EXPECT_EQ(tensor<double>({1}, std::nullopt, std::nullopt, kLazy).str(),
            "tensor([1.], device='lazy:0', dtype=torch.float64)");
}

TEST(Printing, StreamOperatorPrintsStr) {
  std::ostringstream os;
  os << tensor<int64_t>({3});
  EXPECT_EQ(os.str(), "tensor([3])");
}

TEST(Printing, StridedViewsPrintLogicalOrder) {
  Tensor t = reshaped(arange(6), {2, 3});
  Tensor transposed = make_view(t, {3, 2}, {1, 3}, 0);
  EXPECT_EQ(transposed.str(), "tensor([[0, 3],\n        [1, 4],\n        [2, 5]])");
}

}  // namespace
}  // namespace lazygen
