// Tests for _softmax and _log_softmax (ops/cpu/softmax.cpp) against a naive loop.
#include <gtest/gtest.h>

#include <cmath>
#include <span>

#include "lazygen/factory.h"
#include "ops/cpu/custom_kernels.h"
#include "runtime/core/tensor/tensor_testing.h"
#include "runtime/ops/cpu/reference.h"

namespace lazygen::cpu {
namespace {

using testing::values;

// softmax (or log_softmax) of row-major data along `dim`, in double.
std::vector<double> naive_softmax(const Tensor& x, int64_t dim, bool log) {
  const auto data = values<double>(x);
  const auto sizes = x.sizes();
  std::vector<bool> mask(sizes.size(), false);
  mask[static_cast<size_t>(dim)] = true;
  const auto max = testing::reduce(data, sizes, mask, -INFINITY,
                                   [](double a, double b) { return std::max(a, b); });
  auto reduced_at = [&](const testing::Sizes& index) {
    testing::Sizes r = index, rs = sizes;
    r[static_cast<size_t>(dim)] = 0;
    rs[static_cast<size_t>(dim)] = 1;
    return static_cast<size_t>(testing::linear_index(rs, r));
  };
  std::vector<double> sum(max.size(), 0.0), out(data.size());
  testing::for_each_index(sizes, [&](const testing::Sizes& i) {
    sum[reduced_at(i)] += std::exp(data[testing::linear_index(sizes, i)] - max[reduced_at(i)]);
  });
  testing::for_each_index(sizes, [&](const testing::Sizes& i) {
    const size_t k = static_cast<size_t>(testing::linear_index(sizes, i));
    const double shifted = data[k] - max[reduced_at(i)];
    out[k] = log ? shifted - std::log(sum[reduced_at(i)]) : std::exp(shifted) / sum[reduced_at(i)];
  });
  return out;
}

void expect_close(const Tensor& got, const std::vector<double>& want) {
  const auto v = values<double>(got);
  ASSERT_EQ(v.size(), want.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[i], 1e-5) << i;
}

TEST(Softmax, MatchesNaiveLoopAlongEveryDim) {
  Generator g(21);
  Tensor x = randn({3, 4, 5}, g);
  for (int64_t dim = 0; dim < 3; ++dim) {
    SCOPED_TRACE(dim);
    expect_close(_softmax(x, dim, false), naive_softmax(x, dim, false));
    expect_close(_log_softmax(x, dim, false), naive_softmax(x, dim, true));
  }
  Tensor xt = transpose_int(x, 0, 2);  // non-contiguous input
  expect_close(_softmax(xt, -1, false), naive_softmax(xt.contiguous(), 2, false));
}

// Note [Vectorized float32 softmax rows]: rows long enough for the 16-lane loops and a tail,
// values over exp's whole range, within a few float32 ulps of the double reference (scaled by
// the magnitude of x - max, which float32 rounds before any exp sees it).
TEST(Softmax, Float32RowsMatchTheDoubleReferenceClosely) {
  Generator g(5);
  Tensor x = randn({7, 203}, g);
  for (float& v : std::span<float>(x.data_ptr<float>(), 7 * 203)) v *= 30.0f;
  const auto want = naive_softmax(x, 1, false), want_log = naive_softmax(x, 1, true);
  const auto got = values<double>(_softmax(x, 1, false)),
             got_log = values<double>(_log_softmax(x, 1, false));
  for (size_t i = 0; i < want.size(); ++i) {
    // x - max rounds to float32 before exp: relative error ~ |x - max| * 2^-24 on top of exp's.
    EXPECT_NEAR(got[i], want[i], want[i] * (4e-7 + 1.2e-7 * std::abs(std::log(want[i]))) + 2e-38)
        << i;  // subnormals flush to 0
    EXPECT_NEAR(got_log[i], want_log[i], 2e-6 * std::abs(want_log[i]) + 1e-6) << i;
  }
}

// Masked scores (-inf) get exactly 0 (on the vector path: -inf does not send a row to the scalar
// one); a row with a NaN is all NaN; a row of only -inf or with +inf is NaN, as PyTorch's is
// (exp(-inf - -inf), inf - inf).
TEST(Softmax, Float32RowsKeepPyTorchsSpecialValues) {
  std::vector<float> row(40, 1.0f);
  row[3] = -INFINITY;
  row[37] = -INFINITY;
  std::vector<float> data = row;
  data.insert(data.end(), 40, 2.0f);
  data[40 + 5] = NAN;
  data.insert(data.end(), 40, -INFINITY);
  data.insert(data.end(), 40, 0.5f);
  data[120 + 9] = INFINITY;
  const auto s = values<float>(_softmax(tensor(data, IntList{4, 40}), 1, false));
  EXPECT_EQ(s[3], 0.0f);
  EXPECT_EQ(s[37], 0.0f);
  EXPECT_NEAR(s[0], 1.0 / 38, 1e-7);
  for (int i = 40; i < 160; ++i) EXPECT_TRUE(std::isnan(s[static_cast<size_t>(i)])) << i;
  const auto l = values<float>(_log_softmax(tensor(row, IntList{1, 40}), 1, false));
  EXPECT_EQ(l[3], -INFINITY);
  EXPECT_NEAR(l[0], -std::log(38.0), 1e-6);
}

TEST(Softmax, IsStableForLargeInputs) {
  Tensor x = tensor({1000.f, 1001.f, 1002.f});
  const auto s = values<double>(_softmax(x, 0, false));
  EXPECT_NEAR(s[2], 0.66524096, 1e-6);
  EXPECT_NEAR(values<double>(_log_softmax(x, 0, false))[0], -2.40760589, 1e-6);  // PyTorch
}

TEST(Softmax, IntegerInputsGiveFloat32AndDoublesStayDouble) {
  Tensor s = _softmax(tensor<int64_t>({1, 1}), 0, false);
  EXPECT_EQ(s.dtype(), DType::Float32);
  EXPECT_EQ(values<float>(s), (std::vector<float>{0.5f, 0.5f}));
  EXPECT_EQ(_softmax(tensor<double>({1, 2}), 0, false).dtype(), DType::Float64);
  EXPECT_EQ(_softmax(scalar_tensor(3.0), 0, false).item<float>(), 1.0f);
  EXPECT_EQ(_softmax(empty({0, 3}), 1, false).numel(), 0);
}

TEST(Softmax, RejectsHalfToFloatAndBadDims) {
  EXPECT_THROW(_softmax(tensor({1.f}), 0, true), ShapeError);
  EXPECT_THROW(_log_softmax(tensor({1.f}), 1, false), ShapeError);
}

}  // namespace
}  // namespace lazygen::cpu
