// Tests of the per-element math of the eager CUDA training kernels (backend/cuda/
// training_elements.h), run on the host: each function is evaluated over every element and
// compared with the cpu kernel bit for bit (the same additions in the same order), so the index
// math of im2col, col2im, pooling and the dropout mask is checked without a GPU.
#include "backend/cuda/eager/training_elements.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "lazygen/dtype.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/_dropout_mask.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/conv2d.h"
#include "lazygen/generated/ops/isnan.h"
#include "lazygen/generated/ops/max_pool2d_with_indices.h"
#include "lazygen/generated/ops/max_pool2d_with_indices_backward.h"
#include "lazygen/operators.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"
#include "ops/shape/training_shapes.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen::cuda {
namespace {

using lazygen::testing::values;

struct PoolCase {
  std::vector<int64_t> sizes, kernel, stride, padding, dilation;
  bool ceil_mode = false;
};

PoolArgs pool_args_of(const PoolCase& c) {
  const Pool2dGeometry g =
      pool2d_geometry("test", c.sizes, c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode);
  return {g.planes, g.h, g.w, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw};
}

std::vector<PoolCase> pool_cases() {
  return {{{64, 64, 24, 24}, {2, 2}, {}, {0}, {1}},  // the tutorial CNN's pooling (2x2 path)
          {{2, 3, 7, 7}, {3, 3}, {2, 2}, {1, 1}, {1}},
          {{1, 2, 9, 8}, {3, 2}, {1, 2}, {1, 0}, {2, 1}},
          {{1, 1, 5, 5}, {2, 2}, {}, {0}, {1}, true}};
}

// An input with ties, -inf and NaN so the tie and NaN rules matter.
Tensor tricky_input(const std::vector<int64_t>& sizes) {
  Tensor x = randint(0, 4, sizes).to(DType::Float32);
  float* p = x.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); i += 7) p[i] = -std::numeric_limits<float>::infinity();
  for (int64_t i = 3; i < x.numel(); i += 29) p[i] = std::nanf("");
  return x;
}

TEST(MaxPoolElement, MatchesTheCpuValuesAndIndicesOnTiesInfAndNaN) {
  for (const PoolCase& c : pool_cases()) {
    const Tensor x = tricky_input(c.sizes);
    const auto [want_v, want_i] =
        max_pool2d_with_indices(x, c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode);
    const PoolArgs a = pool_args_of(c);
    const std::vector<float> wv = values<float>(want_v);
    const std::vector<int64_t> wi = values<int64_t>(want_i);
    ASSERT_EQ(static_cast<int64_t>(wv.size()), a.planes * a.oh * a.ow);
    for (int64_t i = 0; i < a.planes * a.oh * a.ow; ++i) {
      float v = 0;
      int64_t at = 0;
      max_pool_element(a, x.data_ptr<float>(), i, &v, &at);
      EXPECT_EQ(at, wi[i]) << "output " << i;
      EXPECT_TRUE(v == wv[i] || (std::isnan(v) && std::isnan(wv[i]))) << "output " << i;
    }
  }
}

TEST(MaxPoolBackwardValue, GathersExactlyWhatTheCpuScatters) {
  for (const PoolCase& c : pool_cases()) {
    const Tensor x = tricky_input(c.sizes);
    const auto [v, idx] =
        max_pool2d_with_indices(x, c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode);
    const Tensor go = randn(v.sizes());
    const Tensor want = max_pool2d_with_indices_backward(go, x, c.kernel, c.stride, c.padding,
                                                         c.dilation, c.ceil_mode, idx);
    const PoolArgs a = pool_args_of(c);
    const std::vector<float> w = values<float>(want);
    for (int64_t i = 0; i < x.numel(); ++i) {
      EXPECT_EQ(max_pool_backward_value(a, go.data_ptr<float>(), idx.data_ptr<int64_t>(), i), w[i])
          << "input " << i;
    }
  }
}

struct ConvCase {
  std::vector<int64_t> input, weight, stride, padding, dilation;
  int64_t groups = 1;
};

std::vector<ConvCase> conv_cases() {
  return {{{2, 1, 28, 28}, {32, 1, 3, 3}, {1}, {0}, {1}},    // the tutorial CNN's conv1
          {{1, 32, 26, 26}, {64, 32, 3, 3}, {1}, {0}, {1}},  // and conv2
          {{1, 4, 5, 7}, {4, 2, 2, 3}, {2, 1}, {1, 0}, {2, 1}, 2},
          {{2, 3, 6, 6}, {4, 3, 3, 3}, {2}, {1}, {1}}};
}

ConvArgs conv_args_of(const ConvCase& c) {
  const Conv2dGeometry g =
      conv2d_geometry("test", c.input, c.weight, c.stride, c.padding, c.dilation, c.groups);
  return {g.n, g.c, g.h, g.w, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw};
}

// The column matrix through im2col_value, then each sample's and group's product with the
// weight by hand: the forward convolution.
TEST(Im2colValue, ItsColumnsTimesTheWeightAreTheCpuConvolution) {
  for (const ConvCase& c : conv_cases()) {
    const Tensor x = randn(c.input, DType::Float64), w = randn(c.weight, DType::Float64);
    const Tensor want = conv2d(x, w, std::nullopt, c.stride, c.padding, c.dilation, c.groups);
    const ConvArgs a = conv_args_of(c);
    const int64_t rows = a.c / c.groups * a.kh * a.kw, cols = a.oh * a.ow;
    const int64_t o = c.weight[0], opg = o / c.groups;
    std::vector<double> col(static_cast<size_t>(a.samples * a.c * a.kh * a.kw * cols));
    for (size_t i = 0; i < col.size(); ++i) col[i] = im2col_value(a, x.data_ptr<double>(), i);
    const std::vector<double> y = values<double>(want);
    const double* wp = w.data_ptr<double>();
    for (int64_t s = 0; s < a.samples; ++s) {
      for (int64_t oc = 0; oc < o; ++oc) {
        const int64_t g = oc / opg;
        for (int64_t p = 0; p < cols; p += 5) {
          double acc = 0;
          for (int64_t r = 0; r < rows; ++r) {
            acc += wp[oc * rows + r] * col[((s * c.groups + g) * rows + r) * cols + p];
          }
          EXPECT_NEAR(acc, y[(s * o + oc) * cols + p], 1e-9) << s << " " << oc << " " << p;
        }
      }
    }
  }
}

// col2im_value over every input element adds back what im2col_value copied out: for a column
// matrix of ones, each input element counts the windows that read it.
TEST(Col2imValue, IsTheAdjointOfIm2col) {
  for (const ConvCase& c : conv_cases()) {
    const ConvArgs a = conv_args_of(c);
    const int64_t in_size = a.samples * a.c * a.h * a.w;
    const Tensor x = randn({in_size}, DType::Float64),
                 dcol_t = randn({a.samples * a.c * a.kh * a.kw * a.oh * a.ow}, DType::Float64);
    const double* dcol = dcol_t.data_ptr<double>();
    // <im2col(x), dcol> == <x, col2im(dcol)>
    double lhs = 0, rhs = 0;
    for (int64_t i = 0; i < dcol_t.numel(); ++i)
      lhs += im2col_value(a, x.data_ptr<double>(), i) * dcol[i];
    for (int64_t i = 0; i < in_size; ++i) rhs += x.data_ptr<double>()[i] * col2im_value(a, dcol, i);
    EXPECT_NEAR(lhs, rhs, 1e-9 * (1 + std::abs(lhs)));
  }
}

TEST(DropoutValue, IsBitIdenticalToTheCpuMask) {
  for (const int64_t seed : {int64_t{0}, int64_t{42}, (int64_t{1} << 62) - 12345}) {
    for (const double p : {0.25, 0.5, 1.0}) {
      const Tensor want = _dropout_mask(empty({3, 37}), p, seed);  // 111: not a multiple of 4
      const std::vector<float> w = values<float>(want);
      const float keep = p < 1 ? static_cast<float>(1.0 / (1.0 - p)) : 0.0f;
      for (int64_t i = 0; i < want.numel(); ++i) {
        uint32_t words[4];
        philox_words(static_cast<uint64_t>(seed), static_cast<uint64_t>(i / 4), words);
        EXPECT_EQ(dropout_value(words[i % 4], static_cast<float>(p), keep), w[i])
            << "seed " << seed << " p " << p << " element " << i;
      }
    }
  }
}

TEST(TrainingLaunch, BlocksCoverTheWorkWithinTheGridLimit) {
  EXPECT_EQ(blocks_for(0), 1u);
  EXPECT_EQ(blocks_for(1), 1u);
  EXPECT_EQ(blocks_for(kTrainingThreads), 1u);
  EXPECT_EQ(blocks_for(kTrainingThreads + 1), 2u);
  EXPECT_EQ(blocks_for(int64_t{1} << 40), static_cast<unsigned>(kMaxTrainingBlocks));
}

}  // namespace
}  // namespace lazygen::cuda
