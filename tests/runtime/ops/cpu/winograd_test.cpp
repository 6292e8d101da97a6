// Tests of the Winograd convolution (ops/cpu/winograd.cpp) against a direct-loop reference, for
// forward, input gradient and weight gradient over batch sizes, channel counts (whole and partial
// 8-channel vectors), plane sizes that do and do not fill whole 4x4 blocks, paddings 0-4 and with
// and without bias, in float64 and float32; and that the algorithm switch (lazygen/conv.h)
// really switches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "lazygen/conv.h"
#include "lazygen/factory.h"
#include "lazygen/metrics.h"
#include "ops/cpu/training_kernels.h"
#include "ops/cpu/winograd.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen {
namespace {

using testing::values;

struct Shape4 {
  int64_t n, c, o, h, w, pad;
};

// Direct summation in double of y = conv(x, w) + b and of the gradients of sum(y * dy), each
// with `mag`, the scale that bounds Winograd's rounding error. That error is not relative to an
// output's own terms: the transforms mix a whole 6x6 input window (and 4x4 output block), so an
// output whose terms are all tiny (or all padding) inherits error from its tile's neighbours.
// mag is therefore the sum over the tile's window of |input| times the sum of |kernel| (per
// channel pair, summed over channels), a bound on every term the tile's arithmetic touches.
struct Reference {
  std::vector<double> y, dx, dw, y_mag, dx_mag, dw_mag;
};

// Sum of |p[y, x]| over the size x size window at (y0, x0) of an [h, w] plane (zeros outside).
double window_abs(const double* p, int64_t h, int64_t w, int64_t y0, int64_t x0, int64_t size) {
  double sum = 0;
  for (int64_t y = std::max<int64_t>(y0, 0); y < std::min(y0 + size, h); ++y)
    for (int64_t x = std::max<int64_t>(x0, 0); x < std::min(x0 + size, w); ++x)
      sum += std::abs(p[y * w + x]);
  return sum;
}

double kernel_abs(const std::vector<double>& w, int64_t o, int64_t c, int64_t cin) {
  return window_abs(w.data() + (o * cin + c) * 9, 3, 3, 0, 0, 3);
}

Reference direct(const Shape4& s, const std::vector<double>& x, const std::vector<double>& w,
                 const std::vector<double>& b, const std::vector<double>& dy) {
  Reference r;
  const int64_t oh = s.h + 2 * s.pad - 2, ow = s.w + 2 * s.pad - 2;
  r.y.assign(dy.size(), 0), r.y_mag.assign(dy.size(), 0);
  r.dx.assign(x.size(), 0), r.dx_mag.assign(x.size(), 0);
  r.dw.assign(w.size(), 0), r.dw_mag.assign(w.size(), 0);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.o; ++o)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          const int64_t yi = ((n * s.o + o) * oh + oy) * ow + ox;
          r.y[yi] = b.empty() ? 0 : b[o];
          r.y_mag[yi] = std::abs(r.y[yi]);
          for (int64_t c = 0; c < s.c; ++c) {
            const double* plane = x.data() + (n * s.c + c) * s.h * s.w;
            r.y_mag[yi] += kernel_abs(w, o, c, s.c) *
                           window_abs(plane, s.h, s.w, oy / 4 * 4 - s.pad, ox / 4 * 4 - s.pad, 6);
            for (int64_t ky = 0; ky < 3; ++ky)
              for (int64_t kx = 0; kx < 3; ++kx) {
                const int64_t iy = oy - s.pad + ky, ix = ox - s.pad + kx;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                const int64_t xi = ((n * s.c + c) * s.h + iy) * s.w + ix;
                const int64_t wi = ((o * s.c + c) * 3 + ky) * 3 + kx;
                r.y[yi] += x[xi] * w[wi];
                r.dx[xi] += dy[yi] * w[wi];
                r.dw[wi] += dy[yi] * x[xi];
              }
          }
        }
  // dx: the correlation of dy (padding 2 - pad) with the flipped kernel, tiled over dx.
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t c = 0; c < s.c; ++c)
      for (int64_t iy = 0; iy < s.h; ++iy)
        for (int64_t ix = 0; ix < s.w; ++ix)
          for (int64_t o = 0; o < s.o; ++o) {
            const double* plane = dy.data() + (n * s.o + o) * oh * ow;
            r.dx_mag[((n * s.c + c) * s.h + iy) * s.w + ix] +=
                kernel_abs(w, o, c, s.c) *
                window_abs(plane, oh, ow, iy / 4 * 4 - 2 + s.pad, ix / 4 * 4 - 2 + s.pad, 6);
          }
  // dw: per channel pair, the sum over tiles of |dy block| * |x window|.
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.o; ++o)
      for (int64_t c = 0; c < s.c; ++c)
        for (int64_t ty = 0; ty < oh; ty += 4)
          for (int64_t tx = 0; tx < ow; tx += 4) {
            const double m = window_abs(dy.data() + (n * s.o + o) * oh * ow, oh, ow, ty, tx, 4) *
                             window_abs(x.data() + (n * s.c + c) * s.h * s.w, s.h, s.w, ty - s.pad,
                                        tx - s.pad, 6);
            for (int64_t k = 0; k < 9; ++k) r.dw_mag[(o * s.c + c) * 9 + k] += m;
          }
  return r;
}

// |got - want| <= rel * mag elementwise, plus a tiny absolute slack for all-zero sums.
void expect_within(const Tensor& got, const std::vector<double>& want,
                   const std::vector<double>& mag, double rel, const char* what) {
  const auto v = values<double>(got);
  ASSERT_EQ(v.size(), want.size()) << what;
  int failures = 0;
  for (size_t i = 0; i < v.size() && failures < 5; ++i) {
    const double bound = rel * mag[i] + 1e-30;
    if (!(std::abs(v[i] - want[i]) <= bound)) {
      ADD_FAILURE() << what << " at " << i << ": " << v[i] << " vs " << want[i] << " (bound "
                    << bound << ")";
      ++failures;
    }
  }
}

// The error bound relative to mag: 64 machine epsilons (7.6e-6 for float32, 1.4e-14 for
// float64). F(4x4, 3x3)'s transform constants (up to 5 in B^T, 8 in A^T, fractions down to 1/24 in
// G) amplify rounding well beyond direct summation's; measured over every case here the worst
// error is ~7 epsilons of mag in float32 and ~5 in float64, so 64 leaves room for other data while
// any wrong index or coefficient, which moves a result by whole products, still fails.
double tolerance(DType dtype) {
  return 64 * (dtype == DType::Float64 ? std::numeric_limits<double>::epsilon()
                                       : std::numeric_limits<float>::epsilon());
}

std::vector<int64_t> pair(int64_t v) {
  return {v, v};
}

struct Results {
  Tensor y, dx, dw;
};

// The three Winograd kernels called directly (also for channel counts conv2d gives to im2col).
Results run_winograd(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& dy,
                     int64_t pad) {
  const Conv2dGeometry g =
      conv2d_geometry("test", x.sizes(), w.sizes(), pair(1), pair(pad), pair(1), 1);
  Results r{empty(dy.sizes(), x.dtype()), empty(x.sizes(), x.dtype()), empty(w.sizes(), x.dtype())};
  dispatch_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      cpu::winograd_forward(x.data_ptr<T>(), w.data_ptr<T>(),
                            b.defined() ? b.data_ptr<T>() : nullptr, r.y.data_ptr<T>(), g);
      cpu::winograd_backward_input(dy.data_ptr<T>(), w.data_ptr<T>(), r.dx.data_ptr<T>(), g);
      cpu::winograd_backward_weight(dy.data_ptr<T>(), x.data_ptr<T>(), r.dw.data_ptr<T>(), g);
    }
  });
  return r;
}

void check_shape(const Shape4& s, bool bias, DType dtype, Generator& gen) {
  SCOPED_TRACE("n=" + std::to_string(s.n) + " c=" + std::to_string(s.c) +
               " o=" + std::to_string(s.o) + " " + std::to_string(s.h) + "x" + std::to_string(s.w) +
               " pad=" + std::to_string(s.pad) + (bias ? " bias" : ""));
  Tensor x = randn({s.n, s.c, s.h, s.w}, gen, dtype), w = randn({s.o, s.c, 3, 3}, gen, dtype);
  Tensor b = bias ? randn({s.o}, gen, dtype) : Tensor();
  const int64_t oh = s.h + 2 * s.pad - 2, ow = s.w + 2 * s.pad - 2;
  Tensor dy = randn({s.n, s.o, oh, ow}, gen, dtype);
  const Reference r = direct(s, values<double>(x), values<double>(w),
                             bias ? values<double>(b) : std::vector<double>(), values<double>(dy));
  const Results got = run_winograd(x, w, b, dy, s.pad);
  const double tol = tolerance(dtype);
  expect_within(got.y, r.y, r.y_mag, tol, "y");
  expect_within(got.dx, r.dx, r.dx_mag, tol, "dx");
  expect_within(got.dw, r.dw, r.dw_mag, tol, "dw");
}

// Every combination of the sizes below whose output is non-empty.
void check_all(DType dtype, uint64_t seed) {
  Generator gen(seed);
  for (int64_t n : {1, 3})
    for (int64_t c : {1, 5, 32})
      for (int64_t o : {1, 5, 32})
        for (int64_t hw : {3, 4, 5, 7, 8, 13, 26, 28})
          for (int64_t pad : {0, 1, 2}) {
            // The big planes only with a few channel mixes, to keep the direct loops fast.
            if (hw >= 26 && (n == 3 || (c == 32 && o == 32))) continue;
            check_shape({n, c, o, hw, hw, pad}, (c + o + hw) % 2 == 0, dtype, gen);
          }
}

TEST(Winograd, Float64MatchesDirectLoops) {
  check_all(DType::Float64, 1);
}

TEST(Winograd, Float32MatchesDirectLoops) {
  check_all(DType::Float32, 2);
}

TEST(Winograd, NonSquarePlanesAndLargePadding) {
  Generator gen(3);
  for (DType dtype : {DType::Float64, DType::Float32}) {
    check_shape({2, 6, 7, 5, 13, 0}, true, dtype, gen);
    check_shape({2, 6, 7, 9, 4, 1}, false, dtype, gen);
    check_shape({1, 8, 4, 3, 3, 3}, true, dtype, gen);  // padding 3: the correlation crops dy
    check_shape({1, 4, 8, 6, 11, 4}, false, dtype, gen);
    // Channel counts of whole 8-channel vectors plus a partial one (the transforms' lanes).
    check_shape({2, 12, 20, 10, 7, 1}, true, dtype, gen);
    check_shape({1, 17, 9, 12, 26, 2}, false, dtype, gen);
  }
}

TEST(Winograd, AppliesToUnitStrideThreeByThreeSingleGroupOnly) {
  auto geometry = [](int64_t c, int64_t o, int64_t k, int64_t stride, int64_t dil, int64_t gr) {
    return conv2d_geometry("test", {2, c, 10, 10}, {o, c / gr, k, k}, pair(stride), pair(1),
                           pair(dil), gr);
  };
  EXPECT_TRUE(cpu::winograd_applies(geometry(32, 64, 3, 1, 1, 1)));
  EXPECT_FALSE(cpu::winograd_applies(geometry(32, 64, 5, 1, 1, 1)));
  EXPECT_FALSE(cpu::winograd_applies(geometry(32, 64, 3, 2, 1, 1)));
  EXPECT_FALSE(cpu::winograd_applies(geometry(32, 64, 3, 1, 2, 1)));
  EXPECT_FALSE(cpu::winograd_applies(geometry(32, 64, 3, 1, 1, 2)));
  EXPECT_FALSE(cpu::winograd_applies(geometry(1, 32, 3, 1, 1, 1)));  // conv1: all transforms
}

// Calls of each algorithm while running conv2d and both backward ops once.
std::pair<int64_t, int64_t> count_calls(const Tensor& x, const Tensor& w, const Tensor& dy) {
  metrics::Counter& winograd = metrics::counter("conv.winograd");
  metrics::Counter& im2col = metrics::counter("conv.im2col");
  const int64_t w0 = winograd.value(), i0 = im2col.value();
  const auto one = pair(1);
  cpu::conv2d(x, w, std::nullopt, one, one, one, 1);
  cpu::conv2d_backward_input(dy, w, x.sizes(), one, one, one, 1);
  cpu::conv2d_backward_weight(dy, x, w.sizes(), one, one, one, 1);
  return {winograd.value() - w0, im2col.value() - i0};
}

TEST(Winograd, SwitchChoosesTheAlgorithmAndBothAgree) {
  Generator gen(4);
  Tensor x = randn({2, 8, 9, 9}, gen), w = randn({6, 8, 3, 3}, gen), dy = randn({2, 6, 9, 9}, gen);
  const bool was = winograd_enabled(), onednn_was = onednn_enabled();
  set_onednn_enabled(false);  // Winograd against im2col (Winograd goes before oneDNN anyway)
  set_winograd_enabled(true);
  EXPECT_EQ(count_calls(x, w, dy), std::make_pair(int64_t{3}, int64_t{0}));
  const Tensor fast = cpu::conv2d(x, w, std::nullopt, pair(1), pair(1), pair(1), 1);
  set_winograd_enabled(false);
  EXPECT_FALSE(winograd_enabled());
  EXPECT_EQ(count_calls(x, w, dy), std::make_pair(int64_t{0}, int64_t{3}));
  const Tensor slow = cpu::conv2d(x, w, std::nullopt, pair(1), pair(1), pair(1), 1);
  set_winograd_enabled(was);
  set_onednn_enabled(onednn_was);
  const auto a = values<double>(fast), c = values<double>(slow);
  ASSERT_EQ(a.size(), c.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], c[i], 1e-4 * (1 + std::abs(c[i])));
}

}  // namespace
}  // namespace lazygen
