// Tests for the view kernels (ops/cpu/views.cpp): real aliasing views and their errors; reshape
// and flatten copying where no view fits; slice_backward.
#include <gtest/gtest.h>

#include "lazygen/factory.h"
#include "ops/cpu/custom_kernels.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen::cpu {
namespace {

using testing::values;
using V = std::vector<int64_t>;

Tensor iota(const V& sizes) {
  return view(arange(0, checked_numel("iota", sizes), 1), sizes);
}

TEST(Views, ViewSharesStorageAndInfersMinusOne) {
  Tensor x = arange(0, 6, 1);
  Tensor v = view(x, {2, -1});
  EXPECT_EQ(v.sizes(), (V{2, 3}));
  EXPECT_EQ(v.impl()->storage(), x.impl()->storage());
  v.data_ptr<int64_t>()[4] = 40;  // element [1, 1]
  EXPECT_EQ(values<int64_t>(x)[4], 40);
}

TEST(Views, ViewErrorsNameTheShapes) {
  try {
    view(arange(0, 6, 1), {4, -1});
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "view: shape '[4, -1]' is invalid for input of size 6 (input shape [6])");
  }
  EXPECT_THROW(view(arange(0, 6, 1), {-1, -1}), ShapeError);
  EXPECT_THROW(view(transpose_int(iota({2, 3}), 0, 1), {6}), ShapeError);
}

TEST(Views, ViewOfNonContiguousWorksWhenStridesAllow) {
  Tensor x = iota({4, 6});
  Tensor cols = slice_tensor(x, 1, 0, 4, 1);  // [4, 4] with row stride 6
  Tensor v = view(cols, {2, 2, 4});
  EXPECT_EQ(v.strides(), (V{12, 6, 1}));
  EXPECT_EQ(values<int64_t>(v), values<int64_t>(cols));
  EXPECT_EQ(view(scalar_tensor(3), {1, 1}).sizes(), (V{1, 1}));
  EXPECT_EQ(view(empty({0, 3}), {3, 0}).sizes(), (V{3, 0}));
}

TEST(Views, PermuteAndTransposeReorderStrides) {
  Tensor x = iota({2, 3, 4});
  Tensor p = permute(x, {2, 0, 1});
  EXPECT_EQ(p.sizes(), (V{4, 2, 3}));
  EXPECT_EQ(p.strides(), (V{1, 12, 4}));
  EXPECT_EQ(values<int64_t>(p)[1], 4);   // p[0, 0, 1] == x[0, 1, 0]
  EXPECT_EQ(values<int64_t>(p)[3], 12);  // p[0, 1, 0] == x[1, 0, 0]
  EXPECT_EQ(values<int64_t>(transpose_int(x, -1, 0)).size(), 24u);
  EXPECT_EQ(transpose_int(x, 0, 2).strides(), (V{1, 4, 12}));
  EXPECT_THROW(permute(x, {0, 0, 1}), ShapeError);
  EXPECT_THROW(permute(x, {0, 1}), ShapeError);
}

TEST(Views, TTransposesMatricesAndKeepsVectors) {
  Tensor m = iota({2, 3});
  EXPECT_EQ(values<int64_t>(t(m)), (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(t(arange(0, 3, 1)).sizes(), (V{3}));
  try {
    t(iota({2, 2, 2}));
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(), "t: t() expects a tensor with <= 2 dimensions, but self is 3D");
  }
}

TEST(Views, ExpandRepeatsWithStrideZero) {
  Tensor x = tensor<int64_t>({1, 2, 3}, IntList{3, 1});
  Tensor e = expand(x, {2, 3, 4}, false);
  EXPECT_EQ(e.strides(), (V{0, 1, 0}));
  EXPECT_EQ(values<int64_t>(e)[5], 2);
  EXPECT_EQ(expand(x, {-1, 2}, false).sizes(), (V{3, 2}));
  try {
    expand(x, {4, 2}, false);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "expand: the expanded size of the tensor (4) must match the existing size (3) at "
                 "non-singleton dimension 0.  Target sizes: [4, 2].  Tensor sizes: [3, 1]");
  }
  EXPECT_THROW(expand(x, {2}, false), ShapeError);
  EXPECT_THROW(expand(x, {-1, 3, 1}, false), ShapeError);
}

TEST(Views, SliceClampsAndSteps) {
  Tensor x = arange(0, 10, 1);
  EXPECT_EQ(values<int64_t>(slice_tensor(x, 0, 2, 8, 3)), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(values<int64_t>(slice_tensor(x, 0, -3, std::nullopt, 1)),
            (std::vector<int64_t>{7, 8, 9}));
  EXPECT_EQ(slice_tensor(x, 0, 20, 30, 1).numel(), 0);
  EXPECT_EQ(slice_tensor(x, 0, 5, 2, 1).numel(), 0);
  EXPECT_EQ(values<int64_t>(slice_tensor(x, 0, std::nullopt, std::nullopt, 4)),
            (std::vector<int64_t>{0, 4, 8}));
  EXPECT_THROW(slice_tensor(x, 0, 0, 5, 0), ShapeError);
  EXPECT_THROW(slice_tensor(scalar_tensor(1), 0, 0, 1, 1), ShapeError);
}

TEST(Views, SelectDropsTheDim) {
  Tensor x = iota({3, 4});
  EXPECT_EQ(values<int64_t>(select_int(x, 0, -1)), (std::vector<int64_t>{8, 9, 10, 11}));
  EXPECT_EQ(values<int64_t>(select_int(x, 1, 2)), (std::vector<int64_t>{2, 6, 10}));
  try {
    select_int(x, 0, 3);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "select.int: index 3 out of range for tensor of size [3, 4] at dimension 0");
  }
}

TEST(Views, SqueezeAndUnsqueeze) {
  Tensor x = iota({2, 1, 3});
  EXPECT_EQ(squeeze_dim(x, 1).sizes(), (V{2, 3}));
  EXPECT_EQ(squeeze_dim(x, 0).sizes(), (V{2, 1, 3}));
  EXPECT_EQ(unsqueeze(x, -1).sizes(), (V{2, 1, 3, 1}));
  EXPECT_EQ(unsqueeze(x, 0).strides(), (V{6, 3, 3, 1}));  // as PyTorch
  EXPECT_EQ(unsqueeze(scalar_tensor(1), 0).sizes(), (V{1}));
  EXPECT_THROW(unsqueeze(x, 5), ShapeError);
}

TEST(Views, WritesThroughChainedViewsReachTheBase) {
  Tensor base = zeros({4, 5}, DType::Int64);
  Tensor corner = select_int(slice_tensor(transpose_int(base, 0, 1), 0, 1, 3, 1), 1, 2);
  // corner[i] == base[2, 1 + i]
  corner.data_ptr<int64_t>()[0] = 7;
  corner.data_ptr<int64_t>()[corner.stride(0)] = 8;
  auto v = values<int64_t>(base);
  EXPECT_EQ(v[2 * 5 + 1], 7);
  EXPECT_EQ(v[2 * 5 + 2], 8);
  EXPECT_EQ(v[0], 0);
}

TEST(Views, ReshapeAliasesWhenStridesAllow) {
  Tensor x = iota({2, 3, 4});
  Tensor r = reshape(x, {6, -1});
  EXPECT_EQ(r.sizes(), (V{6, 4}));
  EXPECT_EQ(r.impl()->storage(), x.impl()->storage());
  r.data_ptr<int64_t>()[5] = 50;  // element [1, 1]
  EXPECT_EQ(values<int64_t>(x)[5], 50);
  // A transposed pair of dims whose merge keeps one stride still views: [4, 2, 3] -> [4, 6].
  Tensor p = permute(x, {2, 0, 1});
  Tensor merged = reshape(p, {4, 6});
  EXPECT_EQ(merged.impl()->storage(), x.impl()->storage());
  EXPECT_EQ(merged.strides(), (V{1, 4}));
  EXPECT_EQ(values<int64_t>(merged), values<int64_t>(p));
}

TEST(Views, ReshapeCopiesWhenNoViewFits) {
  Tensor x = iota({2, 3});
  Tensor tr = transpose_int(x, 0, 1);  // [3, 2], strides [1, 3]
  Tensor r = reshape(tr, {6});
  EXPECT_NE(r.impl()->storage(), x.impl()->storage());
  EXPECT_TRUE(r.is_contiguous());
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
  // An expanded (stride-0) tensor flattens into a copy holding the repeats.
  Tensor e = expand(tensor<int64_t>({7, 8}, IntList{2, 1}), {2, 3}, false);
  EXPECT_EQ(values<int64_t>(reshape(e, {-1})), (std::vector<int64_t>{7, 7, 7, 8, 8, 8}));
}

TEST(Views, ReshapeHandlesEmptyAndZeroDim) {
  EXPECT_EQ(reshape(scalar_tensor(5), {1, 1, 1}).sizes(), (V{1, 1, 1}));
  EXPECT_EQ(reshape(tensor<int64_t>({5}), {}).sizes(), (V{}));
  EXPECT_EQ(reshape(empty({0, 4}), {2, 0, 2}).sizes(), (V{2, 0, 2}));
  EXPECT_EQ(reshape(empty({0, 4}), {-1, 4}).sizes(), (V{0, 4}));
  EXPECT_EQ(reshape(empty({3, 0}), {0, 5}).sizes(), (V{0, 5}));
  EXPECT_EQ(reshape(transpose_int(empty({0, 3}), 0, 1), {-1}).sizes(), (V{0}));
}

TEST(Views, ReshapeErrorsNameTheOpAndShapes) {
  try {
    reshape(iota({2, 3}), {4, -1});
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "reshape: shape '[4, -1]' is invalid for input of size 6 (input shape [2, 3])");
  }
  EXPECT_THROW(reshape(iota({2, 3}), {-1, -1}), ShapeError);
  EXPECT_THROW(reshape(iota({2, 3}), {-2, 3}), ShapeError);
  EXPECT_THROW(reshape(empty({0, 3}), {-1, 0}), ShapeError);  // -1 is ambiguous with a 0
}

TEST(Views, FlattenMergesDimsLikePyTorch) {
  Tensor x = iota({2, 3, 4, 5});
  EXPECT_EQ(flatten_using_ints(x, 0, -1).sizes(), (V{120}));
  EXPECT_EQ(flatten_using_ints(x, 1, 2).sizes(), (V{2, 12, 5}));
  EXPECT_EQ(flatten_using_ints(x, -2, -1).sizes(), (V{2, 3, 20}));
  EXPECT_EQ(flatten_using_ints(x, 2, 2).sizes(), (V{2, 3, 4, 5}));
  EXPECT_EQ(flatten_using_ints(scalar_tensor(3), 0, -1).sizes(), (V{1}));
  EXPECT_EQ(flatten_using_ints(empty({2, 0, 3}), 1, 2).sizes(), (V{2, 0}));
  // A view of the base: writes reach it.
  Tensor f = flatten_using_ints(x, 1, -1);
  EXPECT_EQ(f.impl()->storage(), x.impl()->storage());
  f.data_ptr<int64_t>()[61] = -1;  // element [1, 1]
  EXPECT_EQ(values<int64_t>(x)[61], -1);
  // A non-contiguous input that no view can merge is copied.
  Tensor tr = transpose_int(iota({2, 3}), 0, 1);
  EXPECT_EQ(values<int64_t>(flatten_using_ints(tr, 0, 1)),
            (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
  try {
    flatten_using_ints(x, 2, 1);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "flatten.using_ints: start_dim 2 cannot come after end_dim 1 (self of shape "
                 "[2, 3, 4, 5])");
  }
  EXPECT_THROW(flatten_using_ints(x, 0, 4), ShapeError);
}

TEST(Views, NarrowIsAViewAndWrapsNegativeStart) {
  Tensor x = iota({4, 5});
  Tensor n = narrow(x, 1, 1, 3);
  EXPECT_EQ(n.sizes(), (V{4, 3}));
  EXPECT_EQ(n.strides(), (V{5, 1}));
  EXPECT_EQ(values<int64_t>(n)[0], 1);
  EXPECT_EQ(values<int64_t>(narrow(x, -1, -2, 2)),
            (std::vector<int64_t>{3, 4, 8, 9, 13, 14, 18, 19}));
  EXPECT_EQ(values<int64_t>(narrow(x, 0, -4, 1)), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(narrow(x, 0, 4, 0).sizes(), (V{0, 5}));
  // Of a transposed view: offsets and strides follow the base.
  Tensor nt = narrow(transpose_int(x, 0, 1), 0, 2, 2);  // rows 2..3 of x^T: x[:, 2:4]^T
  EXPECT_EQ(values<int64_t>(nt), (std::vector<int64_t>{2, 7, 12, 17, 3, 8, 13, 18}));
  nt.data_ptr<int64_t>()[0] = 100;
  EXPECT_EQ(values<int64_t>(x)[2], 100);
}

TEST(Views, NarrowErrorsNameTheOpAndShape) {
  Tensor x = iota({4, 5});
  try {
    narrow(x, 1, 3, 3);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "narrow: start (3) + length (3) exceeds dimension size (5) (self of shape [4, 5], "
                 "dim 1)");
  }
  try {
    narrow(x, 0, -5, 1);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "narrow: start out of range (expected to be in range of [-4, 4], but got -5) "
                 "(self of shape [4, 5], dim 0)");
  }
  EXPECT_THROW(narrow(x, 0, 0, -1), ShapeError);
  EXPECT_THROW(narrow(x, 2, 0, 1), ShapeError);
  EXPECT_THROW(narrow(scalar_tensor(1), 0, 0, 1), ShapeError);
}

TEST(Views, SliceBackwardPlacesGradInZeros) {
  Tensor g = tensor<float>({1, 2, 3, 4}, IntList{2, 2});
  Tensor out = slice_backward(g, {2, 5}, 1, 1, 5, 2);  // columns 1 and 3
  EXPECT_EQ(values<float>(out), (std::vector<float>{0, 1, 0, 2, 0, 0, 3, 0, 4, 0}));
  EXPECT_EQ(slice_backward(empty({0, 2}), {0, 2}, 0, 0, 0, 1).sizes(), (V{0, 2}));
  try {
    slice_backward(g, {2, 5}, 1, 0, 5, 1);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "slice_backward: grad_output of shape [2, 2] does not match the slice [0:5:1] "
                 "along dim 1 of input_sizes [2, 5], which has shape [2, 5]");
  }
}

}  // namespace
}  // namespace lazygen::cpu
