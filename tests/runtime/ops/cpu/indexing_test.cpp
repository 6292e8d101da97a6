// Tests for the indexing kernels (ops/cpu/indexing.cpp), masked_fill (generated pointwise kernel,
// hand-written shape function) and clamp (ops/cpu/clamp.cpp): hand-computed results, strided
// inputs, 0-size and 0-dim tensors, negative dims, and errors naming the op and the shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string_view>

#include "lazygen/factory.h"
#include "lazygen/generated/cpu/clamp.h"
#include "lazygen/generated/cpu/gather.h"
#include "lazygen/generated/cpu/index_add.h"
#include "lazygen/generated/cpu/index_select.h"
#include "lazygen/generated/cpu/masked_fill_scalar.h"
#include "lazygen/generated/cpu/scatter_add.h"
#include "lazygen/generated/cpu/scatter_reduce_two.h"
#include "lazygen/generated/cpu/t.h"
#include "lazygen/generated/cpu/view.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen::cpu {
namespace {

using testing::message_of;
using testing::values;
using V = std::vector<int64_t>;
using I64 = std::vector<int64_t>;

Tensor iota(const V& sizes) {
  return view(arange(0, checked_numel("iota", sizes), 1), sizes);
}
Tensor idx(const std::vector<int64_t>& v, std::optional<IntList> sizes = std::nullopt) {
  return tensor<int64_t>(v, sizes);
}

TEST(IndexSelect, PicksRowsAndColumnsInIndexOrder) {
  Tensor x = iota({3, 4});
  EXPECT_EQ(values<int64_t>(index_select(x, 0, idx({2, 0, 2}))),
            (I64{8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11}));
  EXPECT_EQ(values<int64_t>(index_select(x, -1, idx({3, 0}))), (I64{3, 0, 7, 4, 11, 8}));
  // A transposed input and an int32 index.
  Tensor r = index_select(t(x), 1, tensor<int32_t>({1}));
  EXPECT_EQ(r.sizes(), (V{4, 1}));
  EXPECT_EQ(values<int64_t>(r), (I64{4, 5, 6, 7}));
  // A 0-dim index selects one entry and keeps the dim.
  EXPECT_EQ(index_select(x, 0, scalar_tensor(1, DType::Int64)).sizes(), (V{1, 4}));
}

TEST(IndexSelect, HandlesEmptyAndZeroDim) {
  EXPECT_EQ(index_select(iota({3, 4}), 1, idx({})).sizes(), (V{3, 0}));
  EXPECT_EQ(index_select(empty({0, 4}), 1, idx({1, 1})).sizes(), (V{0, 2}));
  Tensor s = index_select(scalar_tensor(5.0), 0, idx({0}));
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.item<float>(), 5.0f);
}

TEST(IndexSelect, ErrorsNameTheOpAndShapes) {
  Tensor x = iota({3, 4});
  EXPECT_EQ(message_of<std::out_of_range>([&] {
              index_select(x, 0, idx({1, 3}));
            }),
            "index_select: index 3 is out of bounds for dimension 0 with size 3 (self of shape "
            "[3, 4], index of shape [2])");
  EXPECT_THROW(index_select(x, 1, idx({-1})), std::out_of_range);
  EXPECT_EQ(message_of<ShapeError>([&] { index_select(x, 0, tensor<float>({0})); }),
            "index_select: expected dtype int32 or int64 for index, got float32");
  EXPECT_EQ(message_of<ShapeError>([&] {
              index_select(x, 0, idx({0, 1}, IntList{1, 2}));
            }),
            "index_select: index is supposed to be a vector (self of shape [3, 4], index of "
            "shape [1, 2])");
  EXPECT_THROW(index_select(x, 2, idx({0})), ShapeError);
  EXPECT_THROW(index_select(scalar_tensor(1), 0, idx({0, 0})), ShapeError);
}

TEST(IndexAdd, AccumulatesScaledRowsAtTheIndices) {
  Tensor self = zeros({3, 2});
  Tensor source = tensor<float>({1, 2, 3, 4, 5, 6}, IntList{3, 2});
  EXPECT_EQ(values<float>(index_add(self, 0, idx({0, 2, 0}), source, 2)),
            (std::vector<float>{12, 16, 0, 0, 6, 8}));
  EXPECT_EQ(values<float>(self), (std::vector<float>(6, 0.0f)));  // out of place
  // Along the last dim, a transposed source and an int32 index.
  Tensor base = ones({2, 3}, DType::Int64);
  Tensor src = t(tensor<int64_t>({10, 20, 30, 40}, IntList{2, 2}));  // [[10, 30], [20, 40]]
  EXPECT_EQ(values<int64_t>(index_add(base, -1, tensor<int32_t>({2, 0}), src, 1)),
            (I64{31, 1, 11, 41, 1, 21}));
  EXPECT_EQ(index_add(zeros({0, 3}), 1, idx({}), zeros({0, 0}), 1).sizes(), (V{0, 3}));
  EXPECT_EQ(index_add(scalar_tensor(1.0), 0, idx({0}), scalar_tensor(2.0), 1).item<float>(), 3.0f);
}

TEST(IndexAdd, ErrorsNameTheOpAndShapes) {
  Tensor self = zeros({3, 2});
  EXPECT_EQ(message_of<ShapeError>([&] {
              index_add(self, 0, idx({0, 1}), zeros({3, 2}), 1);
            }),
            "index_add: number of indices (2) should be equal to source.size(dim) (3) (self of "
            "shape [3, 2], index of shape [2]) and source of shape [3, 2]");
  EXPECT_THROW(index_add(self, 0, idx({0}), zeros({1, 3}), 1), ShapeError);
  EXPECT_THROW(index_add(self, 0, idx({0}), zeros({1, 2}, DType::Float64), 1), ShapeError);
  EXPECT_THROW(index_add(zeros({3}, DType::Int64), 0, idx({0}), zeros({1}, DType::Int64), 0.5),
               ShapeError);
  EXPECT_EQ(message_of<std::out_of_range>([&] {
              index_add(self, 1, idx({2}), zeros({3, 1}), 1);
            }),
            "index_add: index 2 is out of bounds for dimension 1 with size 2 (self of shape "
            "[3, 2], index of shape [1])");
}

TEST(Gather, ReadsAlongDimAtTheIndices) {
  Tensor x = tensor<float>({1, 2, 3, 4}, IntList{2, 2});
  EXPECT_EQ(values<float>(gather(x, 1, idx({0, 0, 1, 0}, IntList{2, 2}), false)),
            (std::vector<float>{1, 1, 4, 3}));
  // index smaller than self apart from dim, negative dim.
  Tensor y = iota({3, 4});
  Tensor g = gather(y, -2, idx({2, 1, 0}, IntList{1, 3}), false);
  EXPECT_EQ(g.sizes(), (V{1, 3}));
  EXPECT_EQ(values<int64_t>(g), (I64{8, 5, 2}));
  // index larger than self along dim; a transposed self.
  EXPECT_EQ(values<int64_t>(gather(t(y), 1, idx({0, 2, 2, 1, 0, 0}, IntList{2, 3}), false)),
            (I64{0, 8, 8, 5, 1, 1}));
  // A non-contiguous index.
  Tensor ti = t(idx({0, 1, 2, 3, 0, 1}, IntList{2, 3}));  // [[0, 3], [1, 0], [2, 1]]
  EXPECT_EQ(values<int64_t>(gather(y, 1, ti, false)), (I64{0, 3, 5, 4, 10, 9}));
  EXPECT_EQ(gather(y, 0, idx({}, IntList{0, 4}), false).sizes(), (V{0, 4}));
  EXPECT_EQ(gather(scalar_tensor(7.0), 0, scalar_tensor(0, DType::Int64), false).item<float>(),
            7.0f);
}

TEST(Gather, ErrorsNameTheOpAndShapes) {
  Tensor y = iota({3, 4});
  EXPECT_EQ(message_of<std::out_of_range>([&] {
              gather(y, 1, idx({0, 4}, IntList{1, 2}), false);
            }),
            "gather: index 4 is out of bounds for dimension 1 with size 4 (self of shape [3, 4], "
            "index of shape [1, 2])");
  EXPECT_EQ(message_of<ShapeError>([&] {
              gather(y, 1, idx({0, 1}), false);
            }),
            "gather: index tensor must have the same number of dimensions as self (self of shape "
            "[3, 4], index of shape [2])");
  EXPECT_THROW(gather(y, 1, idx({0, 0, 0, 0}, IntList{4, 1}), false), ShapeError);
  EXPECT_THROW(gather(y, 1, tensor<int32_t>({0}, IntList{1, 1}), false), ShapeError);
}

TEST(ScatterAdd, AccumulatesDuplicatesAtTheIndices) {
  Tensor src = ones({2, 5});
  Tensor index = idx({0, 1, 2, 0, 0}, IntList{1, 5});
  EXPECT_EQ(values<float>(scatter_add(zeros({3, 5}), 0, index, src)),
            (std::vector<float>{1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0}));
  Tensor both = idx({0, 1, 2, 0, 0, 0, 1, 2, 2, 2}, IntList{2, 5});
  EXPECT_EQ(values<float>(scatter_add(zeros({3, 5}), 0, both, src)),
            (std::vector<float>{2, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 2, 1, 1}));
  // Along dim 1 with a transposed src and self.
  Tensor s = t(tensor<int64_t>({1, 2, 3, 4, 5, 6}, IntList{3, 2}));  // [[1, 3, 5], [2, 4, 6]]
  Tensor base = t(zeros({2, 2}, DType::Int64));
  EXPECT_EQ(values<int64_t>(scatter_add(base, -1, idx({1, 1, 0, 0, 1, 0}, IntList{2, 3}), s)),
            (I64{5, 4, 8, 4}));
  EXPECT_EQ(scatter_add(zeros({2}), 0, idx({}), zeros({3})).sizes(), (V{2}));
}

TEST(ScatterAdd, ErrorsNameTheOpAndShapes) {
  Tensor self = zeros({3, 5});
  EXPECT_EQ(message_of<std::out_of_range>([&] {
              scatter_add(self, 0, idx({3}, IntList{1, 1}), ones({1, 1}));
            }),
            "scatter_add: index 3 is out of bounds for dimension 0 with size 3 (self of shape "
            "[3, 5], index of shape [1, 1])");
  EXPECT_EQ(message_of<ShapeError>([&] {
              scatter_add(self, 0, idx({0, 0}, IntList{1, 2}), ones({1, 1}));
            }),
            "scatter_add: size does not match at dimension 1: index may not be larger than src, "
            "nor than self apart from dimension 0 (self of shape [3, 5], index of shape [1, 2]) "
            "and src of shape [1, 1]");
  EXPECT_THROW(scatter_add(self, 0, idx({0}, IntList{1, 1}), ones({1, 1}, DType::Float64)),
               ShapeError);
  EXPECT_THROW(scatter_add(self, 0, idx({0}), ones({1})), ShapeError);
}

// self [1, 2, 3, 4] with src [5, -1, 3, 1, -2] sent to positions [0, 0, 1, 1, 3]: position 2
// receives nothing.
std::vector<double> reduced(std::string_view reduce, bool include_self) {
  const Tensor self = tensor<double>({1, 2, 3, 4});
  const Tensor src = tensor<double>({5, -1, 3, 1, -2});
  return values<double>(
      scatter_reduce_two(self, 0, idx({0, 0, 1, 1, 3}), src, reduce, include_self));
}

TEST(ScatterReduce, ReducesDuplicatesWithOrWithoutSelf) {
  using D = std::vector<double>;
  EXPECT_EQ(reduced("sum", true), (D{5, 6, 3, 2}));
  EXPECT_EQ(reduced("sum", false), (D{4, 4, 3, -2}));
  EXPECT_EQ(reduced("prod", true), (D{-5, 6, 3, -8}));
  EXPECT_EQ(reduced("prod", false), (D{-5, 3, 3, -2}));
  EXPECT_EQ(reduced("mean", true), (D{5.0 / 3, 2, 3, 1}));
  EXPECT_EQ(reduced("mean", false), (D{2, 2, 3, -2}));
  EXPECT_EQ(reduced("amax", true), (D{5, 3, 3, 4}));
  EXPECT_EQ(reduced("amax", false), (D{5, 3, 3, -2}));
  EXPECT_EQ(reduced("amin", true), (D{-1, 1, 3, -2}));
  EXPECT_EQ(reduced("amin", false), (D{-1, 1, 3, -2}));
}

TEST(ScatterReduce, IntegerMeansRoundDownAndExtremaKeepNaN) {
  EXPECT_EQ(values<int64_t>(scatter_reduce_two(tensor<int64_t>({-7, 2}), 0, idx({0, 0}),
                                               tensor<int64_t>({0, 0}), "mean", true)),
            (I64{-3, 2}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const char* reduce : {"amax", "amin"}) {
    const std::vector<double> v = values<double>(scatter_reduce_two(
        tensor<double>({1, nan}), 0, idx({0, 0, 1}), tensor<double>({nan, 2, 0}), reduce, true));
    EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1])) << reduce;
  }
}

TEST(ScatterReduce, WalksAStridedSelfAlongTheLastDim) {
  const Tensor self =
      t(tensor<double>({1, 2, 3, 4, 5, 6}, IntList{3, 2}));  // [[1, 3, 5], [2, 4, 6]]
  const Tensor src = tensor<double>({10, 20, 7, 8}, IntList{2, 2});
  EXPECT_EQ(values<double>(
                scatter_reduce_two(self, 1, idx({0, 0, 2, 1}, IntList{2, 2}), src, "amax", true)),
            (std::vector<double>{20, 3, 5, 2, 8, 7}));
}

TEST(ScatterReduce, ErrorsNameTheOpAndShapes) {
  const Tensor self = zeros({3});
  EXPECT_EQ(message_of<ShapeError>(
                [&] { scatter_reduce_two(self, 0, idx({0}), ones({1}), "max", true); }),
            "scatter_reduce: reduce argument must be either sum, prod, mean, amax or amin, got "
            "'max'");
  EXPECT_EQ(message_of<std::out_of_range>(
                [&] { scatter_reduce_two(self, 0, idx({3}), ones({1}), "sum", true); }),
            "scatter_reduce: index 3 is out of bounds for dimension 0 with size 3 (self of shape "
            "[3], index of shape [1])");
  EXPECT_THROW(scatter_reduce_two(self, 0, idx({0}), ones({1}, DType::Float64), "sum", true),
               ShapeError);
}

TEST(MaskedFill, FillsWhereTheMaskIsTrueAndBroadcasts) {
  Tensor x = tensor<float>({1, 2, 3, 4, 5, 6}, IntList{2, 3});
  Tensor mask = tensor<bool>({true, false, true});
  EXPECT_EQ(values<float>(masked_fill_scalar(x, mask, -1.5)),
            (std::vector<float>{-1.5, 2, -1.5, -1.5, 5, -1.5}));
  // The result broadcasts with the mask and keeps self's dtype (the value is cast).
  Tensor ints = tensor<int64_t>({1, 2, 3});
  Tensor m2 = tensor<bool>({true, false, false, false, false, true}, IntList{2, 3});
  Tensor r = masked_fill_scalar(ints, m2, 2.7);
  EXPECT_EQ(r.dtype(), DType::Int64);
  EXPECT_EQ(values<int64_t>(r), (I64{2, 2, 3, 1, 2, 2}));
  EXPECT_EQ(values<float>(masked_fill_scalar(
                t(x), t(tensor<bool>({true, false, false, false, false, true}, IntList{2, 3})), 0)),
            (std::vector<float>{0, 4, 2, 5, 3, 0}));
  EXPECT_EQ(masked_fill_scalar(empty({0, 3}), mask, 1).sizes(), (V{0, 3}));
  EXPECT_EQ(message_of<ShapeError>([&] {
              masked_fill_scalar(x, tensor<int64_t>({1, 0, 1}), 0);
            }),
            "masked_fill.Scalar: only boolean masks are supported, but got mask with dtype int64");
  EXPECT_THROW(masked_fill_scalar(x, tensor<bool>({true, false}), 0), ShapeError);
}

TEST(Clamp, BoundsBelowAboveAndBoth) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = tensor<float>({-2, -0.5, 0.5, 2, nan});
  auto v = values<float>(clamp(x, -1.0, 1.0));
  EXPECT_EQ(std::vector<float>(v.begin(), v.end() - 1), (std::vector<float>{-1, -0.5, 0.5, 1}));
  EXPECT_TRUE(std::isnan(v.back()));
  EXPECT_EQ(values<float>(clamp(x, 0.0, std::nullopt))[0], 0.0f);
  EXPECT_EQ(values<float>(clamp(x, std::nullopt, 0.0))[3], 0.0f);
  // min > max gives max everywhere (but NaN), as PyTorch.
  EXPECT_EQ(values<float>(clamp(x, 1.0, 0.0))[0], 0.0f);
  // Integer input with a float bound promotes, as PyTorch's clamp.
  Tensor c = clamp(tensor<int64_t>({1, 2, 3}), 1.5, std::nullopt);
  EXPECT_EQ(c.dtype(), DType::Float32);
  EXPECT_EQ(values<float>(c), (std::vector<float>{1.5, 2, 3}));
  EXPECT_EQ(values<int64_t>(clamp(t(iota({2, 3})), 1, 4)), (I64{1, 3, 1, 4, 2, 4}));
  EXPECT_EQ(clamp(empty({0}), 0, 1).sizes(), (V{0}));
  EXPECT_EQ(message_of<ShapeError>([&] { clamp(x, std::nullopt, std::nullopt); }),
            "clamp: at least one of 'min' or 'max' must not be None");
  // bool promotes with integer bounds (to int64), as in PyTorch.
  Tensor b = clamp(tensor<bool>({true, false}), 0, 1);
  EXPECT_EQ(b.dtype(), DType::Int64);
  EXPECT_EQ(values<int64_t>(b), (I64{1, 0}));
}

}  // namespace
}  // namespace lazygen::cpu
