// Tests for conv2d, conv2d_backward_input and conv2d_backward_weight (ops/cpu/conv.cpp) against a
// direct summation, over strides, paddings, dilations, groups and 1x1 kernels; their shape
// errors; and lazy against eager through the op API.
#include <gtest/gtest.h>

#include "lazygen/conv.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/conv2d.h"
#include "lazygen/generated/ops/conv2d_backward_input.h"
#include "lazygen/generated/ops/conv2d_backward_weight.h"
#include "lazygen/metrics.h"
#include "ops/cpu/training_kernels.h"
#include "runtime/ops/training/training_reference.h"

namespace lazygen {
namespace {

using testing::ConvArgs;
using testing::expect_near_all;
using testing::values;

struct ConvCase {
  std::vector<int64_t> x, w;
  ConvArgs a;
  bool bias = true;
};

std::vector<ConvCase> cases() {
  return {
      {{2, 3, 7, 6}, {4, 3, 3, 3}, {}},
      {{2, 3, 7, 6}, {4, 3, 3, 2}, {2, 1, 1, 0, 1, 1, 1}},
      {{1, 2, 9, 9}, {3, 2, 3, 3}, {1, 2, 2, 1, 2, 1, 1}, false},
      {{2, 4, 5, 5}, {6, 2, 3, 3}, {1, 1, 1, 1, 1, 1, 2}},
      {{3, 4, 4, 5}, {8, 4, 1, 1}, {}},                     // 1x1: no im2col
      {{2, 4, 6, 6}, {4, 1, 3, 3}, {1, 1, 1, 1, 1, 1, 4}},  // depthwise
      {{1, 1, 28, 28}, {32, 1, 3, 3}, {}},                  // the tutorial CNN's conv1
      // Note [Live taps]: only the centre tap reaches a 1x1 plane (a 1x1 kernel after cropping,
      // samples blocked); a stride-2 window over a 2x2 plane keeps 2x2 taps; none reaches it.
      {{5, 8, 1, 1}, {6, 8, 3, 3}, {1, 1, 1, 1, 1, 1, 1}},
      {{5, 4, 2, 2}, {6, 4, 3, 3}, {2, 2, 1, 1, 1, 1, 1}},
      {{3, 2, 1, 1}, {4, 2, 1, 1}, {2, 2, 3, 3, 1, 1, 1}},
      // Blocks of several samples, the last one short, with groups (Note [im2col convolution]).
      {{37, 6, 3, 4}, {4, 3, 3, 3}, {1, 1, 1, 1, 1, 1, 2}},
  };
}

std::vector<int64_t> pair(int64_t a, int64_t b) {
  return {a, b};
}

Tensor run_conv(const Tensor& x, const Tensor& w, const Tensor& b, const ConvArgs& a) {
  return cpu::conv2d(x, w, b.defined() ? std::optional(b) : std::nullopt, pair(a.sh, a.sw),
                     pair(a.ph, a.pw), pair(a.dh, a.dw), a.groups);
}

TEST(Conv2d, MatchesDirectSummation) {
  Generator g(1);
  for (const ConvCase& c : cases()) {
    SCOPED_TRACE(sizes_str(c.x) + " * " + sizes_str(c.w));
    Tensor x = randn(c.x, g), w = randn(c.w, g);
    Tensor b = c.bias ? randn({c.w[0]}, g) : Tensor();
    const auto ref = testing::naive_conv(x, w, b, {}, c.a);
    Tensor y = run_conv(x, w, b, c.a);
    EXPECT_EQ(y.sizes(), ref.y_sizes);
    expect_near_all(y, ref.y, 1e-5);
  }
}

TEST(Conv2d, BackwardOpsMatchDirectSummation) {
  Generator g(2);
  for (const ConvCase& c : cases()) {
    SCOPED_TRACE(sizes_str(c.x) + " * " + sizes_str(c.w));
    Tensor x = randn(c.x, g, DType::Float64), w = randn(c.w, g, DType::Float64);
    const auto shape = testing::naive_conv(x, w, Tensor(), {}, c.a).y_sizes;
    Tensor dy = randn(shape, g, DType::Float64);
    const auto ref = testing::naive_conv(x, w, Tensor(), values<double>(dy), c.a);
    const auto& a = c.a;
    Tensor dx = cpu::conv2d_backward_input(dy, w, c.x, pair(a.sh, a.sw), pair(a.ph, a.pw),
                                           pair(a.dh, a.dw), a.groups);
    Tensor dw = cpu::conv2d_backward_weight(dy, x, c.w, pair(a.sh, a.sw), pair(a.ph, a.pw),
                                            pair(a.dh, a.dw), a.groups);
    EXPECT_EQ(dx.sizes(), c.x);
    EXPECT_EQ(dw.sizes(), c.w);
    expect_near_all(dx, ref.dx, 1e-10);
    expect_near_all(dw, ref.dw, 1e-10);
  }
}

// float32 passes over planes large enough for oneDNN (switched on here; Note [oneDNN convolution])
// against the direct summation, with strides, padding, dilation, groups and bias; skipped where
// the library is absent. With oneDNN off, im2col gives the same within float32 rounding.
TEST(Conv2d, OneDnnPassesMatchDirectSummation) {
  const std::vector<ConvCase> big = {
      {{2, 3, 12, 12}, {8, 3, 3, 3}, {1, 1, 1, 1, 1, 1, 1}},  // every pass on oneDNN (plane 144)
      {{3, 4, 17, 15}, {6, 2, 3, 2}, {2, 1, 1, 0, 1, 2, 2}},  // strided, dilated, grouped
      {{2, 16, 6, 6}, {16, 1, 3, 3}, {1, 1, 1, 1, 1, 1, 16}, false},  // depthwise; plane 36
  };
  metrics::Counter& onednn = metrics::counter("conv.onednn");
  const bool was = onednn_enabled();
  Generator g(4);
  for (const ConvCase& c : big) {
    SCOPED_TRACE(sizes_str(c.x) + " * " + sizes_str(c.w));
    const auto& a = c.a;
    Tensor x = randn(c.x, g), w = randn(c.w, g);
    Tensor b = c.bias ? randn({c.w[0]}, g) : Tensor();
    const auto shape = testing::naive_conv(x, w, Tensor(), {}, a).y_sizes;
    Tensor dy = randn(shape, g);
    const auto ref = testing::naive_conv(x, w, b, values<double>(dy), a);
    for (bool on : {true, false}) {
      set_onednn_enabled(on);
      const int64_t before = onednn.value();
      Tensor y = run_conv(x, w, b, a);
      Tensor dx = cpu::conv2d_backward_input(dy, w, c.x, pair(a.sh, a.sw), pair(a.ph, a.pw),
                                             pair(a.dh, a.dw), a.groups);
      Tensor dw = cpu::conv2d_backward_weight(dy, x, c.w, pair(a.sh, a.sw), pair(a.ph, a.pw),
                                              pair(a.dh, a.dw), a.groups);
      if (on && onednn.value() == before) {
        set_onednn_enabled(was);
        GTEST_SKIP() << "oneDNN (libdnnl.so.2) is not available";
      }
      EXPECT_EQ(onednn.value() - before, on ? 1 + 1 + (shape[2] * shape[3] >= 64) : 0);
      expect_near_all(y, ref.y, 1e-4);
      expect_near_all(dx, ref.dx, 1e-4);
      expect_near_all(dw, ref.dw, 2e-4);
    }
  }
  set_onednn_enabled(was);
}

TEST(Conv2d, ReadsNonContiguousOperandsAndSingleValueLists) {
  Generator g(3);
  Tensor x = randn({2, 5, 6, 3}, g).permute({0, 3, 1, 2});  // [2, 3, 5, 6], channels last
  Tensor w = randn({4, 3, 3, 3}, g);
  const auto ref = testing::naive_conv(x.contiguous(), w, Tensor(), {}, {2, 2, 1, 1, 1, 1, 1});
  expect_near_all(cpu::conv2d(x, w, std::nullopt, {2}, {1}, {1}, 1), ref.y, 1e-5);
}

// Integers convolve exactly, as PyTorch's CPU kernel does: against a direct sum per output.
TEST(Conv2d, IntegerConvolutionsAreExact) {
  Generator gen(3);
  const Tensor x = randint(-1000, 1000, {2, 4, 6, 5}, gen), w = randint(-1000, 1000, {6, 2, 3, 2}, gen);
  const Tensor b = randint(-1000, 1000, {6}, gen);
  const Tensor y = cpu::conv2d(x, w, b, {2, 1}, {1, 0}, {1, 2}, 2);
  ASSERT_EQ(y.dtype(), DType::Int64);
  const int64_t* px = x.data_ptr<int64_t>();
  const int64_t* pw = w.data_ptr<int64_t>();
  const int64_t* pb = b.data_ptr<int64_t>();
  const int64_t* py = y.data_ptr<int64_t>();
  const int64_t oh = y.size(2), ow = y.size(3);
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t o = 0; o < 6; ++o) {
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          int64_t want = pb[o];
          for (int64_t c = 0; c < 2; ++c) {
            for (int64_t ki = 0; ki < 3; ++ki) {
              for (int64_t kj = 0; kj < 2; ++kj) {
                const int64_t r = i * 2 - 1 + ki, q = j + kj * 2;
                if (r < 0 || r >= 6 || q >= 5) continue;
                const int64_t channel = (o / 3) * 2 + c;
                want += px[((n * 4 + channel) * 6 + r) * 5 + q] * pw[((o * 2 + c) * 3 + ki) * 2 + kj];
              }
            }
          }
          EXPECT_EQ(py[((n * 6 + o) * oh + i) * ow + j], want) << n << " " << o << " " << i << " " << j;
        }
      }
    }
  }
}

TEST(Conv2d, RejectsBadShapesNamingTheOp) {
  Tensor x = zeros({1, 3, 5, 5}), w = zeros({4, 3, 3, 3});
  EXPECT_THROW(cpu::conv2d(zeros({3, 5, 5}), w, std::nullopt, {1}, {0}, {1}, 1), ShapeError);
  EXPECT_THROW(cpu::conv2d(x, zeros({4, 2, 3, 3}), std::nullopt, {1}, {0}, {1}, 1), ShapeError);
  EXPECT_THROW(cpu::conv2d(x, w, zeros({3}), {1}, {0}, {1}, 1), ShapeError);
  EXPECT_THROW(cpu::conv2d(x, w, std::nullopt, {0}, {0}, {1}, 1), ShapeError);
  EXPECT_THROW(cpu::conv2d(x, w, std::nullopt, {1}, {0}, {1}, 2), ShapeError);
  EXPECT_THROW(cpu::conv2d(x, zeros({4, 3, 7, 7}), std::nullopt, {1}, {0}, {1}, 1), ShapeError);
  EXPECT_THROW(cpu::conv2d(x.to(DType::Bool), w.to(DType::Bool), std::nullopt, {1}, {0}, {1}, 1),
               ShapeError);
  EXPECT_THROW(cpu::conv2d(x.to(DType::Int64), w, std::nullopt, {1}, {0}, {1}, 1), ShapeError);
  try {
    cpu::conv2d(x, zeros({4, 2, 3, 3}), std::nullopt, {1}, {0}, {1}, 1);
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("conv2d"), std::string::npos) << e.what();
  }
  // The lazy device rejects them when the op is called, not at the sync point.
  EXPECT_THROW(conv2d(x.to(kLazy), zeros({4, 2, 3, 3}, DType::Float32, kLazy)), ShapeError);
}

TEST(Conv2d, LazyMatchesEager) {
  Generator g(4);
  Tensor x = randn({2, 3, 8, 8}, g), w = randn({4, 3, 3, 3}, g), b = randn({4}, g);
  testing::expect_lazy_matches_eager(
      {x, w, b},
      [](const std::vector<Tensor>& t) {
        return conv2d(t[0], t[1], t[2], {1, 2}, {1, 0}, {1, 1}, 1);
      },
      1e-5);
  Tensor dy = randn({2, 4, 8, 3}, g);
  testing::expect_lazy_matches_eager(
      {dy, w},
      [](const std::vector<Tensor>& t) {
        return conv2d_backward_input(t[0], t[1], {2, 3, 8, 8}, {1, 2}, {1, 0}, {1, 1}, 1);
      },
      1e-5);
  testing::expect_lazy_matches_eager(
      {dy, x},
      [](const std::vector<Tensor>& t) {
        return conv2d_backward_weight(t[0], t[1], {4, 3, 3, 3}, {1, 2}, {1, 0}, {1, 1}, 1);
      },
      1e-5);
}

}  // namespace
}  // namespace lazygen
