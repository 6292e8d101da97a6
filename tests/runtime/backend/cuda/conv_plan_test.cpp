// Tests of how the eager CUDA convolutions compose their steps (backend/cuda/eager/conv_plan.h),
// run on the host: reference steps implement the contracts of the device steps (im2col and col2im
// through training_elements.h, BatchedGemm as blas.h documents it, the sum over samples), and
// conv_forward / conv_backward_input / conv_backward_weight must then compute what the cpu
// kernels compute, for the tutorial CNN's convolutions and strided, padded, dilated, grouped,
// 1x1 and chunked cases. What this cannot check without a GPU is the cuBLAS call itself.
#include "backend/cuda/eager/conv_plan.h"

#include <gtest/gtest.h>

#include <vector>

#include "backend/cuda/eager/training_elements.h"
#include "lazygen/composite.h"
#include "lazygen/dtype.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/conv2d.h"
#include "lazygen/generated/ops/conv2d_backward_input.h"
#include "lazygen/generated/ops/conv2d_backward_weight.h"
#include "lazygen/generated/ops/max.h"
#include "lazygen/operators.h"
#include "lazygen/tensor.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen::cuda {
namespace {

// conv_plan.h's steps on host float64 arrays.
struct HostSteps {
  int gemms = 0;

  void im2col(const ConvArgs& a, const void* x, void* col) const {
    const int64_t n = a.samples * a.c * a.kh * a.kw * a.oh * a.ow;
    for (int64_t i = 0; i < n; ++i) {
      static_cast<double*>(col)[i] = im2col_value(a, static_cast<const double*>(x), i);
    }
  }
  void col2im(const ConvArgs& a, const void* col, void* dx) const {
    for (int64_t i = 0; i < a.samples * a.c * a.h * a.w; ++i) {
      static_cast<double*>(dx)[i] = col2im_value(a, static_cast<const double*>(col), i);
    }
  }
  void fill_bias(int64_t samples, int64_t channels, int64_t plane, const void* bias,
                 void* y) const {
    for (int64_t i = 0; i < samples * channels * plane; ++i) {
      static_cast<double*>(y)[i] = static_cast<const double*>(bias)[(i / plane) % channels];
    }
  }
  // BatchedGemm's contract (blas.h), element by element.
  void gemm(const BatchedGemm& g, const void* a, const void* b, void* c, double alpha,
            double beta) {
    ++gemms;
    const auto* pa = static_cast<const double*>(a);
    const auto* pb = static_cast<const double*>(b);
    auto* pc = static_cast<double*>(c);
    for (int64_t e = 0; e < g.batch; ++e) {
      for (int64_t i = 0; i < g.m; ++i) {
        for (int64_t j = 0; j < g.n; ++j) {
          double acc = 0;
          for (int64_t k = 0; k < g.k; ++k) {
            const double av =
                g.trans_a ? pa[e * g.stride_a + k * g.lda + i] : pa[e * g.stride_a + i * g.lda + k];
            const double bv =
                g.trans_b ? pb[e * g.stride_b + j * g.ldb + k] : pb[e * g.stride_b + k * g.ldb + j];
            acc += av * bv;
          }
          double& out = pc[e * g.stride_c + i * g.ldc + j];
          out = alpha * acc + (beta == 0 ? 0.0 : beta * out);
        }
      }
    }
  }
  void sum_samples(const void* partial, int64_t samples, int64_t size, void* out) const {
    for (int64_t j = 0; j < size; ++j) {
      double acc = 0;
      for (int64_t s = 0; s < samples; ++s)
        acc += static_cast<const double*>(partial)[s * size + j];
      static_cast<double*>(out)[j] = acc;
    }
  }
};

struct ConvCase {
  std::vector<int64_t> input, weight, stride, padding, dilation;
  int64_t groups = 1;
};

std::vector<ConvCase> cases() {
  return {{{3, 1, 28, 28}, {32, 1, 3, 3}, {1}, {0}, {1}},    // the tutorial CNN's conv1
          {{2, 32, 26, 26}, {64, 32, 3, 3}, {1}, {0}, {1}},  // and conv2
          {{1, 4, 5, 7}, {4, 2, 2, 3}, {2, 1}, {1, 0}, {2, 1}, 2},
          {{2, 3, 6, 6}, {4, 3, 3, 3}, {2}, {1}, {1}},
          {{3, 6, 4, 5}, {4, 3, 1, 1}, {1}, {0}, {1}, 2}};  // 1x1: no column matrix
}

Conv2dGeometry geometry(const ConvCase& c) {
  return conv2d_geometry("test", c.input, c.weight, c.stride, c.padding, c.dilation, c.groups);
}

void expect_close(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.sizes(), want.sizes());
  const std::vector<double> a = lazygen::testing::values<double>(got);
  const std::vector<double> b = lazygen::testing::values<double>(want);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-9 * (1 + std::abs(b[i]))) << i;
}

// Chunks of the whole batch and of one sample.
std::vector<int64_t> chunks(const Conv2dGeometry& g) {
  return {conv_chunk_samples(g), 1};
}

Tensor column(const Conv2dGeometry& g, int64_t chunk) {
  return empty({std::max<int64_t>(1, chunk * g.c * g.kh * g.kw * g.col_cols())}, DType::Float64);
}

TEST(ConvPlan, ForwardMatchesTheCpuWithAndWithoutBias) {
  for (const ConvCase& c : cases()) {
    const Conv2dGeometry g = geometry(c);
    const Tensor x = randn(c.input, DType::Float64), w = randn(c.weight, DType::Float64);
    const Tensor b = randn({c.weight[0]}, DType::Float64);
    for (int64_t chunk : chunks(g)) {
      for (bool with_bias : {false, true}) {
        const Tensor want = conv2d(x, w, with_bias ? std::optional(b) : std::nullopt, c.stride,
                                   c.padding, c.dilation, c.groups);
        Tensor y = empty(want.sizes(), DType::Float64);
        const Tensor col = column(g, chunk);
        HostSteps steps;
        conv_forward(steps, g, chunk, sizeof(double), x.raw_data(), w.raw_data(),
                     with_bias ? b.raw_data() : nullptr, y.raw_data(), col.raw_data());
        expect_close(y, want);
        EXPECT_EQ(steps.gemms, g.groups * ((g.n + chunk - 1) / chunk));
      }
    }
  }
}

TEST(ConvPlan, InputGradientMatchesTheCpu) {
  for (const ConvCase& c : cases()) {
    const Conv2dGeometry g = geometry(c);
    const Tensor w = randn(c.weight, DType::Float64);
    const Tensor dy = randn({g.n, g.o, g.oh, g.ow}, DType::Float64);
    const Tensor want =
        conv2d_backward_input(dy, w, c.input, c.stride, c.padding, c.dilation, c.groups);
    for (int64_t chunk : chunks(g)) {
      Tensor dx = empty(c.input, DType::Float64);
      const Tensor col = column(g, chunk);
      HostSteps steps;
      conv_backward_input(steps, g, chunk, sizeof(double), dy.raw_data(), w.raw_data(),
                          dx.raw_data(), col.raw_data());
      expect_close(dx, want);
    }
  }
}

TEST(ConvPlan, WeightGradientMatchesTheCpu) {
  for (const ConvCase& c : cases()) {
    const Conv2dGeometry g = geometry(c);
    const Tensor x = randn(c.input, DType::Float64);
    const Tensor dy = randn({g.n, g.o, g.oh, g.ow}, DType::Float64);
    const Tensor want =
        conv2d_backward_weight(dy, x, c.weight, c.stride, c.padding, c.dilation, c.groups);
    for (int64_t chunk : chunks(g)) {
      Tensor dw = empty(c.weight, DType::Float64);
      const Tensor partial = empty({g.n, dw.numel()}, DType::Float64);
      const Tensor col = column(g, chunk);
      HostSteps steps;
      conv_backward_weight(steps, g, chunk, sizeof(double), dy.raw_data(), x.raw_data(),
                           dw.raw_data(), partial.raw_data(), col.raw_data());
      expect_close(dw, want);
    }
  }
}

TEST(ConvPlan, ChunksHoldAsManySamplesAsTheBudgetAllows) {
  const Conv2dGeometry g =
      conv2d_geometry("test", {64, 32, 26, 26}, {64, 32, 3, 3}, {1}, {0}, {1}, 1);
  const int64_t per_sample = 32 * 9 * 24 * 24;
  EXPECT_EQ(conv_chunk_samples(g), std::min<int64_t>(64, kConvColumnBudget / per_sample));
  EXPECT_EQ(conv_chunk_samples(g, per_sample * 10 + 1), 10);
  EXPECT_EQ(conv_chunk_samples(g, 1), 1);                  // never fewer than one sample
  EXPECT_EQ(conv_chunk_samples(g, int64_t{1} << 40), 64);  // never more than the batch
}

}  // namespace
}  // namespace lazygen::cuda
