// Values of the composites of lazygen/composite.h and nn::functional against PyTorch 1.13's answers
// on the same inputs (computed once with torch in float64 and pasted here), eager and lazy, and
// their argument errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include <cmath>

#include "lazygen/autograd.h"
#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/cumsum.h"
#include "lazygen/generated/ops/div.h"
#include "lazygen/generated/ops/elu.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/isnan.h"
#include "lazygen/generated/ops/max.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/remainder.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/rsqrt.h"
#include "lazygen/generated/ops/select.h"
#include "lazygen/generated/ops/sign.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/nn/functional.h"
#include "lazygen/operators.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen {
namespace {

using testing::values;
namespace F = nn::functional;

Tensor x() { return tensor<double>({1, 2, 4, 7, 0, -1, 3, 5}, IntList{2, 4}); }
Tensor w() { return tensor<double>({1, 0, -1, 2, 0.5, 1, 1, 0}, IntList{2, 4}); }

void expect_values(const Tensor& got, const std::vector<double>& want, double tol = 1e-12) {
  const std::vector<double> v = values<double>(got.cpu());
  ASSERT_EQ(v.size(), want.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[i], tol) << "element " << i;
}

class Composites : public ::testing::TestWithParam<Device> {
 protected:
  Tensor on(const Tensor& t) const { return t.to(GetParam()); }
};

// The factorizations and solves in both forms (Note [LAPACK or unrolled] in
// runtime/ops/composite/linalg_parts.h): the same answers, PyTorch's.
struct LinalgForm {
  Device device;
  bool lapack;
};
class Linalg : public ::testing::TestWithParam<LinalgForm> {
 protected:
  void SetUp() override {
    saved_ = lapack_enabled();
    set_lapack_enabled(GetParam().lapack);
  }
  void TearDown() override { set_lapack_enabled(saved_); }
  Tensor on(const Tensor& t) const { return t.to(GetParam().device); }

 private:
  bool saved_ = true;
};

TEST_P(Composites, VarAndStdMatchPyTorch) {
  expect_values(var(on(x()), IntList{1}), {6.999999999999999, 7.583333333333333});
  expect_values(std(on(x()), std::nullopt, 0), {2.496873044429772});
  const Tensor v = var(on(x()), IntList{0, 1}, 2, true);
  EXPECT_EQ(v.sizes(), (IntList{1, 1}));
  expect_values(v, {8.3125});
}

TEST_P(Composites, LinearOfAThreeDimInputMatchesPyTorch) {
  const Tensor y = F::linear(on(reshape(x(), {1, 2, 4})), on(w()), on(tensor<double>({0.25, -1})));
  EXPECT_EQ(y.sizes(), (IntList{1, 2, 2}));
  expect_values(y, {11.25, 5.5, 7.25, 1.0});
}

TEST_P(Composites, CrossEntropyLayerNormMseAndGeluMatchPyTorch) {
  expect_values(F::cross_entropy(on(x()), on(tensor<int64_t>({3, 0}))), {2.5961709514776206});
  expect_values(layer_norm(on(x()), {4}),
                {-1.0910884120486357, -0.6546530472291815, 0.21821768240972705, 1.5275237768680898,
                 -0.7337987406078323, -1.1531123066694509, 0.5241419575770232, 1.3627690897002602},
                1e-9);
  expect_values(mse_loss(on(x()), on(w())), {10.90625});
  const Tensor row = on(tensor<double>({1, 2, 4, 7}));
  expect_values(gelu(row), {0.841344746068543, 1.9544997361036416, 3.9998733150326675, 6.999999999991041});
  expect_values(gelu(row, "tanh"), {0.8411919906082768, 1.954597694087775, 3.9999297540518075, 6.999999999999997});
}

TEST_P(Composites, SplitChunkAndUnbindAreViewsOfTheRightSizes) {
  const Tensor t = on(reshape(arange(14, DType::Float64), {2, 7}));
  const std::vector<Tensor> pieces = chunk(t, 3, 1);
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[2].sizes(), (IntList{2, 1}));
  expect_values(pieces[2], {6, 13});
  EXPECT_EQ(split(t, 4, -1).size(), 2u);
  const std::vector<Tensor> rows = unbind(t);
  ASSERT_EQ(rows.size(), 2u);
  expect_values(rows[1], {7, 8, 9, 10, 11, 12, 13});
}

TEST_P(Composites, RearrangingCompositesMatchPyTorch) {
  expect_values(stack({on(x()), on(x()) * 2.0}, 1), {1, 2, 4, 7, 2, 4, 8, 14, 0, -1, 3, 5, 0, -2, 6, 10});
  EXPECT_EQ(repeat(on(x()), {2, 1}).sizes(), (IntList{4, 4}));
  expect_values(flip(on(x()), {1}), {7, 4, 2, 1, 5, 3, -1, 0});
  expect_values(roll(on(x()), {1}, {1}), {7, 1, 2, 4, 5, 0, -1, 3});
  expect_values(roll(on(x()), {-5, 1}, {1, 0}), {-1, 3, 5, 0, 2, 4, 7, 1});
  expect_values(roll(on(x()), {3}), {-1, 3, 5, 1, 2, 4, 7, 0});
  EXPECT_EQ(roll(on(x()), {3}).sizes(), (IntList{2, 4}));
  EXPECT_THROW(roll(on(x()), {1, 2}, {0}), ShapeError);
  EXPECT_THROW(roll(on(x()), {}), ShapeError);
  expect_values(select_backward(on(tensor<double>({1, 2})), {2, 3}, 1, -1), {0, 0, 1, 0, 0, 2});
  // [1, 4, 1, 2] -> [1, 1, 2, 4]: channels c0..c3 fill each 2 x 2 block row by row.
  const Tensor planes = on(reshape(x(), {1, 4, 1, 2}));
  EXPECT_EQ(pixel_shuffle(planes, 2).sizes(), (IntList{1, 1, 2, 4}));
  expect_values(pixel_shuffle(planes, 2), {1, 4, 2, 7, 0, 3, -1, 5});
  expect_values(pixel_unshuffle(pixel_shuffle(planes, 2), 2), {1, 2, 4, 7, 0, -1, 3, 5});
  EXPECT_THROW(pixel_shuffle(on(x()), 2), ShapeError);                      // fewer than 3 dims
  EXPECT_THROW(pixel_shuffle(on(reshape(x(), {2, 2, 2})), 2), ShapeError);  // 2 channels, not 4
  expect_values(triu(on(x()), 1), {0, 2, 4, 7, 0, 0, 3, 5});
  expect_values(unfold_copy(on(x()), 1, 2, 2), {1, 2, 4, 7, 0, -1, 3, 5});
  EXPECT_EQ(unfold_copy(on(x()), 1, 2, 2).sizes(), (IntList{2, 2, 2}));
  expect_values(diagonal_copy(on(x()), 1), {2, 3});
  const Tensor nz = nonzero(on(x()));
  EXPECT_EQ(nz.sizes(), (IntList{7, 2}));
  EXPECT_EQ(values<int64_t>(nz.cpu()), (std::vector<int64_t>{0, 0, 0, 1, 0, 2, 0, 3, 1, 1, 1, 2, 1, 3}));
}

// x() as [2, 4]: {{1, 2, 4, 7}, {0, -1, 3, 5}}.
TEST_P(Composites, ProductsScansAndOrderStatisticsMatchPyTorch) {
  expect_values(prod(on(x()), 1), {56, 0});
  expect_values(prod(on(x())), {0});
  EXPECT_EQ(prod(on(x()), 0, true).sizes(), (IntList{1, 4}));
  EXPECT_EQ(prod(on(tensor<int32_t>({2, 3}, IntList{2}))).dtype(), DType::Int64);
  expect_values(cumprod(on(x()), 1), {1, 2, 8, 56, 0, 0, 0, 0});
  expect_values(logcumsumexp(on(x()), 1),
                {1, 2.313261687518223, 4.169846019556286, 7.0573286242556375, 0,
                 0.31326168751822286, 3.0658839037574293, 5.135013278699604});
  EXPECT_THROW(logcumsumexp(on(tensor<int64_t>({1, 2}, IntList{2})), 0), ShapeError);
  const auto [maxv, maxi] = cummax(on(x()), 1);
  expect_values(maxv, {1, 2, 4, 7, 0, 0, 3, 5});
  EXPECT_EQ(values<int64_t>(maxi.cpu()), (std::vector<int64_t>{0, 1, 2, 3, 0, 0, 2, 3}));
  const auto [minv, mini] = cummin(on(x()), 0);
  expect_values(minv, {1, 2, 4, 7, 0, -1, 3, 5});
  EXPECT_EQ(values<int64_t>(mini.cpu()), (std::vector<int64_t>{0, 0, 0, 0, 1, 1, 1, 1}));
  const auto [kv, ki] = kthvalue(on(x()), 2, 1);
  expect_values(kv, {2, 0});
  EXPECT_EQ(values<int64_t>(ki.cpu()), (std::vector<int64_t>{1, 0}));
  const auto [mv, mi] = median(on(x()), 1);
  expect_values(mv, {2, 0});
  EXPECT_EQ(values<int64_t>(mi.cpu()), (std::vector<int64_t>{1, 0}));
  expect_values(median(on(x())), {2});
  // NaN sticks in cummax and makes the median NaN; nanmedian skips it.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor y = on(tensor<double>({1, nan, 3, 2}, IntList{4}));
  EXPECT_TRUE(std::isnan(values<double>(median(y).cpu())[0]));
  expect_values(nanmedian(y), {2});
  EXPECT_EQ(values<int64_t>(std::get<1>(cummax(y, 0)).cpu()), (std::vector<int64_t>{0, 1, 1, 1}));
  const Tensor bounds = on(tensor<double>({0, 2, 4}, IntList{3}));
  EXPECT_EQ(values<int64_t>(searchsorted(bounds, on(x())).cpu()),
            (std::vector<int64_t>{1, 1, 2, 3, 0, 0, 2, 3}));
  EXPECT_EQ(values<int64_t>(bucketize(on(x()), bounds, false, true).cpu()),
            (std::vector<int64_t>{1, 2, 3, 3, 1, 0, 2, 3}));
  EXPECT_THROW(kthvalue(on(x()), 5, 1), ShapeError);
  const Tensor flags = on(tensor<bool>({true, false, true}, IntList{3}));
  EXPECT_THROW(median(flags), ShapeError);  // PyTorch's order statistics refuse bools
  EXPECT_THROW(kthvalue(flags, 1), ShapeError);
  EXPECT_THROW(searchsorted(flags, flags), ShapeError);
  EXPECT_THROW(median(on(zeros({2, 0}, DType::Float64)), 1), ShapeError);
  EXPECT_THROW(searchsorted(on(zeros({3, 5}, DType::Float64)), on(x())),
               ShapeError);                               // leading dims differ
  EXPECT_THROW(bucketize(on(x()), on(x())), ShapeError);  // 2-d boundaries
}

// x() as [2, 4]: {{1, 2, 4, 7}, {0, -1, 3, 5}}.
TEST_P(Composites, MatrixCompositesMatchPyTorch) {
  expect_values(linalg_cross(on(narrow(x(), 1, 0, 3)), on(narrow(x(), 1, 1, 3))),
                {-2, 1, 0, -14, -3, -1});
  expect_values(diag(on(x()), 1), {2, 3});
  expect_values(diag(on(tensor<double>({1, 2}, IntList{2})), -1), {0, 0, 0, 1, 0, 0, 0, 2, 0});
  const Tensor embedded = diag_embed(on(x()), 1, 0, 2);  // row r on diagonal 1 of [:, r, :]
  EXPECT_EQ(embedded.sizes(), (IntList{5, 2, 5}));
  expect_values(sum(embedded, std::vector<int64_t>{0, 2}), {14, 7});
  EXPECT_THROW(diag_embed(on(x()), 0, 1, -2), ShapeError);  // one dim twice
  const Tensor rows1 = on(narrow(x(), 1, 0, 2)), rows2 = on(narrow(x(), 1, 2, 2));
  expect_values(cdist(rows1, rows2),
                {5.830951894845301, 3.605551275463989, 8.94427190999916, 6.708203932499369});
  expect_values(cdist(rows1, rows2, 2, 1),
                {5.830951894845301, 3.605551275463989, 8.94427190999916, 6.708203932499369});
  expect_values(cdist(rows1, rows2, 1), {8, 5, 12, 9});
  expect_values(cdist(rows1, rows2, std::numeric_limits<double>::infinity()), {5, 3, 8, 6});
  EXPECT_THROW(cdist(rows1, on(x())), ShapeError);    // 2 and 4 columns
  EXPECT_THROW(cdist(rows1, rows2, -1), ShapeError);  // negative p
  EXPECT_THROW(cdist(on(x()), on(reshape(narrow(x(), 0, 0, 1), {4}))), ShapeError);  // 1-d
  const Tensor points = on(reshape(x(), {4, 2}));  // (1, 2), (4, 7), (0, -1), (3, 5)
  expect_values(pdist(points, 1), {8, 4, 5, 12, 3, 9});
  expect_values(pdist(points, std::numeric_limits<double>::infinity()), {5, 3, 3, 8, 2, 6});
  EXPECT_EQ(pdist(on(narrow(points, 0, 0, 1))).sizes(), (IntList{0}));  // one row: no pairs
  EXPECT_THROW(pdist(on(reshape(x(), {8}))), ShapeError);               // 1-d
  EXPECT_THROW(pdist(points, -1), ShapeError);                          // negative p
  EXPECT_THROW(linalg_cross(on(x()), on(x())), ShapeError);  // dim of size 4
  EXPECT_THROW(linalg_cross(on(narrow(x(), 1, 0, 3)), on(narrow(x(), 1, 1, 3)).to(DType::Float32)),
               ShapeError);  // two dtypes
  EXPECT_THROW(diag(on(zeros({2, 2, 2}, DType::Float64))), ShapeError);
}

TEST_P(Linalg, LinalgInvExMatchesPyTorch) {
  const Tensor a = on(tensor<double>({4, 1, 2, 1, 3, 0, 2, 0, 5}, IntList{3, 3}));
  const auto [inverse, info] = linalg_inv_ex(a);
  expect_values(inverse, {0.3488372093023256, -0.11627906976744186, -0.13953488372093023,
                          -0.11627906976744186, 0.37209302325581395, 0.04651162790697675,
                          -0.13953488372093023, 0.04651162790697675, 0.2558139534883721});
  EXPECT_EQ(info.dtype(), DType::Int32);
  EXPECT_EQ(values<int32_t>(info.cpu()), (std::vector<int32_t>{0}));
  // Singular: PyTorch's info, 2 (its kernel pivots A^T: its second column is then zero).
  const Tensor singular = on(tensor<double>({1, 2, 3, 2, 4, 6, 1, 0, 1}, IntList{3, 3}));
  EXPECT_EQ(values<int32_t>(std::get<1>(linalg_inv_ex(singular)).cpu()), (std::vector<int32_t>{2}));
  EXPECT_THROW(linalg_inv_ex(on(x())), ShapeError);  // not square
}

// x() as one [2, 4] image: F.unfold / F.fold.
TEST_P(Composites, Im2colAndCol2imMatchPyTorch) {
  const Tensor image = on(reshape(x(), {1, 1, 2, 4}));
  const Tensor cols = im2col(image, {2, 2}, {1, 1}, {0, 1}, {1, 2});
  EXPECT_EQ(cols.sizes(), (IntList{1, 4, 3}));
  expect_values(cols, {0, 2, 7, 1, 4, 0, 0, -1, 5, 0, 3, 0});
  expect_values(col2im(cols, {2, 4}, {2, 2}, {1, 1}, {0, 1}, {1, 2}), {1, 2, 4, 7, 0, -1, 3, 5});
  // Overlapping blocks add up.
  expect_values(
      col2im(im2col(image, {1, 2}, {1, 1}, {0, 0}, {1, 1}), {2, 4}, {1, 2}, {1, 1}, {0, 0}, {1, 1}),
      {1, 4, 8, 7, 0, -2, 6, 5});
  EXPECT_THROW(im2col(image, {3, 3}, {1, 1}, {0, 0}, {1, 1}), ShapeError);  // no block fits
  EXPECT_THROW(im2col(image.to(DType::Int64), {2, 2}, {1, 1}, {0, 0}, {1, 1}),
               ShapeError);                                                 // integers
  EXPECT_THROW(im2col(image, {2, 2}, {1, 1}, {0, 0}, {0, 1}), ShapeError);  // zero stride
  EXPECT_THROW(col2im(cols, {2, 7}, {2, 2}, {1, 1}, {0, 1}, {1, 2}),
               ShapeError);  // 3 blocks, not 4
}

TEST_P(Composites, AdvancedIndexingMatchesPyTorch) {
  const auto idx = [&](std::vector<int64_t> v) {
    const auto n = static_cast<int64_t>(v.size());
    return std::optional<Tensor>(on(tensor<int64_t>(v, IntList{n})));
  };
  expect_values(index(on(x()), {std::nullopt, idx({3, 0, -1})}), {7, 1, 7, 5, 0, 5});
  EXPECT_EQ(index(on(x()), {std::nullopt, idx({3, 0, -1})}).sizes(), (IntList{2, 3}));
  expect_values(index(on(x()), {idx({1, 0}), idx({1, 3})}), {-1, 7});
  expect_values(index(on(x()), {on(gt(x(), 2.0))}), {4, 7, 3, 5});
  const Tensor v = on(tensor<double>({10, 20, 30}));
  // Position (0, 1) is named twice: the last value written wins, as PyTorch's CPU kernel writes.
  expect_values(index_put(on(x()), {idx({0, 1, 0}), idx({1, 2, 1})}, v),
                {1, 30, 4, 7, 0, -1, 20, 5});
  expect_values(index_put(on(x()), {idx({0, 1, 0}), idx({1, 2, 1})}, v, true),
                {1, 42, 4, 7, 0, -1, 23, 5});
  expect_values(index_put(on(x()), {idx({1})}, on(tensor<double>({9}))), {1, 2, 4, 7, 9, 9, 9, 9});
  EXPECT_THROW(index(on(x()), {idx({0}), idx({0}), idx({0})}), ShapeError);          // too many
  EXPECT_THROW(index(on(x()), {idx({0, 1}), idx({0, 1, 2})}), ShapeError);           // no broadcast
  EXPECT_THROW(index(on(x()), {on(tensor<int32_t>({0}, IntList{1}))}), ShapeError);  // int32
  EXPECT_THROW(index(on(x()), {on(tensor<bool>({true, false, true}, IntList{3}))}), ShapeError);
  EXPECT_THROW(index_put(on(x()), {idx({0})}, on(tensor<float>({1.0f}))), ShapeError);  // dtype
  EXPECT_THROW(index_put(on(x()), {idx({0, 1})}, on(tensor<double>({1, 2, 3}))), ShapeError);
}

// Note [Masked writes without nonzero]: one value for every masked position is a where(), which
// does not sync the lazy device; a row per masked position still takes the general path.
TEST_P(Composites, MaskedWritesMatchPyTorchAndOneValueForAllDoesNotSync) {
  const auto mask = [&](std::vector<bool> v, IntList sizes) {
    return std::optional<Tensor>(on(tensor<bool>(v, sizes)));
  };
  const int64_t syncs = metrics::counter_value("exec.sync");
  const Tensor scalar = index_put(on(x()), {on(gt(x(), 2.0))}, on(tensor<double>({9}, IntList{})));
  const Tensor per_row = index_put(on(x()), {std::nullopt, mask({true, false, true, false}, {4})},
                                   on(tensor<double>({10, 20}, IntList{2, 1})));
  const Tensor row =
      index_put(on(x()), {mask({false, true}, {2})}, on(tensor<double>({1, 2, 3, 4}, IntList{4})));
  const Tensor added =
      index_put(on(x()), {on(gt(x(), 2.0))}, on(tensor<double>({1}, IntList{})), true);
  EXPECT_EQ(metrics::counter_value("exec.sync"), syncs);
  expect_values(scalar, {1, 2, 9, 9, 0, -1, 9, 9});
  expect_values(per_row, {10, 2, 10, 7, 20, -1, 20, 5});
  expect_values(row, {1, 2, 4, 7, 1, 2, 3, 4});
  expect_values(added, {1, 2, 5, 8, 0, -1, 4, 6});
  expect_values(index_put(on(x()), {on(gt(x(), 2.0))}, on(tensor<double>({10, 20, 30, 40}))),
                {1, 2, 10, 20, 0, -1, 30, 40});  // a value per masked position
  EXPECT_THROW(index_put(on(x()), {mask({false, true}, {2})}, on(tensor<double>({1, 2, 3}))),
               ShapeError);
  EXPECT_THROW(index_put(on(x()), {mask({false, true, true}, {3})}, on(tensor<double>({1}))),
               ShapeError);  // the mask's shape
}

// Bags [1, 2], [], [4, 5, 4], [3, 2, 0] of rows of a [6, 2] weight (Note [Bags by index_add]).
TEST_P(Composites, EmbeddingBagsMatchPyTorch) {
  const Tensor weight = on(reshape(arange(12.0, DType::Float64), {6, 2}));
  const Tensor indices = on(tensor<int64_t>({1, 2, 4, 5, 4, 3, 2, 0}, IntList{8}));
  const Tensor offsets = on(tensor<int64_t>({0, 2, 2, 5}, IntList{4}));
  const auto [mean, offset2bag, bag_size, max_indices] =
      embedding_bag(weight, indices, offsets, 1, std::nullopt, false, 4);
  expect_values(mean, {3, 4, 0, 0, 10, 11, 10.0 / 3, 13.0 / 3});  // padding index 4 left out
  EXPECT_EQ(values<int64_t>(offset2bag.cpu()), (std::vector<int64_t>{0, 0, 2, 2, 2, 3, 3, 3}));
  EXPECT_EQ(values<int64_t>(bag_size.cpu()), (std::vector<int64_t>{2, 0, 1, 3}));
  const Tensor weights = on(tensor<double>({1, 2, 0.5, 1, 1, 2, 1, 3}, IntList{8}));
  expect_values(std::get<0>(embedding_bag(weight, indices, offsets, 0, weights)),
                {10, 13, 0, 0, 22, 24.5, 16, 22});
  EXPECT_THROW(embedding_bag(weight, indices, offsets, 2), ShapeError);           // max: not here
  EXPECT_THROW(embedding_bag(weight, indices, offsets, 1, weights), ShapeError);  // weights, mean
}

// Windows of uneven sizes, overlapping where the output is larger than a third of the input.
TEST_P(Composites, AdaptiveMaxPoolingMatchesPyTorch) {
  const Tensor planes =
      on(tensor<double>({1, 2, 4, 7, 0, -1, 3, 5, 9, -2, 6, 8, 2, 2, 0}, IntList{1, 3, 5}));
  const auto [v23, i23] = adaptive_max_pool2d(planes, {2, 3});
  EXPECT_EQ(v23.sizes(), (IntList{1, 2, 3}));
  expect_values(v23, {3, 9, 9, 8, 9, 9});
  EXPECT_EQ(values<int64_t>(i23.cpu()), (std::vector<int64_t>{6, 8, 8, 11, 8, 8}));
  const auto [v42, i42] = adaptive_max_pool2d(planes, {4, 2});
  expect_values(v42, {4, 7, 5, 9, 8, 9, 8, 2});
  EXPECT_EQ(values<int64_t>(i42.cpu()), (std::vector<int64_t>{2, 3, 7, 8, 11, 8, 11, 12}));
  // Each input element receives the gradient of every output that picked it.
  expect_values(adaptive_max_pool2d_backward(on(ones({1, 2, 3}, DType::Float64)), planes, i23),
                {0, 0, 0, 0, 0, 0, 1, 0, 4, 0, 0, 1, 0, 0, 0});
  EXPECT_THROW(adaptive_max_pool2d(on(x()), {1, 1}), ShapeError);               // 2-d input
  EXPECT_THROW(adaptive_max_pool2d(on(zeros({2, 0, 3})), {1, 1}), ShapeError);  // empty plane
}

TEST(AdvancedIndexing,
     AnIndexOutsideItsDimRaisesAtTheCallOnTheCpuAndWhenTheGraphRunsOnTheLazyDevice) {
  const Tensor i = tensor<int64_t>({0, 4}, IntList{2});
  try {
    index(x(), {std::nullopt, i});
    FAIL() << "no error";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("index 4 is out of bounds for dimension 1 with size 4"),
              std::string::npos)
        << e.what();
  }
  const Tensor lazy = index(x().to(kLazy), {std::nullopt, i.to(kLazy)});
  EXPECT_ANY_THROW(lazy.cpu());
}

TEST_P(Composites, LogsumexpArgminAndSplitWithSizesMatchPyTorch) {
  expect_values(logsumexp(on(x()), {1}), {7.0573286242556375, 5.135013278699604});
  EXPECT_EQ(logsumexp(on(x()), {0, 1}, true).sizes(), (IntList{1, 1}));
  expect_values(logsumexp(on(x()), {0, 1}, true), {7.193839992727466});
  // An infinite maximum is not subtracted: inf stays inf, a row of -inf stays -inf.
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(
      values<double>(logsumexp(on(tensor<double>({inf, 1, -inf, -inf}, IntList{2, 2})), {1}).cpu()),
      (std::vector<double>{inf, -inf}));
  EXPECT_EQ(values<int64_t>(argmin(on(x()), 1).cpu()), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(argmin(on(x())).item<int64_t>(), 5);
  EXPECT_EQ(argmin(on(tensor<int64_t>({3, std::numeric_limits<int64_t>::min(), 7}, IntList{3})))
                .item<int64_t>(),
            1);
  const std::vector<Tensor> pieces = split_with_sizes(on(x()), {1, 0, 3}, 1);
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[1].sizes(), (IntList{2, 0}));
  expect_values(pieces[2], {2, 4, 7, -1, 3, 5});
  EXPECT_THROW(split_with_sizes(on(x()), {1, 2}, 1), ShapeError);  // sums to 3, not 4
  EXPECT_THROW(split_with_sizes(on(x()), {5, -1}, 1), ShapeError);
}

TEST_P(Composites, EdgePaddingMatchesPyTorch) {
  const Tensor rows = on(reshape(x(), {1, 2, 4}));
  expect_values(reflection_pad(rows, {2, 1}), {4, 2, 1, 2, 4, 7, 4, 3, -1, 0, -1, 3, 5, 3});
  expect_values(replication_pad(on(reshape(x(), {1, 1, 2, 4})), {1, 0, 1, 1}),
                {1, 1, 2, 4, 7, 1, 1, 2, 4, 7, 0, 0, -1, 3, 5, 0, 0, -1, 3, 5});
  EXPECT_EQ(reflection_pad(rows, {-1, 2}).sizes(), (IntList{1, 2, 5}));  // a negative pad crops
  EXPECT_THROW(reflection_pad(rows, {4, 0}), ShapeError);                // not shorter than the dim
  EXPECT_THROW(replication_pad(on(x()), {1, 1, 1, 1}), ShapeError);      // 2 dims for a 2-d pad
  // The backward ops add each padded element's gradient into the element it copies.
  expect_values(reflection_pad_backward(on(ones({1, 2, 7}, DType::Float64)), rows, {2, 1}),
                {1, 2, 3, 1, 1, 2, 3, 1});
}

TEST_P(Composites, PreluAndHuberLossMatchPyTorch) {
  expect_values(prelu(on(x()), on(tensor<double>({0.5}))), {1, 2, 4, 7, 0, -0.5, 3, 5});
  expect_values(prelu(on(reshape(x(), {2, 4, 1})), on(tensor<double>({0.5, 2, 3, 4}))),
                {1, 2, 4, 7, 0, -2, 3, 5});
  EXPECT_THROW(prelu(on(x()), on(tensor<double>({1, 2}))), ShapeError);  // 4 channels, 2 weights
  expect_values(huber_loss(on(x()), flip(on(x()), {1}), 1, 1.5), {5.25});
  expect_values(huber_loss(on(x()), flip(on(x()), {1}), 0, 1.5),
                {7.875, 1.875, 1.875, 7.875, 6.375, 4.875, 4.875, 6.375});
  EXPECT_THROW(huber_loss(on(x()), on(x()), 1, 0.0), ShapeError);
}

TEST_P(Composites, ReductionLossAndResamplingCompositesMatchPyTorch) {
  expect_values(norm(on(x()), std::nullopt, {1}), {8.366600265340756, 5.916079783099616});
  expect_values(norm(on(x()), 3.0), {8.28649276418149});
  expect_values(cumsum(on(x()), 1), {1, 3, 7, 14, 0, -1, 2, 7});
  expect_values(smooth_l1_loss(on(x()), flip(on(x()), {1})), {3.75});
  expect_values(glu(on(x()), 1), {0.9820137900379085, 1.9981778976111988, 0.0, -0.9933071490757153});
  const Tensor image = on(reshape(x(), {1, 1, 2, 4}));
  expect_values(avg_pool2d(image, {2}, {2}, {1}, false, false), {1, 3, 7, 0, 1, 5});
  expect_values(upsample_bilinear2d(image, {3, 5}, false),
                {1.0, 1.7, 3.0, 4.9, 7.0, 0.5, 0.5, 2.0, 4.25, 6.0, 0.0, -0.7, 1.0, 3.6, 5.0}, 1e-7);
  expect_values(_adaptive_avg_pool2d(image, {1, 3}), {0.5, 2.0, 4.75});
  expect_values(upsample_bicubic2d(image, {3, 3}, false),
                {1.223532343106997, 2.9942491319444446, 6.7623054912551455, 0.447916666666668,
                 1.7656250000000002, 5.693287037037039, -0.32769900977366173, 0.5370008680555552,
                 4.624268582818932});
  expect_values(upsample_bicubic2d(image, {3, 3}, true),
                {1.0, 2.8125, 7.0, 0.5, 1.765625, 6.0, 0.0, 0.71875, 5.0});
}

TEST_P(Composites, EinsumAndCausalAttentionMatchPyTorch) {
  const Tensor a = on(reshape(arange(6, DType::Float64), {2, 3}));
  const Tensor b = on(reshape(arange(12, DType::Float64), {3, 4}) - 5.0);
  expect_values(einsum("ij,jk->ik", {a, b}), {5, 8, 11, 14, -4, 8, 20, 32});
  expect_values(einsum("ij->j", {a}), {3, 5, 7});
  expect_values(einsum("ij,ij->i", {a, a}), {5, 50});
  EXPECT_EQ(einsum("bij,bkj->bik", {reshape(a, {1, 2, 3}), reshape(t(b), {1, 4, 3})}).sizes(), (IntList{1, 2, 4}));
  const Tensor q = on(tensor<double>({1, 0, 0, 1, 1, 1}, IntList{1, 3, 2}));
  expect_values(scaled_dot_product_attention(q, q, q, std::nullopt, true),
                {1.0, 0.0, 0.33023845067334306, 0.6697615493266569, 0.7517449217422769, 0.7517449217422769});
}

TEST_P(Linalg, LuFactorSlogdetAndLuSolveMatchPyTorch) {
  const Tensor a = on(tensor<double>({4, 1, 2, 1, -3, 0, 2, 1, 5}, IntList{3, 3}));
  const auto [lu, pivots] = lu_factor(a);
  EXPECT_EQ(pivots.dtype(), DType::Int32);
  EXPECT_EQ(values<int32_t>(pivots.cpu()), (std::vector<int32_t>{1, 2, 3}));
  expect_values(lu, {4.0, 1.0, 2.0, 0.25, -3.25, -0.5, 0.5, -0.15384615384615385, 3.923076923076923}, 1e-12);
  const auto [sign, logabsdet] = slogdet(a);
  expect_values(sign, {-1});
  expect_values(logabsdet, {3.931825632724326}, 1e-12);
  EXPECT_TRUE(std::isnan(logdet(a).cpu().item<double>()));
  expect_values(logdet(a.matmul(t(a))), {7.863651265448651}, 1e-12);
  expect_values(lu_solve(lu, pivots, on(tensor<double>({1, 2, 3}, IntList{3, 1}))),
                {0.05882352941176472, -0.6470588235294117, 0.7058823529411764}, 1e-12);
}

TEST_P(Composites, ViewCopyWithADtypeRefusesToCutAGradient) {
  const Tensor x = on(tensor<float>({1, 2, 3, 4})).detach().requires_grad_();
  EXPECT_EQ(view_copy(x, DType::Int32).dtype(), DType::Int32);  // not floating: no gradient to lose
  try {
    view_copy(x, DType::Float64);
    FAIL() << "expected the derivative error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("the derivative for 'view_copy.dtype' is not implemented"), std::string::npos);
  }
  NoGradGuard no_grad;
  EXPECT_EQ(view_copy(x, DType::Float64).sizes(), (IntList{2}));
}

TEST_P(Composites, ArgumentErrorsNameTheOpAndShapes) {
  EXPECT_THROW(stack({on(x()), on(w()).t()}), ShapeError);
  EXPECT_THROW(glu(on(tensor<double>({1, 2, 3}))), ShapeError);
  EXPECT_THROW(as_strided_copy(on(x()), {2, 2}, {4, 8}), ShapeError);
  EXPECT_THROW(trace(on(tensor<double>({1, 2}))), ShapeError);
  EXPECT_THROW(avg_pool2d(on(reshape(x(), {1, 1, 2, 4})), {2}, {1}, {2}), ShapeError);  // pad > kernel / 2
  EXPECT_THROW(max(on(zeros({0, 3}, DType::Float64))), ShapeError);
  EXPECT_THROW(einsum("ij,jk->ik", {on(x()), on(x())}), ShapeError);  // j is 4 and 2
  EXPECT_THROW(einsum("...ij->ij", {on(x())}), ShapeError);
  // Wrong answers PyTorch refuses: a short masked_scatter source, an integer division by zero.
  EXPECT_THROW(masked_scatter(on(x()), gt(on(x()), 0.5), on(tensor<double>({1, 2}))), ShapeError);
  expect_values(masked_scatter(on(x()), gt(on(x()), 4.5), on(tensor<double>({-1, -2}))), {1, 2, 4, -1, 0, -1, 3, -2});
  EXPECT_THROW(div(on(tensor<int64_t>({7, 8})), on(tensor<int64_t>({2, 0})), "floor"), ShapeError);
  expect_values(div(on(tensor<int64_t>({7, -7})), on(tensor<int64_t>({2, 2})), "floor").to(DType::Float64), {3, -4});
}

TEST_P(Composites, EluBackwardFromInputOrResultEqualsEluDerivative) {
  const Tensor input = tensor<double>({-2, -0.5, 0, 0.25, 3});
  const Tensor x = on(input).detach().requires_grad_();
  const Tensor result = elu(x, 1.5, 1.2, 0.8);
  const Tensor grad = on(tensor<double>({1, -2, 0.5, 3, -1}));
  sum(result * grad).backward();
  const std::vector<double> want = values<double>(x.grad().cpu());
  NoGradGuard no_grad;
  expect_values(elu_backward(grad, 1.5, 1.2, 0.8, false, on(input)), want, 1e-12);
  expect_values(elu_backward(grad, 1.5, 1.2, 0.8, true, result.detach()), want, 1e-12);
  EXPECT_THROW(elu_backward(grad, -1.0, 1.0, 1.0, true, result.detach()), ShapeError);
}

// 3-d average pooling with padding and ceil_mode, counting padding or not, and with a divisor
// (PyTorch's values), and avg_pool3d_backward against autograd through avg_pool3d.
TEST_P(Composites, AvgPool3dMatchesPyTorchAndItsBackwardMatchesAutograd) {
  const Tensor x = on(reshape(arange(120, DType::Float64), {2, 1, 4, 3, 5}) / 10.0 - 2.0);
  const Tensor y = avg_pool3d(x, {3, 2, 2}, {2, 1, 2}, {1, 1, 0}, true, false);
  EXPECT_EQ(y.sizes(), (IntList{2, 1, 3, 4, 3}));
  EXPECT_NEAR(values<double>(sum(y).cpu())[0], 322.8, 1e-9);
  expect_values(narrow(reshape(y, {-1}), 0, 0, 6), {-1.2, -1.0, -0.85, -0.95, -0.75, -0.6}, 1e-12);
  const Tensor z = avg_pool3d(x, {3, 2, 2}, {2, 1, 2}, {1, 1, 0}, true, true);
  EXPECT_NEAR(values<double>(sum(z).cpu())[0], 171.1, 1e-9);
  expect_values(narrow(reshape(z, {-1}), 0, 0, 3), {-0.4, -1.0 / 3, -0.85 / 3}, 1e-12);
  const Tensor u = avg_pool3d(x, {2}, {}, {0}, false, true, 5);
  EXPECT_EQ(u.sizes(), (IntList{2, 1, 2, 1, 2}));
  expect_values(reshape(u, {-1}), {-1.52, -1.2, 3.28, 3.6, 8.08, 8.4, 12.88, 13.2}, 1e-12);
  for (const bool include_pad : {false, true}) {
    const Tensor xg = x.detach().requires_grad_();
    const Tensor grad = on(reshape(arange(36, DType::Float64), {2, 1, 3, 2, 3}) / 7.0 - 2.0);
    sum(avg_pool3d(xg, {2, 3, 2}, {1, 2, 2}, {0, 1, 1}, true, include_pad) * grad).backward();
    NoGradGuard no_grad;
    expect_values(avg_pool3d_backward(grad, x, {2, 3, 2}, {1, 2, 2}, {0, 1, 1}, true, include_pad,
                                      std::nullopt),
                  values<double>(xg.grad().cpu()), 1e-12);
  }
  EXPECT_THROW(avg_pool3d(x, {2}, {}, {0}, false, true, 0), ShapeError);  // a zero divisor
  EXPECT_THROW(avg_pool3d(x, {2}, {}, {2}), ShapeError);  // padding over half the kernel
  EXPECT_THROW(avg_pool3d(x, {5}), ShapeError);           // a kernel deeper than the input
}

// A 3-d convolution with a bias, a depth stride, padding and dilation (PyTorch's values), and
// conv3d_backward against autograd through conv3d.
TEST_P(Composites, Conv3dMatchesPyTorchAndItsBackwardMatchesAutograd) {
  const Tensor x = on(reshape(arange(108, DType::Float64), {2, 2, 3, 3, 3}) / 10.0 - 2.0);
  const Tensor w =
      on(reshape(remainder(arange(48, DType::Float64), 5.0), {3, 2, 2, 2, 2}) / 4.0 - 0.5);
  const Tensor b = on(tensor<double>({0.5, -1, 0}));
  const Tensor y = conv3d(x, w, b, {2, 1, 1}, {1, 0, 1}, {1, 1, 2});
  EXPECT_EQ(y.sizes(), (IntList{2, 3, 2, 2, 3}));
  EXPECT_NEAR(values<double>(sum(y).cpu())[0], -44.0, 1e-9);
  expect_values(narrow(reshape(y, {-1}), 0, 0, 6), {1.1, 0.95, 0.5, 0.875, 0.95, 0.725}, 1e-12);
  const Tensor xg = x.detach().requires_grad_(), wg = w.detach().requires_grad_();
  const Tensor grad = on(reshape(arange(72, DType::Float64), {2, 3, 2, 2, 3}) / 7.0 - 5.0);
  sum(conv3d(xg, wg, std::nullopt, {2, 1, 1}, {1, 0, 1}, {1, 1, 2}) * grad).backward();
  NoGradGuard no_grad;
  const auto [gx, gw, gb] =
      conv3d_backward(grad, x, w, {2, 1, 1}, {1, 0, 1}, {1, 1, 2}, 1, {true, true, true});
  expect_values(gx, values<double>(xg.grad().cpu()), 1e-10);
  expect_values(gw, values<double>(wg.grad().cpu()), 1e-10);
  expect_values(gb, values<double>(sum(grad, std::vector<int64_t>{0, 2, 3, 4}).cpu()), 1e-10);
  EXPECT_THROW(conv3d(x, w, b, {1}, {0}, {3}),
               ShapeError);  // a dilated kernel deeper than the input
  EXPECT_THROW(conv3d(x, w, b, {1, 1}), ShapeError);  // a stride of 2 values for 3 dims
}

TEST_P(Composites, BadArgumentsNameTheOp) {
  EXPECT_THROW(split(on(x()), 0), ShapeError);
  EXPECT_THROW(chunk(on(x()), -1), ShapeError);
  EXPECT_THROW(unbind(on(x()), 2), ShapeError);
  EXPECT_THROW(gelu(on(x()), "sigmoid"), ShapeError);
  EXPECT_THROW(mse_loss(on(x()), on(w()), 3), ShapeError);
  try {
    layer_norm(on(x()), {3});
    FAIL() << "expected a ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("native_layer_norm"), std::string::npos) << e.what();
  }
}

// Note [Batch norm's backward function]: a training step's batch norm reduces over the input's
// size twice in the forward (mean, variance) and twice in the backward (sum(dy), sum(dy * (x -
// mean))); its gradients match those of its formula written in ops and differentiated op by op.
TEST_P(Composites, BatchNormBackwardReducesTwiceAndMatchesItsOpsDifferentiated) {
  Generator g(31);
  const Tensor x0 = randn({4, 3, 5, 5}, g, DType::Float64),
               dy = randn({4, 3, 5, 5}, g, DType::Float64);
  const Tensor w0 = randn({3}, g, DType::Float64), b0 = randn({3}, g, DType::Float64);
  auto grads = [&](bool through_ops) {
    Tensor x = on(x0).requires_grad_(), w = on(w0).requires_grad_(), b = on(b0).requires_grad_();
    Tensor y;
    if (through_ops) {
      const std::vector<int64_t> dims = {0, 2, 3};
      const Tensor centered = x - mean(x, dims, true);
      const Tensor invstd = rsqrt(mean(centered * centered, dims, true) + 1e-5);
      y = centered * invstd * reshape(w, {1, 3, 1, 1}) + reshape(b, {1, 3, 1, 1});
    } else {
      const auto [out, save_mean, save_invstd] =
          native_batch_norm(x, w, b, std::nullopt, std::nullopt, true, 0.1, 1e-5);
      // As PyTorch's: the saved statistics are not differentiable outputs.
      EXPECT_FALSE(save_mean.requires_grad());
      EXPECT_FALSE(save_invstd.requires_grad());
      y = out;
    }
    sum(y * on(dy)).backward();
    return std::vector<Tensor>{x.grad(), w.grad(), b.grad()};
  };
  const std::vector<Tensor> fused = grads(false);
  if (GetParam() == kLazy) {  // the step's graph, still pending
    const std::string ir = ir_dump_text(fused);
    size_t reductions = 0;
    for (const char* kind : {"SumDimIntlist", "MeanDim"}) {
      for (size_t at = ir.find(kind); at != std::string::npos; at = ir.find(kind, at + 1))
        ++reductions;
    }
    EXPECT_EQ(reductions, 4u) << ir;  // forward's mean and variance, backward's two sums
  }
  const std::vector<Tensor> reference = grads(true);
  for (size_t k = 0; k < 3; ++k) {
    expect_values(fused[k], values<double>(reference[k].cpu()), 1e-12);
  }
}

// Each category's share of `draws` (int64 indices into `categories` categories).
std::vector<double> shares(const Tensor& draws, int64_t categories) {
  std::vector<double> share(static_cast<size_t>(categories), 0.0);
  const std::vector<int64_t> v = values<int64_t>(draws.cpu());
  for (int64_t i : v) share.at(static_cast<size_t>(i)) += 1.0 / static_cast<double>(v.size());
  return share;
}

// Note [Sampling categories]: both algorithms draw in proportion to the weights (never a
// zero-weight category), without replacement each row's samples differ, the same seed gives the
// same samples on every device, and bad arguments and weights raise PyTorch's messages.
TEST_P(Composites, MultinomialDrawsInProportionToTheWeights) {
  const Tensor p = on(tensor<double>({1, 2, 7, 0}, IntList{4}));
  Generator g(42);
  const Tensor with = multinomial(p, 20000, true, g);
  EXPECT_EQ(with.sizes(), (IntList{20000}));
  EXPECT_EQ(with.dtype(), DType::Int64);
  const std::vector<double> want = {0.1, 0.2, 0.7, 0.0};
  std::vector<double> got = shares(with, 4);
  for (size_t c = 0; c < 4; ++c) EXPECT_NEAR(got[c], want[c], 0.015) << "category " << c;
  EXPECT_EQ(got[3], 0.0);
  // One sample per row of 20000 equal rows: the keys' argmax.
  const Tensor one = multinomial(expand(p, IntList{20000, 4}).contiguous(), 1, false, g);
  EXPECT_EQ(one.sizes(), (IntList{20000, 1}));
  got = shares(one, 4);
  for (size_t c = 0; c < 4; ++c) EXPECT_NEAR(got[c], want[c], 0.015) << "category " << c;
  // Without replacement: distinct categories per row, a zero weight last of all.
  const Tensor rows = on(tensor<float>({1, 2, 3, 4, 4, 0, 1, 1}, IntList{2, 4}));
  const std::vector<int64_t> picked = values<int64_t>(multinomial(rows, 3, false, g).cpu());
  ASSERT_EQ(picked.size(), 6u);
  for (size_t r = 0; r < 2; ++r) {
    std::vector<int64_t> row(picked.begin() + 3 * r, picked.begin() + 3 * r + 3);
    std::sort(row.begin(), row.end());
    EXPECT_EQ(std::adjacent_find(row.begin(), row.end()), row.end()) << "row " << r;
  }
  std::vector<int64_t> second(picked.begin() + 3, picked.end());
  std::sort(second.begin(), second.end());
  EXPECT_EQ(second, (std::vector<int64_t>{0, 2, 3}));
  // The same seed, the same samples, here and on the cpu.
  Generator a(7), b(7);
  EXPECT_EQ(values<int64_t>(multinomial(rows, 5, true, a).cpu()),
            values<int64_t>(multinomial(rows.cpu(), 5, true, b)));
}

TEST_P(Composites, MultinomialRaisesPyTorchsMessages) {
  const auto message = [&](const Tensor& p, int64_t n, bool replacement) -> std::string {
    try {
      multinomial(on(p), n, replacement);
    } catch (const ShapeError& e) {
      return e.what();
    }
    return "(no error)";
  };
  const auto has = [](const std::string& got, const std::string& want) {
    return got.find(want) != std::string::npos;
  };
  const Tensor p = tensor<double>({1, 2, 3}, IntList{3});
  EXPECT_TRUE(has(message(tensor<int64_t>({1, 2}, IntList{2}), 1, false),
                  "only supports floating-point dtypes for input, got: int64"));
  EXPECT_TRUE(has(message(p, 0, true), "cannot sample n_sample <= 0 samples"));
  EXPECT_TRUE(has(message(p, 4, false), "cannot sample n_sample > prob_dist.size(-1) samples"));
  EXPECT_TRUE(
      has(message(zeros({2, 2, 2}, DType::Float64), 1, true), "prob_dist must be 1 or 2 dim"));
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // The fast path (no replacement or one sample) and the cumulative one word them differently.
  for (double bad : {-1.0, inf, nan}) {
    const Tensor q = tensor<double>({1, bad, 3}, IntList{3});
    EXPECT_TRUE(has(message(q, 2, false), "contains either `inf`, `nan` or element < 0")) << bad;
    EXPECT_TRUE(has(message(q, 2, true), bad == inf ? "entry = infinity or NaN" : "entry < 0"))
        << bad;
  }
  const Tensor zero_row = tensor<double>({1, 2, 0, 0}, IntList{2, 2});
  EXPECT_TRUE(has(message(zero_row, 1, false), "sum of probabilities <= 0"));
  EXPECT_TRUE(has(message(zero_row, 2, true), "sum of probabilities <= 0"));
}

// Note [Histograms by scatter_add]; PyTorch 1.13's answers. Elements on bin edges in float32
// land where PyTorch's kernel puts them, and NaN in the first bin.
TEST_P(Composites, HistcMatchesPyTorch) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor v = on(tensor<double>({0, 1, 2, 3, 4, 5.5, nan, -1, 0.1, 3.9999}, IntList{10}));
  expect_values(histc(v, 4, 0, 4), {3, 1, 1, 3});
  expect_values(histc(on(x()), 5), {2, 2, 1, 2, 1});  // the data's range, -1..7
  expect_values(histc(on(x()), 3, 0, 5), {2, 2, 2});
  const Tensor f = on(tensor<float>({0.1f, 0.2f, 0.3f, 0.7f, 0.9f, 1.0f}, IntList{6}));
  const Tensor edges = histc(f, 10, 0, 1);
  EXPECT_EQ(edges.dtype(), DType::Float32);
  expect_values(edges.to(DType::Float64), {0, 1, 1, 1, 0, 0, 0, 1, 0, 2});
  expect_values(histc(on(tensor<double>({2, 2}, IntList{2})), 3), {0, 2, 0});  // widened to 1..3
  expect_values(histc(on(zeros({0}, DType::Float64)), 2), {0, 0});
  const auto message = [&](const Tensor& t, int64_t bins, double lo, double hi) -> std::string {
    try {
      histc(on(t), bins, lo, hi);
    } catch (const ShapeError& e) {
      return e.what();
    }
    return "(no error)";
  };
  const Tensor p = tensor<double>({1, 2}, IntList{2});
  EXPECT_NE(message(p, 0, 0, 0).find("bins must be > 0, but got 0"), std::string::npos);
  EXPECT_NE(message(p, 4, 3, 1).find("torch.histc: max must be larger than min"),
            std::string::npos);
  EXPECT_NE(message(p, 4, 0, std::numeric_limits<double>::infinity())
                .find("torch.histc: range of [0, inf] is not finite"),
            std::string::npos);
  EXPECT_NE(message(tensor<double>({1, nan}, IntList{2}), 4, 0, 0).find("is not finite"),
            std::string::npos);
  EXPECT_NE(message(tensor<int64_t>({1, 2}, IntList{2}), 4, 0, 0).find("floating"),
            std::string::npos);
}

TEST_P(Composites, ModeMatchesPyTorch) {
  const auto expect_mode = [](const std::tuple<Tensor, Tensor>& got, const std::vector<double>& v,
                              const std::vector<int64_t>& i) {
    expect_values(std::get<0>(got).to(DType::Float64), v);
    EXPECT_EQ(values<int64_t>(std::get<1>(got).cpu()), i);
  };
  // The smallest of the most frequent values, at its last index; NaN never equals NaN.
  expect_mode(mode(on(tensor<int64_t>({1, 2, 2, 1, 3, 3, 1, 2}, IntList{8}))), {1}, {6});
  const Tensor rows = on(tensor<double>({5, 1, 1, 5, 2, 3, 3, 0, 0, 0}, IntList{2, 5}));
  expect_mode(mode(rows, 1), {1, 0}, {2, 4});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_mode(mode(on(tensor<double>({2, nan, nan, 1}, IntList{4}))), {1}, {3});
  expect_mode(mode(on(tensor<bool>({true, false, true}, IntList{3}))), {1}, {2});
  const auto kept = mode(on(tensor<int64_t>({1, 1, 2, 3}, IntList{2, 2})), 0, true);
  EXPECT_EQ(std::get<0>(kept).sizes(), (IntList{1, 2}));
  expect_mode(kept, {1, 1}, {0, 0});
  const auto scalar = mode(on(tensor<double>({3}, IntList{})));
  EXPECT_EQ(std::get<0>(scalar).dim(), 0);
  expect_mode(scalar, {3}, {0});
  EXPECT_EQ(std::get<0>(mode(on(zeros({2, 0})), 0)).sizes(), (IntList{0}));
  EXPECT_NE(testing::message_of<ShapeError>([&] { mode(on(zeros({0}))); })
                .find("mode(): Expected reduction dim 0 to have non-zero size."),
            std::string::npos);
}

TEST_P(Composites, BincountMatchesPyTorch) {
  const Tensor x = on(tensor<int64_t>({0, 3, 3}, IntList{3}));
  const Tensor counts = bincount(x);
  EXPECT_EQ(counts.dtype(), DType::Int64);
  EXPECT_EQ(values<int64_t>(counts.cpu()), (std::vector<int64_t>{1, 0, 0, 2}));
  const Tensor summed = bincount(x, on(tensor<float>({1, 2, 3}, IntList{3})), 6);
  EXPECT_EQ(summed.dtype(), DType::Float32);
  expect_values(summed.to(DType::Float64), {1, 0, 0, 5, 0, 0});
  const Tensor of_ints = bincount(x.to(DType::Int32), on(tensor<int64_t>({1, 2, 3}, IntList{3})));
  EXPECT_EQ(of_ints.dtype(), DType::Float64);  // weights other than float32 sum in float64
  expect_values(of_ints, {1, 0, 0, 5});
  const Tensor empty = bincount(on(zeros({0}, DType::Int64)), on(zeros({2})), 3);
  EXPECT_EQ(empty.dtype(), DType::Int64);  // empty: minlength zeros, weights unchecked
  EXPECT_EQ(values<int64_t>(empty.cpu()), (std::vector<int64_t>{0, 0, 0}));
  if (GetParam().is_lazy()) {
    const Tensor cpu_weights = tensor<double>({1, 2, 3}, IntList{3});
    EXPECT_NE(testing::message_of<ShapeError>([&] { bincount(x, cpu_weights); })
                  .find("expected weights on the input's device, got cpu and lazy:0"),
              std::string::npos);
  }
  const auto error = [&](const Tensor& t, std::optional<Tensor> weights, int64_t minlength) {
    return testing::message_of<ShapeError>([&] {
      bincount(on(t), weights ? std::optional(on(*weights)) : std::nullopt, minlength);
    });
  };
  const std::string inputs = "bincount only supports 1-d non-negative integral inputs.";
  EXPECT_NE(
      error(tensor<int64_t>({-1}, IntList{1}), {}, 0).find(inputs + " (its smallest value is -1)"),
      std::string::npos);
  EXPECT_NE(error(tensor<int64_t>({1}, IntList{1, 1}), {}, 0).find(inputs + " (got [1, 1])"),
            std::string::npos);
  EXPECT_NE(error(tensor<double>({1}, IntList{1}), {}, 0).find(inputs + " (got float64)"),
            std::string::npos);
  EXPECT_NE(error(tensor<int64_t>({1}, IntList{1}), {}, -1).find("minlength should be >= 0"),
            std::string::npos);
  EXPECT_NE(error(tensor<int64_t>({1, 2}, IntList{2}), zeros({1}), 0)
                .find("weights should be 1-d and have the same length as input"),
            std::string::npos);
}

TEST_P(Composites, UniqueMatchesPyTorch) {
  const auto expect_unique = [](const std::tuple<Tensor, Tensor, Tensor>& got,
                                const std::vector<double>& v, const std::vector<int64_t>& inverse,
                                const std::vector<int64_t>& counts) {
    expect_values(std::get<0>(got).to(DType::Float64), v);
    EXPECT_EQ(values<int64_t>(std::get<1>(got).cpu()), inverse);
    EXPECT_EQ(values<int64_t>(std::get<2>(got).cpu()), counts);
  };
  const Tensor x = on(tensor<int64_t>({3, 1, 2, 3, 1, 1}, IntList{6}));
  expect_unique(unique(x, true, true, true), {1, 2, 3}, {2, 0, 1, 2, 0, 0}, {3, 1, 2});
  expect_unique(unique(x), {1, 2, 3}, {}, {});  // not asked: empty, as PyTorch's _unique2
  const auto matrix = unique(on(tensor<double>({3, 1, 1, 3}, IntList{2, 2})), true, true, true);
  EXPECT_EQ(std::get<1>(matrix).sizes(), (IntList{2, 2}));  // the inverse is shaped like self
  expect_unique(matrix, {1, 3}, {1, 0, 0, 1}, {2, 2});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto nans = unique(on(tensor<double>({2, nan, 1, nan}, IntList{4})), true, false, true);
  const std::vector<double> got = values<double>(std::get<0>(nans).cpu());
  ASSERT_EQ(got.size(), 4u);  // each NaN its own value, after the numbers
  EXPECT_EQ(got[0], 1);
  EXPECT_EQ(got[1], 2);
  EXPECT_TRUE(std::isnan(got[2]) && std::isnan(got[3]));
  EXPECT_EQ(values<int64_t>(std::get<2>(nans).cpu()), (std::vector<int64_t>{1, 1, 1, 1}));
  expect_unique(unique(on(tensor<bool>({true, false, true}, IntList{3})), true, true, true), {0, 1},
                {1, 0, 1}, {1, 2});
  expect_unique(unique(on(zeros({0})), true, true, true), {}, {}, {});

  const Tensor pairs = on(tensor<int64_t>({1, 2, 1, 2, 0, 5}, IntList{3, 2}));
  const auto rows = unique(pairs, true, true, true, 0);
  EXPECT_EQ(std::get<0>(rows).sizes(), (IntList{2, 2}));
  expect_unique(rows, {0, 5, 1, 2}, {1, 1, 0}, {1, 2});
  const auto columns = unique(pairs, true, true, true, -1);
  EXPECT_EQ(std::get<0>(columns).sizes(), (IntList{3, 2}));
  expect_unique(columns, {1, 2, 1, 2, 0, 5}, {0, 1}, {1, 1});
  EXPECT_EQ(std::get<0>(unique(on(zeros({0, 3})), true, true, true, 0)).sizes(), (IntList{0, 3}));

  const Tensor runs = on(tensor<int64_t>({1, 1, 2, 2, 3, 1, 1}, IntList{7}));
  expect_unique(unique_consecutive(runs, true, true), {1, 2, 3, 1}, {0, 0, 1, 1, 2, 3, 3},
                {2, 2, 1, 2});
  expect_unique(unique_consecutive(pairs, true, true, 0), {1, 2, 0, 5}, {0, 0, 1}, {2, 1});

  const auto error = [&](const Tensor& t, int64_t dim) {
    return testing::message_of<ShapeError>([&] { unique(on(t), true, false, false, dim); });
  };
  EXPECT_NE(error(zeros({0, 3}), 1).find("There are 0 sized dimensions, and they aren't selected"),
            std::string::npos);
  EXPECT_NE(error(zeros({0, 0}), 1).find("Number of zero sized dimensions is more than one"),
            std::string::npos);
  EXPECT_NE(error(zeros({}), 0).find("Dimension specified as 0 but tensor has no dimensions"),
            std::string::npos);
}

TEST_P(Composites, MembershipAndIndexingMatchPyTorch) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto bools = [](const Tensor& t) { return values<int64_t>(t.to(DType::Int64).cpu()); };
  const Tensor ints = on(tensor<int64_t>({1, 2, 3, 4}, IntList{4}));
  EXPECT_EQ(bools(isin(ints, on(tensor<int64_t>({2, 4, 9}, IntList{3})))),
            (std::vector<int64_t>{0, 1, 0, 1}));
  EXPECT_EQ(bools(isin(ints, on(tensor<double>({1.5, 2}, IntList{2})), true)),
            (std::vector<int64_t>{1, 0, 1, 1}));  // compared as float64, inverted
  EXPECT_EQ(bools(isin(on(tensor<double>({1, nan, -0.0}, IntList{3})),
                       on(tensor<double>({nan, 1, 0}, IntList{3})))),
            (std::vector<int64_t>{1, 0, 1}));  // NaN equals nothing; -0 equals 0
  EXPECT_EQ(bools(isin(ints, on(zeros({0}, DType::Int64)))), (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_TRUE(equal(on(tensor<int64_t>({1}, IntList{1})), on(tensor<double>({1}, IntList{1}))));
  EXPECT_FALSE(equal(on(zeros({2, 3})), on(zeros({3, 2}))));
  EXPECT_FALSE(equal(on(tensor<double>({nan}, IntList{1})), on(tensor<double>({nan}, IntList{1}))));

  const Tensor grid = on(tensor<double>({0, 1, 2, 3, 4, 5}, IntList{2, 3}));
  const Tensor taken = take(grid, on(tensor<int64_t>({-1, 0, 5, 2}, IntList{2, 2})));
  EXPECT_EQ(taken.sizes(), (IntList{2, 2}));
  expect_values(taken, {5, 0, 5, 2});
  const Tensor rows = on(tensor<int64_t>({2, 0}, IntList{2}));
  const Tensor blank = on(zeros({3, 2}, DType::Float64));
  expect_values(index_copy(blank, 0, rows, on(ones({2, 2}, DType::Float64))), {1, 1, 0, 0, 1, 1});
  EXPECT_NE(testing::message_of<ShapeError>([&] {
              index_copy(grid, 1, rows, on(zeros({2, 1}, DType::Float64)));
            }).find("Source/destination tensor must have same slice shapes"),
            std::string::npos);
  expect_values(
      put(grid, on(tensor<int64_t>({-1, 0}, IntList{2})), on(tensor<double>({7, 8}, IntList{2}))),
      {8, 1, 2, 3, 4, 7});
  expect_values(put(grid, on(tensor<int64_t>({1, 1}, IntList{2})),
                    on(tensor<double>({7, 8}, IntList{2})), true),
                {0, 16, 2, 3, 4, 5});
  EXPECT_NE(
      testing::message_of<ShapeError>([&] {
        put(grid, on(tensor<int64_t>({1}, IntList{1})), on(tensor<double>({7, 8}, IntList{2})));
      }).find("put_(): Expected source and index to have the same number of elements"),
      std::string::npos);
  EXPECT_NE(testing::message_of<ShapeError>([&] {
              put(grid, on(tensor<int32_t>({1}, IntList{1})), on(tensor<double>({7}, IntList{1})));
            }).find("put_(): Expected a long tensor for index"),
            std::string::npos);
  EXPECT_EQ(values<int64_t>(repeat_interleave(on(tensor<int64_t>({2, 0, 3}, IntList{3}))).cpu()),
            (std::vector<int64_t>{0, 0, 2, 2, 2}));
  EXPECT_NE(testing::message_of<ShapeError>([&] {
              repeat_interleave(on(tensor<int64_t>({2, -1}, IntList{2})));
            }).find("repeats can not be negative"),
            std::string::npos);
  EXPECT_NE(testing::message_of<ShapeError>([&] {
              repeat_interleave(on(tensor<int64_t>({1, 2}, IntList{2})), 4);
            }).find("allocated size does not match required size"),
            std::string::npos);
}

TEST_P(Composites, NumberPowersRoundingAndAddbmmMatchPyTorch) {
  const Tensor p = pow(Scalar(2), on(tensor<int32_t>({1, 2, 10}, IntList{3})));
  EXPECT_EQ(p.dtype(), DType::Int32);  // an integer base keeps the exponent's dtype
  expect_values(p.to(DType::Float64), {2, 4, 1024});
  EXPECT_EQ(pow(Scalar(2), on(tensor<bool>({true, false}, IntList{2}))).dtype(), DType::Int64);
  const Tensor f = pow(Scalar(2.5), on(tensor<int64_t>({1, 2}, IntList{2})));
  EXPECT_EQ(f.dtype(), DType::Float32);
  expect_values(f.to(DType::Float64), {2.5, 6.25});
  // PyTorch 1.13's float32 answers: 0.125 * 100 = 12.5 rounds to 12 (half to even); 2.675f * 100
  // rounds to 267.5 in float32, which rounds to 268.
  const Tensor r = round(on(tensor<float>({1.2345f, -2.5f, 125.f, 0.125f, 2.675f}, IntList{5})), 2);
  EXPECT_EQ(values<float>(r.cpu()), (std::vector<float>{1.23f, -2.5f, 125.f, 0.12f, 2.68f}));
  expect_values(round(on(tensor<double>({125, 135, -155}, IntList{3})), -1), {120, 140, -160});
  const Tensor b1 = on(ones({3, 2, 4}, DType::Float64)), b2 = on(ones({3, 4, 2}, DType::Float64));
  expect_values(addbmm(on(tensor<double>({0, 1, 2, 3}, IntList{2, 2})), b1, b2, 0.5, 2),
                {24, 24.5, 25, 25.5});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_values(addbmm(on(tensor<double>({nan}, IntList{1})), b1, b2, 0),
                {12, 12, 12, 12});  // beta = 0 ignores self's NaN
}

TEST_P(Composites, ScatterKeepsTheLastWriteOfARepeatedIndexAsPyTorch) {
  const Tensor values = on(tensor<double>({5, 7, 9}, IntList{3}));
  expect_values(scatter(on(zeros({3}, DType::Float64)), 0, on(tensor<int64_t>({1, 1, 0}, IntList{3})),
                        values),
                {9, 7, 0});
  expect_values(index_copy(on(zeros({4}, DType::Float64)), 0,
                           on(tensor<int64_t>({2, 2}, IntList{2})), narrow(values, 0, 0, 2)),
                {0, 0, 7, 0});
  // src larger than index: only the part index covers is read.
  expect_values(scatter(on(zeros({2, 2}, DType::Float64)), 1,
                        on(tensor<int64_t>({1, 0}, IntList{2, 1})),
                        on(tensor<double>({1, 2, 3, 4, 5, 6}, IntList{2, 3}))),
                {0, 1, 4, 0});
}

TEST_P(Composites, RenormCapsSliceNormsAsPyTorch) {
  const Tensor x = on(tensor<double>({3, 4, 0.3, 0.4, 6, 8}, IntList{3, 2}));
  // Rows of norm 5 and 10 scaled by 1 / (norm + 1e-7); the row of norm 0.5 kept.
  expect_values(renorm(x, 2, 0, 1.0), {3 / (5 + 1e-7), 4 / (5 + 1e-7), 0.3, 0.4, 6 / (10 + 1e-7),
                                       8 / (10 + 1e-7)});
  const Tensor capped = embedding_renorm(x, on(tensor<int64_t>({0, 2, 2}, IntList{3})), 1.0, 2.0);
  expect_values(capped, {3 / (5 + 1e-7), 4 / (5 + 1e-7), 0.3, 0.4, 6 / (10 + 1e-7),
                         8 / (10 + 1e-7)});  // row 2, named twice, capped once
  EXPECT_NE(testing::message_of<ShapeError>([&] { renorm(x, 0, 0, 1.0); })
                .find("renorm: non-positive-norm not supported"),
            std::string::npos);
  EXPECT_NE(testing::message_of<ShapeError>([&] { renorm(x, 2, 0, -1.0); })
                .find("renorm: expected maxnorm to be >= 0 but got -1"),
            std::string::npos);
}

TEST_P(Linalg, SolvesAndFactorizationsMatchPyTorch) {
  const Tensor a = on(tensor<double>({4, 1, 2, 1, -3, 0, 2, 1, 5}, IntList{3, 3}));
  const Tensor b = on(tensor<double>({1, 2, 3, 4, 5, 6}, IntList{3, 2}));
  const auto [x, lu, pivots, info] = linalg_solve_ex(a, b);
  expect_values(x, {-0.11764705882352938, 0.11764705882352955, -1.0392156862745099,
                    -1.2941176470588238, 1.2549019607843137, 1.4117647058823528});
  EXPECT_EQ(values<int32_t>(info.cpu()), (std::vector<int32_t>{0}));
  expect_values(std::get<0>(linalg_solve_ex(a, select(b, 1, 0))),
                {-0.11764705882352938, -1.0392156862745099, 1.2549019607843137});  // a vector B
  expect_values(std::get<0>(linalg_solve_ex(a, t(b), false)),
                {-0.09803921568627444, -0.6862745098039216, 1.0392156862745097, 0.15686274509803927,
                 -0.9019607843137256, 1.1372549019607843});
  expect_values(linalg_solve_triangular(a, b, true),
                {0.0, 0.23333333333333323, -1.0, -1.3333333333333333, 1.0, 1.2000000000000002});
  expect_values(linalg_solve_triangular(a, t(b), false, false, true), {-7, -2, 5, -8, -2, 6});
  const Tensor s = on(tensor<double>({22, 1, 19, 1, 11, -1, 19, -1, 31}, IntList{3, 3}));
  const auto [l, ok] = linalg_cholesky_ex(s);
  expect_values(l, {4.69041575982343, 0, 0, 0.21320071635561041, 3.309765166072278, 0,
                    4.050813610756598, -0.5630720821948688, 3.778076087264764});
  EXPECT_EQ(values<int32_t>(ok.cpu()), (std::vector<int32_t>{0}));
  expect_values(std::get<0>(linalg_cholesky_ex(s, true)),
                {4.69041575982343, 0.21320071635561041, 4.050813610756598, 0, 3.309765166072278,
                 -0.5630720821948688, 0, 0, 3.778076087264764});
  const Tensor not_definite = s * on(tensor<double>({1, 1, 1, 1, -1, 1, 1, 1, 1}, IntList{3, 3}));
  EXPECT_EQ(values<int32_t>(std::get<1>(linalg_cholesky_ex(not_definite)).cpu()),
            (std::vector<int32_t>{2}));
  expect_values(cholesky_solve(b, l), {-0.24999999999999994, -0.2267441860465116, 0.325,
                                       0.4156976744186046, 0.325, 0.34593023255813954});
  expect_values(cholesky_inverse(l),
                {0.09883720930232553, -0.014534883720930225, -0.06104651162790695,
                 -0.014534883720930225, 0.09331395348837208, 0.011918604651162788,
                 -0.06104651162790695, 0.011918604651162788, 0.07005813953488371});
  EXPECT_NE(testing::message_of<ShapeError>([&] { linalg_solve_triangular(a, t(b), true); })
                .find("linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                      "AX = B (3x3 and 2x3)"),
            std::string::npos);
  EXPECT_THROW(linalg_cholesky_ex(b), ShapeError);  // not square
}

// Note [Traced casts]: on the lazy device Tensor::to(DType) is traced; on both devices it casts
// as C++ does and records no gradient.
TEST_P(Composites, DtypeConversionIsTracedAndRecordsNoGradient) {
  const Tensor a = on(tensor<double>({1.75, -2.5, 0, 3}, IntList{2, 2})).detach().requires_grad_();
  const int64_t syncs = metrics::counter_value("exec.sync");
  const Tensor i = (a * 2.0).to(DType::Int32);
  const Tensor b = i.to(DType::Bool);
  const Tensor f = a.to(DType::Float32);
  EXPECT_EQ(metrics::counter_value("exec.sync"), syncs);
  EXPECT_EQ(i.dtype(), DType::Int32);
  EXPECT_EQ(values<int32_t>(i.cpu()), (std::vector<int32_t>{3, -5, 0, 6}));  // truncated
  EXPECT_EQ(values<bool>(b.cpu()), (std::vector<bool>{true, true, false, true}));
  EXPECT_EQ(f.dtype(), DType::Float32);
  EXPECT_FALSE(f.requires_grad());
  // The solve path casts its pivots: no sync before the result is read.
  const Tensor m = on(tensor<double>({4, 1, 2, 1, -3, 0, 2, 1, 5}, IntList{3, 3}));
  const int64_t before = metrics::counter_value("exec.sync");
  const Tensor x = std::get<0>(linalg_solve_ex(m, on(tensor<double>({1, 2, 3}, IntList{3}))));
  EXPECT_EQ(metrics::counter_value("exec.sync"), before);
  expect_values(x, {0.05882352941176472, -0.6470588235294117, 0.7058823529411764});
}

TEST_P(Composites, MarginLossesMatchPyTorch) {
  const Tensor x = on(tensor<double>({0.5, -1, 2, 0.25, 1, 1.5, -0.5, 0}, IntList{2, 4}));
  const Tensor y = on(tensor<int64_t>({2, 0}, IntList{2}));
  expect_values(multi_margin_loss(x, y, 1, 1, std::nullopt, 0), {0.0, 0.375});
  const Tensor w = on(tensor<double>({1, 2, 0.5, 3}, IntList{4}));
  expect_values(multi_margin_loss(x, y, 2, 1.5, w), {0.53125});
  expect_values(multi_margin_loss_backward(on(tensor<double>({1}, IntList{})), x, y, 2, 1.5, w, 1),
                {0, 0, 0, 0, -0.625, 0.5, 0, 0.125});
  const Tensor labels = on(tensor<int64_t>({3, 0, -1, 1, 1, 1, 2, -1}, IntList{2, 4}));
  const auto [loss, is_target] = multilabel_margin_loss_forward(x, labels, 2);
  expect_values(loss, {2.5625});
  expect_values(is_target, {1, 0, 0, 1, 0, 1, 1, 0});  // row 0 stops at its -1
  expect_values(
      multilabel_margin_loss_backward(on(tensor<double>({1}, IntList{})), x, labels, 2, is_target),
      {-0.25, 0, 0.5, -0.25, 0.75, -0.5, -0.5, 0.25});  // a repeated target counts twice
  EXPECT_THROW(multi_margin_loss(x, y, 3, 1), ShapeError);
  EXPECT_THROW(multilabel_margin_loss_forward(x, select(labels, 0, 0), 1), ShapeError);
}

TEST_P(Composites, UnpoolingIndexReduceAndTrilinearMatchPyTorch) {
  const Tensor v = on(tensor<double>({4, 6, 12, 14}, IntList{1, 1, 2, 2}));
  const Tensor i = on(tensor<int64_t>({4, 6, 12, 14}, IntList{1, 1, 2, 2}));
  expect_values(max_unpool2d(v, i, {4, 4}), {0, 0, 0, 0, 4, 0, 6, 0, 0, 0, 0, 0, 12, 0, 14, 0});
  EXPECT_THROW(max_unpool2d(v, i, {4}), ShapeError);
  const Tensor ones3 = on(tensor<double>({1, 1, 1, 1, 1, 1}, IntList{3, 2}));
  const Tensor src = on(tensor<double>({2, 3, 4, 5, 6, 7}, IntList{3, 2}));
  const Tensor index = on(tensor<int64_t>({0, 2, 0}, IntList{3}));
  expect_values(index_reduce(ones3, 0, index, src, "prod"), {12, 21, 1, 1, 4, 5});
  expect_values(index_reduce(ones3, 0, index, src, "mean", false), {4, 5, 1, 1, 4, 5});
  expect_values(
      index_reduce(ones3, 1, on(tensor<int64_t>({1, 1, 0}, IntList{3})),
                   on(tensor<double>({2, 3, 9, 4, 5, -1, 6, 7, 0}, IntList{3, 3})), "amax"),
      {9, 3, 1, 5, 1, 7});
  EXPECT_THROW(index_reduce(ones3, 0, index, src, "sum"), ShapeError);
  const Tensor a = on(tensor<double>({1, 2, 0.5, -1}, IntList{2, 2}));
  const Tensor b = on(tensor<double>({1, -1, 2, 0.5}, IntList{2, 2}));
  const Tensor weight = on(tensor<double>(
      {-1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75}, IntList{3, 2, 2}));
  expect_values(trilinear(a, weight, b, {1, 3}, {0}, {1, 2}, {2, 3}),
                {-0.75, -0.75, -0.75, -0.0625, -1.3125, -2.5625});  // F.bilinear's product
}

// LAPACK's syevd and gesdd, with PyTorch's answers (its signs: the same LAPACK).
TEST_P(Composites, EighAndSvdMatchPyTorch) {
  const Tensor s = on(tensor<double>({22, 1, 19, 1, 11, -1, 19, -1, 31}, IntList{3, 3}));
  const auto [w, v, info] = linalg_eigh_ex(s);
  expect_values(w, {6.5326423429348175, 11.440963802013906, 46.026393855051296});
  expect_values(v, {-0.7474677027073765, -0.2381131476594713, -0.620156562749324,
                    0.29999182579618777, -0.9539302381893459, 0.004690961893637935,
                    0.5927030773201936, 0.18253555702853197, -0.7844640415949331});
  EXPECT_EQ(values<int32_t>(info.cpu()), (std::vector<int32_t>{0}));
  // Only the lower triangle is read (upper: only the upper one).
  const Tensor upper_part = on(tensor<double>({1, 5, 5, 0, 1, 5, 0, 0, 1}, IntList{3, 3}));
  expect_values(std::get<0>(linalg_eigh_ex(s * upper_part)), {11, 22, 31});
  expect_values(std::get<0>(linalg_eigh_ex(s * t(upper_part), true)), {11, 22, 31});
  EXPECT_EQ(std::get<1>(linalg_eigh_ex(s, false, false)).sizes(), IntList{0});
  const auto [U, S, Vh, ok] = linalg_svd_ex(on(x()), false);
  expect_values(
      U, {-0.8253624237736258, -0.5646032849909092, -0.5646032849909091, 0.8253624237736257});
  expect_values(S, {10.039074648072399, 2.0535287215985285});
  expect_values(
      Vh, {-0.082214990196542, -0.10818940994376296, -0.4975816721341314, -0.8567077836223997,
           -0.2749429696563508, -0.9518099129550762, 0.10600004230171986, 0.08501908061741609});
  EXPECT_EQ(values<int32_t>(ok.cpu()), (std::vector<int32_t>{0}));
  const Tensor full = std::get<2>(linalg_svd_ex(on(x())));
  EXPECT_EQ(full.sizes(), (IntList{4, 4}));
  expect_values(narrow(full, 0, 2, 1), {-0.47476054726003597, 0.18397409751160948,
                                        0.7537569213971816, -0.41545933333598706});
  // Batches, no elements: no singular values, and identities when full.
  const auto [u0, s0, vh0, i0] = linalg_svd_ex(on(zeros({2, 3, 0}, DType::Float64)));
  EXPECT_EQ(s0.sizes(), (IntList{2, 0}));
  expect_values(sum(u0, std::vector<int64_t>{0}), {2, 0, 0, 0, 2, 0, 0, 0, 2});
  EXPECT_EQ(vh0.sizes(), (IntList{2, 0, 0}));
  EXPECT_THROW(linalg_eigh_ex(on(x())), ShapeError);                     // not square
  EXPECT_THROW(linalg_svd_ex(on(arange(4, DType::Int64))), ShapeError);  // one dim, integers
  // No derivative: refused, never a missing gradient.
  const Tensor leaf = on(x()).detach().requires_grad_();
  EXPECT_EQ(testing::message_of<std::runtime_error>([&] { linalg_svd_ex(leaf); }),
            "the derivative for '_lapack_gesdd' is not implemented");
}

// torch.linalg.lstsq by each of LAPACK's drivers: PyTorch's solutions, residuals, ranks and
// singular values, its vector case and its shapes for broadcast batches.
TEST_P(Composites, LstsqMatchesPyTorch) {
  const Tensor A = on(t(x())), B = on(t(w()));  // [4, 2] and [4, 2]: overdetermined
  const std::vector<double> solution = {0.16470588235294112, 0.3235294117647059,
                                        -0.011764705882352882, -0.35882352941176476};
  for (const char* driver : {"gels", "gelsy", "gelsd", "gelss"}) {
    SCOPED_TRACE(driver);
    const auto [X, residuals, rank, S, info] = linalg_lstsq_ex(A, B, std::nullopt, driver);
    expect_values(X, solution);
    const std::string_view name = driver;
    if (name == "gelsy") {
      EXPECT_EQ(residuals.sizes(), IntList{0});
    } else {
      expect_values(residuals, {4.270588235294118, 0.8647058823529412});
    }
    if (name == "gels") {
      EXPECT_EQ(rank.sizes(), IntList{0});
    } else {
      EXPECT_EQ(rank.dtype(), DType::Int64);
      EXPECT_EQ(values<int64_t>(rank.cpu()), (std::vector<int64_t>{2}));
    }
    if (name == "gelsd" || name == "gelss") {
      expect_values(S, {10.039074648072399, 2.0535287215985285});
    } else {
      EXPECT_EQ(S.sizes(), IntList{0});
    }
    EXPECT_EQ(values<int32_t>(info.cpu()), (std::vector<int32_t>{0}));
  }
  // Underdetermined, a vector right-hand side: the least-norm solution.
  const Tensor b = on(tensor<double>({1, 2}, IntList{2}));
  const auto [wide, r0, rank0, s0, i0] = linalg_lstsq_ex(on(x()), b);
  expect_values(
      wide, {-0.12941176470588234, -0.4823529411764707, 0.15294117647058825, 0.21176470588235294});
  EXPECT_EQ(r0.sizes(), IntList{0});
  EXPECT_EQ(rank0.sizes(), IntList{});
  // Rank-deficient: the rank, no residuals, and gels's info.
  const Tensor D = on(tensor<double>({1, 2, 2, 4, 3, 6}, IntList{3, 2}));
  const Tensor c = on(tensor<double>({1, 0, 1}, IntList{3, 1}));
  const auto [xd, rd, rankd, sd, id] = linalg_lstsq_ex(D, c, std::nullopt, "gelsd");
  expect_values(xd, {0.057142857142857134, 0.1142857142857143});
  EXPECT_EQ(values<int64_t>(rankd.cpu()), (std::vector<int64_t>{1}));
  EXPECT_EQ(rd.sizes(), IntList{0});
  const Tensor Z = on(tensor<double>({1, 0, 2, 0, 3, 0}, IntList{3, 2}));  // R's diagonal has a 0
  EXPECT_EQ(values<int32_t>(std::get<4>(linalg_lstsq_ex(Z, c, std::nullopt, "gels")).cpu()),
            (std::vector<int32_t>{2}));
  // Batches broadcast; rank and singular values keep A's batch dims, residuals the broadcast's.
  const Tensor A1 = reshape(A, {1, 4, 2});
  const Tensor B3 = expand(reshape(B, {1, 4, 2}), {3, 4, 2});
  const auto [xb, rb, rankb, sb, ib] = linalg_lstsq_ex(A1, B3, std::nullopt, "gelsd");
  EXPECT_EQ(xb.sizes(), (IntList{3, 2, 2}));
  EXPECT_EQ(rb.sizes(), (IntList{3, 2}));
  EXPECT_EQ(rankb.sizes(), IntList{1});
  EXPECT_EQ(sb.sizes(), (IntList{1, 2}));
  EXPECT_EQ(ib.sizes(), IntList{3});
  // No columns: rank and singular values are still A's; no elements: zeros of rank 0.
  const auto [x0, r00, rank00, s00, i00] =
      linalg_lstsq_ex(A, on(zeros({4, 0}, DType::Float64)), std::nullopt, "gelsd");
  EXPECT_EQ(x0.sizes(), (IntList{2, 0}));
  EXPECT_EQ(values<int64_t>(rank00.cpu()), (std::vector<int64_t>{2}));
  expect_values(s00, {10.039074648072399, 2.0535287215985285});
  const auto [xe, re, ranke, se, ie] =
      linalg_lstsq_ex(on(zeros({0, 3}, DType::Float64)), on(zeros({0, 2}, DType::Float64)));
  expect_values(xe, {0, 0, 0, 0, 0, 0});
  EXPECT_EQ(values<int64_t>(ranke.cpu()), (std::vector<int64_t>{0}));
  // PyTorch's argument errors.
  auto message = [&](const Tensor& a, const Tensor& rhs, const char* driver) {
    return testing::message_of<ShapeError>([&] { linalg_lstsq_ex(a, rhs, std::nullopt, driver); });
  };
  EXPECT_EQ(message(A, B, "lu"),
            "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  EXPECT_EQ(message(A, on(zeros({3, 2}, DType::Float64)), "gelsy"),
            "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
  EXPECT_EQ(message(A, on(zeros({2, 4, 2}, DType::Float64)), "gelsy"),
            "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
            "(input.dim() - other.dim()) <= 1");
  EXPECT_EQ(message(A, B.to(DType::Float32), "gelsy"),
            "torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
            "input's dtype float64 and other's dtype float32");
  // No derivative: refused, never a missing gradient.
  const Tensor leaf = A.detach().requires_grad_();
  EXPECT_EQ(testing::message_of<std::runtime_error>([&] { linalg_lstsq_ex(leaf, B); }),
            "the derivative for '_lapack_gels' is not implemented");
}

// torch.linalg.matrix_exp against the exact values (mpmath, 30 digits; PyTorch 1.13's agree to
// 5e-12), with and without squarings, per matrix of a batch.
TEST_P(Composites, MatrixExpMatchesTheExactValues) {
  const Tensor A = on(tensor<double>({0.5, -1, 2, 0.25, 0, 1, -3, 1, 0.5}, IntList{3, 3}));
  expect_values(linalg_matrix_exp(A),
                {-1.1125944354586664, 0.4655027900981459, 0.8970755685315865, -1.2589264154794604,
                 1.862278682682224, 0.67704792785677804, -1.9168887117748417, 1.819598645811702,
                 -0.54131907648120442},
                1e-14);
  const Tensor batch = linalg_matrix_exp(stack({A * 0.01, A * 10.0}));  // no squaring, and 6
  expect_values(narrow(batch, 0, 0, 1),
                {1.0046990745913736, -0.0099238351880617477, 0.020048329519990516,
                 0.0023555468320985489, 1.0000381457131433, 0.010049247152978636,
                 -0.030135200262444218, 0.010174659117895524, 1.0047617805738321},
                1e-15);
  const std::vector<double> big = values<double>(narrow(batch, 0, 1, 1).cpu());
  const std::vector<double> want = {-73.744307703697062, 139.75850953774231, 8.5655886249323041,
                                    -214.99125719719615, 428.25885861579947, 40.293120275018267,
                                    -102.87419784377874, 220.34475008777884, 16.281507202683226};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(big[i], want[i], 1e-13 * 428) << i;
  // Overflow stays where it is; no elements: nothing to do.
  const std::vector<double> huge =
      values<double>(linalg_matrix_exp(on(tensor<double>({1e3, 0, 0, 1}, IntList{2, 2}))).cpu());
  EXPECT_EQ(huge[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(huge[1], 0);
  EXPECT_NEAR(huge[3], std::exp(1.0), 1e-11);
  EXPECT_EQ(linalg_matrix_exp(on(zeros({2, 0, 0}, DType::Float64))).sizes(), (IntList{2, 0, 0}));
  EXPECT_EQ(testing::message_of<ShapeError>([&] { linalg_matrix_exp(on(x())); }),
            "linalg.matrix_exp: A must be batches of square matrices, but they are 2 by 4 "
            "matrices");
  EXPECT_THROW(linalg_matrix_exp(on(arange(4, DType::Int64))), ShapeError);
}

// Rectangular LU: LAPACK's only (the unrolled LU takes square matrices); lu_unpack unpacks either.
TEST_P(Linalg, RectangularLuMatchesPyTorchWhereLapackRuns) {
  const Tensor wide = on(x());  // [2, 4]
  if (!GetParam().lapack) {
    EXPECT_THROW(lu_factor(wide), ShapeError);
    return;
  }
  const auto [lu, pivots] = lu_factor(wide);
  expect_values(lu, {1, 2, 4, 7, 0, -1, 3, 5});
  EXPECT_EQ(values<int32_t>(pivots.cpu()), (std::vector<int32_t>{1, 2}));
  const auto [lu_t, pivots_t, info] = lu_factor_ex(t(wide));  // [4, 2]
  const auto [P, L, U] = lu_unpack(lu_t, pivots_t);
  expect_values(P, {0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0});
  expect_values(L, {1.0, 0.0, 0.2857142857142857, 1.0, 0.5714285714285714, -0.058823529411764865,
                    0.14285714285714285, 0.29411764705882354});
  expect_values(U, {7.0, 5.0, 0.0, -2.4285714285714284});
  EXPECT_EQ(values<int32_t>(info.cpu()), (std::vector<int32_t>{0}));
}

// On the lazy device (whose backend runs on the cpu) a factorization without gradients is one
// LAPACK node; with a gradient, or with LAPACK off, it is unrolled, and the gradient flows.
TEST_P(Linalg, HouseholderQrMatchesPyTorchsSigns) {
  const Tensor m = on(tensor<double>({1, 2, 3, 4, 5, -6}, IntList{3, 2}));
  const auto [q, r] = linalg_qr(m);
  expect_values(q, {-0.16903085094570325, -0.35215157397487895, -0.50709255283711,
                    -0.7698197198520607, -0.8451542547285166, 0.5323221467062123});
  expect_values(r, {-5.916079783099616, 2.704493615131253, 0.0, -6.977514907595274});
  const auto [qc, rc] = linalg_qr(m, "complete");
  expect_values(qc, {-0.16903085094570325, -0.35215157397487895, -0.9205530079118673,
                     -0.50709255283711, -0.7698197198520607, 0.38760126648920756,
                     -0.8451542547285166, 0.5323221467062123, -0.04845015831115096});
  EXPECT_EQ(rc.sizes(), (std::vector<int64_t>{3, 2}));
  const auto [qw, rw] = linalg_qr(t(m));  // wide
  expect_values(
      qw, {-0.44721359549995787, -0.8944271909999157, -0.8944271909999157, 0.4472135954999581});
  expect_values(rw, {-2.23606797749979, -4.919349550499537, 3.1304951684997047, 0.0,
                     -0.8944271909999149, -7.155417527999328});
  EXPECT_EQ(std::get<0>(linalg_qr(m, "r")).numel(), 0);
  // A column already zero below its diagonal is not reflected: R keeps its entry and sign.
  const auto [qi, ri] = linalg_qr(on(tensor<double>({-2, 1, 0, 2}, IntList{2, 2})));
  expect_values(qi, {1, 0, 0, 1});
  expect_values(ri, {-2, 1, 0, 2});
  EXPECT_NE(testing::message_of<ShapeError>([&] {
              linalg_qr(m, "bad");
            }).find("qr received unrecognized mode 'bad'"),
            std::string::npos);
  // A batch, and matrices without rows or columns.
  const auto [qb, rb] =
      linalg_qr(on(expand(tensor<double>({1, 2, 3, 4, 5, -6}, IntList{1, 3, 2}), IntList{2, 3, 2})
                       .contiguous()));
  EXPECT_EQ(qb.sizes(), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_EQ(values<double>(narrow(rb, 0, 1, 1).contiguous().cpu()), values<double>(r.cpu()));
  const auto [qe, re] = linalg_qr(on(zeros({0, 3}, DType::Float64)), "complete");
  EXPECT_EQ(qe.sizes(), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(re.sizes(), (std::vector<int64_t>{0, 3}));
  const auto [qz, rz] = linalg_qr(on(zeros({3, 0}, DType::Float64)), "complete");
  expect_values(qz, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  EXPECT_EQ(rz.sizes(), (std::vector<int64_t>{3, 0}));
}

TEST(LinalgForms, TheLazyDeviceTracesOneLapackNodeUnlessAGradientIsNeeded) {
  const Tensor a = tensor<double>({4, 1, 2, 1, -3, 0, 2, 1, 5}, IntList{3, 3});
  auto traced = [](const char* op) { return metrics::counter_value(std::string("lazy.op.") + op); };
  const int64_t getrf = traced("_lapack_getrf"), argmax = traced("argmax");
  const auto [lu, pivots] = lu_factor(a.to(kLazy));
  EXPECT_EQ(traced("_lapack_getrf"), getrf + 1);
  EXPECT_EQ(traced("argmax"), argmax);
  const Tensor leaf = a.to(kLazy).detach().requires_grad_();
  const auto [sign, logabsdet] = slogdet(leaf);
  EXPECT_EQ(traced("_lapack_getrf"), getrf + 1);
  EXPECT_EQ(traced("argmax"), argmax + 3);  // one pivot choice per column
  logabsdet.backward();
  ASSERT_TRUE(leaf.grad().defined());  // d log|det A| / dA = A^-T
  std::vector<double> want = values<double>(t(std::get<0>(linalg_inv_ex(a))).contiguous());
  std::vector<double> got = values<double>(leaf.grad().cpu());
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
  set_lapack_enabled(false);
  const int64_t potrf = traced("_lapack_potrf"), trsm = traced("_lapack_trsm");
  linalg_cholesky_ex(a.matmul(t(a)).to(kLazy));
  linalg_solve_triangular(a.to(kLazy), a.to(kLazy), true);
  set_lapack_enabled(true);
  EXPECT_EQ(traced("_lapack_potrf"), potrf);
  EXPECT_EQ(traced("_lapack_trsm"), trsm);
  linalg_cholesky_ex(a.matmul(t(a)).to(kLazy));
  linalg_solve_triangular(a.to(kLazy), a.to(kLazy), true);
  EXPECT_EQ(traced("_lapack_potrf"), potrf + 1);
  EXPECT_EQ(traced("_lapack_trsm"), trsm + 1);
  const int64_t geqrf = traced("_lapack_geqrf"), hypot = traced("hypot");
  linalg_qr(a.to(kLazy));
  EXPECT_EQ(traced("_lapack_geqrf"), geqrf + 1);
  EXPECT_EQ(traced("hypot"), hypot);
  linalg_qr(a.to(kLazy).detach().requires_grad_());  // unrolled: one reflection per column
  EXPECT_EQ(traced("_lapack_geqrf"), geqrf + 1);
  EXPECT_EQ(traced("hypot"), hypot + 3);
}

INSTANTIATE_TEST_SUITE_P(Devices, Composites, ::testing::Values(kCPU, kLazy),
                         [](const auto& info) { return info.param.is_lazy() ? "lazy" : "cpu"; });
INSTANTIATE_TEST_SUITE_P(Forms, Linalg,
                         ::testing::Values(LinalgForm{kCPU, true}, LinalgForm{kLazy, true},
                                           LinalgForm{kCPU, false}, LinalgForm{kLazy, false}),
                         [](const auto& info) {
                           return std::string(info.param.device.is_lazy() ? "lazy" : "cpu") +
                                  (info.param.lapack ? "_lapack" : "_unrolled");
                         });

}  // namespace
}  // namespace lazygen
