// Tests for the reduction kernels (ops/cpu/reduce.cpp, arg_reduce.cpp) against naive loops.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/thread_pool.h"
#include "lazygen/factory.h"
#include "ops/cpu/custom_kernels.h"
#include "ops/cpu/reduce_plan.h"
#include "runtime/core/tensor/tensor_testing.h"
#include "runtime/ops/cpu/reference.h"

namespace lazygen::cpu {
namespace {

using testing::values;
using V = std::vector<int64_t>;

double add(double a, double b) {
  return a + b;
}
double maximum(double a, double b) {
  return std::isnan(a) || a > b ? a : b;
}

std::vector<bool> mask_of(size_t rank, const V& dims) {
  std::vector<bool> mask(rank, dims.empty());
  for (int64_t d : dims)
    mask[static_cast<size_t>(d < 0 ? d + static_cast<int64_t>(rank) : d)] = true;
  return mask;
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

// Sums `x` over every subset-ish of dims and compares with the naive loop (keepdim layout).
void check_sums(const Tensor& x, const std::vector<V>& dim_sets) {
  const auto data = values<double>(x);
  for (const V& dims : dim_sets) {
    const Tensor got = sum_dim_intlist(x, dims, true, std::nullopt);
    const auto want = testing::reduce(data, x.sizes(), mask_of(x.dim(), dims), 0.0, add);
    SCOPED_TRACE("dims " + sizes_str(dims) + " of " + sizes_str(x.sizes()));
    expect_near_all(values<double>(got), want, 1e-3);
  }
}

TEST(Reduce, SumMatchesNaiveLoopOverEveryLayout) {
  Generator g(11);
  const std::vector<V> dim_sets = {{}, {0}, {1}, {2}, {0, 1}, {1, 2}, {0, 2}, {-1, 0, 1}};
  Tensor x = randn({5, 6, 7}, g);
  check_sums(x, dim_sets);                            // contiguous: Inner and Outer plans
  check_sums(permute(x, {2, 0, 1}), dim_sets);        // permuted: reordered copies
  check_sums(slice_tensor(x, 2, 1, 7, 2), dim_sets);  // strided inner dim
  check_sums(expand(randn({1, 6, 1}, g), {5, 6, 7}, false), dim_sets);  // stride-0 dims
}

// Runs: the reduced dims end in a contiguous run but include a dim outside the kept ones
// (a convolution's bias gradient, NCHW summed over {0, 2, 3}).
TEST(Reduce, RunsLayoutReadsInPlaceAndMatchesNaiveLoops) {
  Generator g(13);
  const Tensor x = randn({3, 4, 9, 10}, g);
  const auto plan = detail::make_reduce_plan(x, mask_of(4, {0, 2, 3}));
  EXPECT_EQ(plan.kind, detail::ReducePlan::Kind::Runs);
  EXPECT_TRUE(plan.input.is_same(x)) << "read in place, not copied";
  EXPECT_EQ(plan.run, 90);
  EXPECT_EQ(plan.reduce_offsets, (V{0, 360, 720}));
  check_sums(x, {{0, 2, 3}, {0, 3}, {1, 2, 3}, {0, 1, 3}});
  for (const V& dims : std::vector<V>{{0, 2, 3}, {0, 3}}) {
    const auto want =
        testing::reduce(values<double>(x), x.sizes(), mask_of(4, dims), -INFINITY, maximum);
    expect_near_all(values<double>(amax(x, dims, true)), want, 0);
  }
  const Tensor ints = randint(-50, 50, {2, 3, 8, 8}, g);
  const auto want =
      testing::reduce(values<double>(ints), ints.sizes(), mask_of(4, {0, 2, 3}), 0.0, add);
  expect_near_all(values<double>(sum_dim_intlist(ints, V{0, 2, 3}, true, std::nullopt)), want, 0);
  // Runs shorter than kMinRun are Gathered instead.
  EXPECT_EQ(detail::make_reduce_plan(randn({3, 4, 2, 5}, g), mask_of(4, {0, 2, 3})).kind,
            detail::ReducePlan::Kind::Gathered);
}

// Gathered: short runs (batch norm's statistics over NCHW with small planes) are read in place
// and summed as the Inner plan sums the (kept..., reduced...) copy, bit for bit.
TEST(Reduce, GatheredLayoutReadsInPlaceAndSumsLikeTheReorderedCopy) {
  Generator g(17);
  for (const V& sizes : std::vector<V>{{32, 6, 2, 2}, {5, 7, 3, 1}, {9, 4, 1, 1}, {3, 5, 2, 3}}) {
    SCOPED_TRACE(sizes_str(sizes));
    const Tensor x = randn(sizes, g);
    const auto plan = detail::make_reduce_plan(x, mask_of(4, {0, 2, 3}));
    if (sizes[2] * sizes[3] > 1) {
      EXPECT_EQ(plan.kind, detail::ReducePlan::Kind::Gathered);
      EXPECT_TRUE(plan.input.is_same(x)) << "read in place, not copied";
    }
    const Tensor copy = permute(x, {1, 0, 2, 3}).contiguous();
    const Tensor rows = view(copy, {sizes[1], sizes[0] * sizes[2] * sizes[3]});
    expect_near_all(values<double>(sum_dim_intlist(x, V{0, 2, 3}, false, std::nullopt)),
                    values<double>(sum_dim_intlist(rows, V{1}, false, std::nullopt)), 0);
    expect_near_all(values<double>(amax(x, V{0, 2, 3}, false)),
                    values<double>(amax(rows, V{1}, false)), 0);
  }
  // One output over more than a partial's worth is still copied, to be split into partials.
  const Tensor long_rows = permute(randn({3, 1, 100000, 1}, g), {2, 1, 0, 3});
  EXPECT_EQ(detail::make_reduce_plan(long_rows, mask_of(4, {})).kind,
            detail::ReducePlan::Kind::Inner);
}

TEST(Reduce, KeepdimAndDTypes) {
  Tensor x = tensor<int32_t>({1, 2, 3, 4, 5, 6}, IntList{2, 3});
  Tensor s = sum_dim_intlist(x, V{1}, false, std::nullopt);
  EXPECT_EQ(s.dtype(), DType::Int64);
  EXPECT_EQ(s.sizes(), (V{2}));
  EXPECT_EQ(values<int64_t>(s), (std::vector<int64_t>{6, 15}));
  EXPECT_EQ(sum_dim_intlist(x, V{0}, true, std::nullopt).sizes(), (V{1, 3}));
  EXPECT_EQ(sum(x, DType::Float64).dtype(), DType::Float64);
  EXPECT_EQ(sum(x, DType::Float64).item<double>(), 21.0);
  EXPECT_EQ(sum(tensor({true, true, false}), std::nullopt).item<int64_t>(), 2);
  EXPECT_EQ(sum(tensor({1.5f, 2.5f}), DType::Int32).item<int32_t>(), 3);  // converts first
  EXPECT_EQ(sum(empty({0, 3}), std::nullopt).item<float>(), 0.0f);
  EXPECT_EQ(sum(scalar_tensor(2.5), std::nullopt).item<float>(), 2.5f);
}

TEST(Reduce, LargeFloatSumsAreAccurateAndThreadCountIndependent) {
  const int64_t n = 3'000'001;
  Tensor x = full({n}, 0.1f);
  const double want = static_cast<double>(0.1f) * n;
  EXPECT_NEAR(sum(x, std::nullopt).item<double>(), want, want * 1e-6);
  Generator g(2);
  Tensor r = randn({1000, 999}, g);
  const auto two_threads = values<float>(sum_dim_intlist(r, V{0}, false, std::nullopt));
  const int threads = num_threads();
  set_num_threads(1);
  const auto one_thread = values<float>(sum_dim_intlist(r, V{0}, false, std::nullopt));
  const float total_one = sum(r, std::nullopt).item<float>();
  set_num_threads(threads);
  EXPECT_EQ(one_thread, two_threads);
  EXPECT_EQ(sum(r, std::nullopt).item<float>(), total_one);
}

TEST(Reduce, MeanDividesByTheReducedCount) {
  Tensor x = tensor<double>({1, 2, 3, 4, 5, 6}, IntList{2, 3});
  EXPECT_EQ(values<double>(mean_dim(x, V{1}, false, std::nullopt)), (std::vector<double>{2, 5}));
  EXPECT_EQ(mean_dim(x, std::nullopt, false, std::nullopt).item<double>(), 3.5);
  EXPECT_EQ(mean_dim(tensor<int64_t>({1, 2}), std::nullopt, false, DType::Float32).item<float>(),
            1.5f);
  EXPECT_TRUE(std::isnan(mean_dim(empty({0}), std::nullopt, false, std::nullopt).item<float>()));
  try {
    mean_dim(tensor<int64_t>({1, 2}), std::nullopt, false, std::nullopt);
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_STREQ(e.what(),
                 "mean.dim: could not infer output dtype: the input dtype must be "
                 "floating, got int64");
  }
}

TEST(Reduce, AmaxMatchesNaiveLoopAndPropagatesNaN) {
  Generator g(12);
  Tensor x = randn({4, 5, 6}, g);
  for (const V& dims : std::vector<V>{{}, {0}, {2}, {0, 2}, {1, 2}}) {
    const auto want =
        testing::reduce(values<double>(x), x.sizes(), mask_of(3, dims), -INFINITY, maximum);
    expect_near_all(values<double>(amax(x, dims, true)), want, 0);
  }
  Tensor n = tensor({1.f, NAN, 3.f});
  EXPECT_TRUE(std::isnan(amax(n, {}, false).item<float>()));
  EXPECT_EQ(amax(tensor<int32_t>({3, -1, 7}), {0}, false).dtype(), DType::Int32);
  EXPECT_EQ(amax(tensor<int32_t>({3, -1, 7}), {0}, false).item<int32_t>(), 7);
  EXPECT_THROW(amax(empty({2, 0}), {1}, false), ShapeError);
}

TEST(Reduce, MaxDimReturnsFirstMaximumAndItsIndex) {
  Tensor x = tensor<float>({1, 5, 5, 2, 7, 0}, IntList{2, 3});
  auto [values_, indices] = max_dim(x, 1, false);
  EXPECT_EQ(values<float>(values_), (std::vector<float>{5, 7}));
  EXPECT_EQ(values<int64_t>(indices), (std::vector<int64_t>{1, 1}));
  auto [v0, i0] = max_dim(x, 0, true);
  EXPECT_EQ(v0.sizes(), (V{1, 3}));
  EXPECT_EQ(values<int64_t>(i0), (std::vector<int64_t>{1, 1, 0}));
  auto [vn, in] = max_dim(tensor({1.f, NAN, 3.f, NAN}), 0, false);
  EXPECT_TRUE(std::isnan(vn.item<float>()));
  EXPECT_EQ(in.item<int64_t>(), 1);
  EXPECT_THROW(max_dim(empty({3, 0}), 1, false), ShapeError);
}

TEST(Reduce, ArgmaxOverADimOrTheFlattenedTensor) {
  Tensor x = tensor<int64_t>({3, 9, 2, 9, 1, 4}, IntList{2, 3});
  EXPECT_EQ(argmax(x, std::nullopt, false).item<int64_t>(), 1);
  EXPECT_EQ(argmax(x, std::nullopt, true).sizes(), (V{1, 1}));
  EXPECT_EQ(values<int64_t>(argmax(x, 0, false)), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(values<int64_t>(argmax(transpose_int(x, 0, 1), -1, false)),
            (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(argmax(scalar_tensor(2.0), std::nullopt, false).item<int64_t>(), 0);
  EXPECT_THROW(argmax(empty({0}), std::nullopt, false), ShapeError);
}

}  // namespace
}  // namespace lazygen::cpu
