// Naive references for the training-op tests: direct loops in double over the definitions
// (convolution as a sum over taps, pooling as a scan of each window), plus helpers to compare a
// tensor with them and to run the same op eagerly and on the lazy device.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "lazygen/lazy.h"
#include "lazygen/tensor.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen::testing {

struct ConvArgs {
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, groups = 1;
};

// y, and the gradients of sum(y * dy) with respect to x and w, by direct summation.
struct ConvReference {
  std::vector<double> y, dx, dw;
  std::vector<int64_t> y_sizes;
};

// x [n, c, h, w], w [o, c/groups, kh, kw], optional bias b [o]; dy (may be empty) of y's shape.
inline ConvReference naive_conv(const Tensor& x, const Tensor& w, const Tensor& b,
                                const std::vector<double>& dy, const ConvArgs& a) {
  const auto xs = x.sizes(), ws = w.sizes();
  const int64_t n = xs[0], c = xs[1], h = xs[2], wd = xs[3], o = ws[0], kh = ws[2], kw = ws[3];
  const int64_t cpg = c / a.groups, opg = o / a.groups;
  const int64_t oh = (h + 2 * a.ph - a.dh * (kh - 1) - 1) / a.sh + 1;
  const int64_t ow = (wd + 2 * a.pw - a.dw * (kw - 1) - 1) / a.sw + 1;
  const auto xv = values<double>(x), wv = values<double>(w);
  const auto bv = b.defined() ? values<double>(b) : std::vector<double>(o, 0.0);
  ConvReference r{std::vector<double>(n * o * oh * ow),
                  std::vector<double>(xv.size()),
                  std::vector<double>(wv.size()),
                  {n, o, oh, ow}};
  for (int64_t s = 0; s < n; ++s)
    for (int64_t oc = 0; oc < o; ++oc)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          const int64_t yi = ((s * o + oc) * oh + oy) * ow + ox;
          double acc = bv[oc];
          for (int64_t ci = 0; ci < cpg; ++ci)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t iy = oy * a.sh - a.ph + ky * a.dh, ix = ox * a.sw - a.pw + kx * a.dw;
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                const int64_t cin = (oc / opg) * cpg + ci;
                const int64_t xi = ((s * c + cin) * h + iy) * wd + ix;
                const int64_t wi = ((oc * cpg + ci) * kh + ky) * kw + kx;
                acc += xv[xi] * wv[wi];
                if (!dy.empty()) {
                  r.dx[xi] += dy[yi] * wv[wi];
                  r.dw[wi] += dy[yi] * xv[xi];
                }
              }
          r.y[yi] = acc;
        }
  return r;
}

struct PoolArgs {
  int64_t kh = 2, kw = 2, sh = 2, sw = 2, ph = 0, pw = 0, dh = 1, dw = 1;
  int64_t oh = 0, ow = 0;  // the expected output size (the test states it)
};

// Values, plane indices and the gradient of sum(y * dy) of max pooling [planes, h, w].
struct PoolReference {
  std::vector<double> y, dx;
  std::vector<int64_t> indices;
};

inline PoolReference naive_max_pool(const std::vector<double>& x, int64_t planes, int64_t h,
                                    int64_t w, const std::vector<double>& dy, const PoolArgs& a) {
  PoolReference r{{}, std::vector<double>(x.size(), 0.0), {}};
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oy = 0; oy < a.oh; ++oy)
      for (int64_t ox = 0; ox < a.ow; ++ox) {
        double best = -std::numeric_limits<double>::infinity();
        int64_t at = -1;
        for (int64_t ky = 0; ky < a.kh; ++ky)
          for (int64_t kx = 0; kx < a.kw; ++kx) {
            const int64_t iy = oy * a.sh - a.ph + ky * a.dh, ix = ox * a.sw - a.pw + kx * a.dw;
            if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
            const double v = x[(p * h + iy) * w + ix];
            if (at < 0 || v > best || std::isnan(v)) best = v, at = iy * w + ix;
          }
        r.y.push_back(best);
        r.indices.push_back(at);
        if (!dy.empty()) r.dx[p * h * w + at] += dy[r.y.size() - 1];
      }
  return r;
}

inline void expect_near_all(const Tensor& got, const std::vector<double>& want, double tol) {
  const auto v = values<double>(got);
  ASSERT_EQ(v.size(), want.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(v[i])) << "at " << i;
    } else {
      EXPECT_NEAR(v[i], want[i], tol * (1 + std::abs(want[i]))) << "at " << i;
    }
  }
}

// The same op on lazy copies of `inputs` gives the eager result (executed at mark_step).
template <class Op>
void expect_lazy_matches_eager(const std::vector<Tensor>& inputs, Op op, double tol = 1e-6) {
  const Tensor eager = op(inputs);
  std::vector<Tensor> lazy_inputs;
  for (const Tensor& t : inputs) lazy_inputs.push_back(t.to(kLazy));
  const Tensor lazy = op(lazy_inputs);
  ASSERT_TRUE(lazy.device().is_lazy());
  mark_step();
  EXPECT_EQ(lazy.sizes(), eager.sizes());
  EXPECT_EQ(lazy.dtype(), eager.dtype());
  expect_near_all(lazy, values<double>(eager), tol);
}

}  // namespace lazygen::testing
