// Tests of the eager CUDA training kernels (backend/cuda/eager/conv_ops.cpp, pool_ops.cpp,
// loss_ops.cpp and amax in reduce_ops.cpp). Without a GPU: every op of the tutorial CNN's
// training step has a CUDA kernel registered, and bad arguments fail with the cpu kernel's
// error naming the op, before anything is allocated or launched. With a device
// (CudaTrainingOnDevice.*, skipped otherwise, naming the reason): every kernel against the cpu
// on several shapes, and a few training steps of the CNN on cuda and on the lazy device with the
// CUDA backend against the cpu's losses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "backend/graph.h"
#include "core/dispatch.h"
#include "core/lazy/lazy_tensor.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/cuda.h"
#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/_dropout_mask.h"
#include "lazygen/generated/ops/_log_softmax.h"
#include "lazygen/generated/ops/_log_softmax_backward_data.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/amax.h"
#include "lazygen/generated/ops/conv2d.h"
#include "lazygen/generated/ops/conv2d_backward_input.h"
#include "lazygen/generated/ops/conv2d_backward_weight.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/isnan.h"
#include "lazygen/generated/ops/max_pool2d.h"
#include "lazygen/generated/ops/max_pool2d_backward.h"
#include "lazygen/generated/ops/max_pool2d_with_indices.h"
#include "lazygen/generated/ops/max_pool2d_with_indices_backward.h"
#include "lazygen/generated/ops/nll_loss.h"
#include "lazygen/generated/ops/nll_loss_backward.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/operators.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"
#include "runtime/backend/cuda/cuda_testing.h"
#include "runtime/backend/cuda/tutorial_cnn_step.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen::cuda {
namespace {

using lazygen::testing::values;

using testing::error_of;
using testing::fake_cuda;
using testing::kCuda;

// The ops of one traced training step of the tutorial CNN (forward, backward, Adadelta).
std::vector<std::string> cnn_step_ops() {
  mark_step();
  lazygen::testing::CnnRun run(kLazy, 2);
  std::vector<ir::Value> roots;
  for (const Tensor& t : run.step(kLazy)) roots.push_back(lazy::lazy_state(t).value);
  const exec::Graph graph(std::move(roots));
  std::vector<std::string> ops;
  for (const ir::Node* n : graph.nodes()) {
    const std::string name = ir::op_kind_name(n->op());
    if (name != "device_data" && name != "scalar_param") ops.push_back(name);
  }
  mark_step();
  return ops;
}

TEST(CudaTrainingDispatch, EveryOpOfTheTutorialCnnStepHasACudaKernel) {
  const std::vector<std::string> ops = cnn_step_ops();
  for (const char* op :
       {"conv2d", "conv2d_backward_weight", "max_pool2d", "max_pool2d_backward", "_dropout_mask",
        "_log_softmax", "_log_softmax_backward_data", "nll_loss", "nll_loss_backward", "addmm"}) {
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op << " is not traced";
  }
  for (const std::string& op : ops) {
    EXPECT_TRUE(detail::has_device_kernel(DeviceType::CUDA, op)) << op;
  }
}

TEST(CudaTrainingDispatch, TheOtherTrainingOpsAndAmaxHaveCudaKernelsToo) {
  for (const char* op : {"conv2d_backward_input", "max_pool2d_with_indices",
                         "max_pool2d_with_indices_backward", "amax"}) {
    EXPECT_TRUE(detail::has_device_kernel(DeviceType::CUDA, op)) << op;
  }
}

TEST(CudaTrainingDispatch, BadArgumentsFailAsOnTheCpuNamingTheOp) {
  std::vector<float> x(2 * 3 * 8 * 8, 1.0f), w(4 * 2 * 3 * 3, 1.0f), t(4, 0.0f);
  const Tensor input = fake_cuda(x, {2, 3, 8, 8}), weight = fake_cuda(w, {4, 2, 3, 3});
  const std::string conv = error_of([&] { (void)conv2d(input, weight); });
  EXPECT_EQ(conv.rfind("conv2d: ", 0), 0u) << conv;
  EXPECT_NE(conv.find("channels"), std::string::npos) << conv;
  const std::string pool = error_of([&] { (void)max_pool2d(input, {3, 3}, {}, {2, 2}); });
  EXPECT_EQ(pool.rfind("max_pool2d: pad should be at most half", 0), 0u) << pool;
  const std::string softmax = error_of([&] { (void)_log_softmax(input, 4, false); });
  EXPECT_EQ(softmax.rfind("_log_softmax: ", 0), 0u) << softmax;
  const Tensor logits = fake_cuda(t, {2, 2});
  const std::string nll = error_of([&] { (void)nll_loss(logits, logits, std::nullopt, 1, -100); });
  EXPECT_EQ(nll.rfind("nll_loss: expected an int64 target", 0), 0u) << nll;
  const std::string drop = error_of([&] { (void)_dropout_mask(input, 1.5, 0); });
  EXPECT_EQ(drop.rfind("_dropout_mask: dropout probability", 0), 0u) << drop;
  const std::string amax_error = error_of([&] { (void)amax(input, {5}); });
  EXPECT_EQ(amax_error.rfind("amax: ", 0), 0u) << amax_error;
}

TEST(CudaTrainingDispatch, GoodArgumentsWithoutADeviceReachTheAllocationAndSayWhy) {
  if (is_available()) GTEST_SKIP() << "a CUDA device is present";
  std::vector<float> x(1 * 1 * 6 * 6, 1.0f), w(2 * 1 * 3 * 3, 1.0f);
  const Tensor input = fake_cuda(x, {1, 1, 6, 6}), weight = fake_cuda(w, {2, 1, 3, 3});
  EXPECT_EQ(error_of([&] { (void)conv2d(input, weight); }), unavailable_reason());
  EXPECT_EQ(error_of([&] { (void)max_pool2d(input, {2, 2}); }), unavailable_reason());
  EXPECT_EQ(error_of([&] { (void)_dropout_mask(input, 0.5, 3); }), unavailable_reason());
}

// ---- on a device: every result is compared with the cpu's.

class CudaTrainingOnDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!is_available()) GTEST_SKIP() << unavailable_reason();
  }
};

void expect_close(const Tensor& cuda, const Tensor& cpu, double tol) {
  ASSERT_EQ(cuda.device(), kCuda);
  ASSERT_EQ(cuda.sizes(), cpu.sizes());
  ASSERT_EQ(cuda.dtype(), cpu.dtype());
  const std::vector<double> got = values<double>(cuda), want = values<double>(cpu);
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
      continue;
    }
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << "at " << i;
  }
}

void expect_same(const Tensor& cuda, const Tensor& cpu) {
  expect_close(cuda, cpu, 0.0);
}

struct ConvCase {
  std::vector<int64_t> input, weight, stride, padding, dilation;
  int64_t groups = 1;
};

TEST_F(CudaTrainingOnDevice, ConvolutionsAndTheirGradientsMatchTheCpu) {
  const std::vector<ConvCase> cases = {{{64, 1, 28, 28}, {32, 1, 3, 3}, {1}, {0}, {1}},
                                       {{64, 32, 26, 26}, {64, 32, 3, 3}, {1}, {0}, {1}},
                                       {{1, 4, 5, 7}, {4, 2, 2, 3}, {2, 1}, {1, 0}, {2, 1}, 2},
                                       {{3, 6, 4, 5}, {4, 3, 1, 1}, {1}, {0}, {1}, 2},
                                       {{0, 3, 5, 5}, {2, 3, 3, 3}, {1}, {0}, {1}}};
  for (DType dtype : {DType::Float32, DType::Float64}) {
    const double tol = dtype == DType::Float32 ? 1e-4 : 1e-10;
    for (const ConvCase& c : cases) {
      const Tensor x = randn(c.input, dtype), w = randn(c.weight, dtype);
      const Tensor b = randn({c.weight[0]}, dtype);
      const Tensor gx = x.to(kCuda), gw = w.to(kCuda), gb = b.to(kCuda);
      const Tensor y = conv2d(x, w, b, c.stride, c.padding, c.dilation, c.groups);
      expect_close(conv2d(gx, gw, gb, c.stride, c.padding, c.dilation, c.groups), y, tol);
      const Tensor dy = randn(y.sizes(), dtype);
      expect_close(conv2d_backward_input(dy.to(kCuda), gw, c.input, c.stride, c.padding, c.dilation,
                                         c.groups),
                   conv2d_backward_input(dy, w, c.input, c.stride, c.padding, c.dilation, c.groups),
                   tol);
      expect_close(
          conv2d_backward_weight(dy.to(kCuda), gx, c.weight, c.stride, c.padding, c.dilation,
                                 c.groups),
          conv2d_backward_weight(dy, x, c.weight, c.stride, c.padding, c.dilation, c.groups),
          tol * 10);
    }
  }
  const Tensor x = randn({2, 3, 9, 9});  // a non-contiguous input
  const Tensor w = randn({4, 3, 3, 3});
  expect_close(conv2d(x.to(kCuda).transpose(2, 3), w.to(kCuda)), conv2d(x.transpose(2, 3), w),
               1e-4);
}

TEST_F(CudaTrainingOnDevice, MaxPoolingMatchesTheCpuOnTiesInfAndNaN) {
  Tensor x = randint(0, 4, {4, 8, 24, 24}).to(DType::Float32);
  float* p = x.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); i += 7) p[i] = -std::numeric_limits<float>::infinity();
  for (int64_t i = 3; i < x.numel(); i += 29) p[i] = std::nanf("");
  const Tensor gx = x.to(kCuda);
  struct Case {
    std::vector<int64_t> k, s, pad, d;
    bool ceil;
  };
  for (const Case& c :
       {Case{{2, 2}, {}, {0}, {1}, false}, Case{{3, 3}, {2, 2}, {1, 1}, {1}, false},
        Case{{3, 2}, {1, 2}, {1, 0}, {2, 1}, false}, Case{{2, 2}, {}, {0}, {1}, true}}) {
    const auto [v, idx] = max_pool2d_with_indices(x, c.k, c.s, c.pad, c.d, c.ceil);
    const auto [gv, gidx] = max_pool2d_with_indices(gx, c.k, c.s, c.pad, c.d, c.ceil);
    expect_same(gv, v);
    expect_same(gidx, idx);
    expect_same(max_pool2d(gx, c.k, c.s, c.pad, c.d, c.ceil),
                max_pool2d(x, c.k, c.s, c.pad, c.d, c.ceil));
    const Tensor dy = randn(v.sizes());
    expect_same(
        max_pool2d_with_indices_backward(dy.to(kCuda), gx, c.k, c.s, c.pad, c.d, c.ceil, gidx),
        max_pool2d_with_indices_backward(dy, x, c.k, c.s, c.pad, c.d, c.ceil, idx));
    expect_same(max_pool2d_backward(dy.to(kCuda), gx, c.k, c.s, c.pad, c.d, c.ceil),
                max_pool2d_backward(dy, x, c.k, c.s, c.pad, c.d, c.ceil));
  }
  const auto [v, idx] = max_pool2d_with_indices(gx, {2, 2});
  const Tensor bad = full(idx.sizes(), 10000, DType::Int64).to(kCuda);
  EXPECT_THROW(max_pool2d_with_indices_backward(v, gx, {2, 2}, {2, 2}, {0}, {1}, false, bad),
               std::out_of_range);
}

TEST_F(CudaTrainingOnDevice, LogSoftmaxAndItsGradientMatchTheCpu) {
  for (DType dtype : {DType::Float32, DType::Float64}) {
    for (const std::vector<int64_t>& sizes :
         std::vector<std::vector<int64_t>>{{64, 10}, {3, 1000}, {5, 4, 3}, {7}}) {
      const Tensor x = (randn(sizes) * 20).to(dtype);
      for (int64_t dim : {int64_t{0}, int64_t{-1}}) {
        const Tensor y = _log_softmax(x, dim, false);
        const Tensor gy = _log_softmax(x.to(kCuda), dim, false);
        expect_close(gy, y, 1e-5);
        const Tensor dy = randn(sizes).to(dtype);
        expect_close(_log_softmax_backward_data(dy.to(kCuda), gy, dim, dtype),
                     _log_softmax_backward_data(dy, y, dim, dtype), 1e-5);
      }
    }
  }
  const Tensor ints = arange(0, 12, 1, DType::Int64).reshape({3, 4});
  expect_close(_log_softmax(ints.to(kCuda), 1, false), _log_softmax(ints, 1, false), 1e-6);
}

TEST_F(CudaTrainingOnDevice, NllLossAndItsGradientMatchTheCpu) {
  const Tensor x = randn({64, 10}), weight = rand({10}) + 0.5;
  Tensor target = randint(0, 10, {64});
  target.data_ptr<int64_t>()[5] = 3;
  const Tensor gx = x.to(kCuda), gt = target.to(kCuda), gw = weight.to(kCuda);
  for (int64_t reduction : {0, 1, 2}) {
    for (int64_t ignore : {int64_t{-100}, int64_t{3}}) {
      for (bool weighted : {false, true}) {
        const std::optional<Tensor> w = weighted ? std::optional(weight) : std::nullopt;
        const std::optional<Tensor> gwo = weighted ? std::optional(gw) : std::nullopt;
        const Tensor loss = nll_loss(x, target, w, reduction, ignore);
        expect_close(nll_loss(gx, gt, gwo, reduction, ignore), loss, 1e-6);
        const Tensor dy = reduction == 0 ? randn({64}) : full({}, 0.7);
        expect_close(nll_loss_backward(dy.to(kCuda), gx, gt, gwo, reduction, ignore),
                     nll_loss_backward(dy, x, target, w, reduction, ignore), 1e-6);
      }
    }
  }
  const Tensor bad = full({64}, 12, DType::Int64);
  EXPECT_EQ(error_of([&] { (void)nll_loss(gx, bad.to(kCuda), std::nullopt, 1, -100); }),
            error_of([&] { (void)nll_loss(x, bad, std::nullopt, 1, -100); }));
}

TEST_F(CudaTrainingOnDevice, DropoutMasksAreBitIdenticalToTheCpu) {
  for (const int64_t seed : {int64_t{1}, (int64_t{1} << 62) - 3}) {
    for (const double p : {0.25, 0.5, 1.0}) {
      for (DType dtype : {DType::Float32, DType::Float64}) {
        const Tensor like = empty({64, 9217}, dtype);
        expect_same(_dropout_mask(like.to(kCuda), p, seed), _dropout_mask(like, p, seed));
      }
    }
  }
}

TEST_F(CudaTrainingOnDevice, AmaxMatchesTheCpu) {
  Tensor x = randn({6, 7, 5});
  x.data_ptr<float>()[17] = std::nanf("");
  const Tensor gx = x.to(kCuda);
  expect_same(amax(gx, {1}), amax(x, {1}));
  expect_same(amax(gx, {0, 2}, true), amax(x, {0, 2}, true));
  expect_same(amax(gx), amax(x));
  const Tensor ints = arange(0, 10, 1, DType::Int32);
  expect_same(amax(ints.to(kCuda)), amax(ints));
}

// A few training steps of the tutorial CNN (dropout on, Adadelta) on `device`; the losses.
std::vector<double> cnn_losses(Device device, int steps) {
  lazygen::testing::CnnRun run(device, 16);
  std::vector<double> losses;
  for (int i = 0; i < steps; ++i) {
    const Tensor loss = run.step(device)[0];
    if (device.is_lazy()) mark_step();
    losses.push_back(loss.item<float>());
  }
  return losses;
}

TEST_F(CudaTrainingOnDevice, TheTutorialCnnTrainsOnCudaAndOnTheLazyCudaBackendLikeOnTheCpu) {
  const std::vector<double> cpu = cnn_losses(kCPU, 4);
  const std::vector<double> eager = cnn_losses(kCuda, 4);
  set_lazy_backend("cuda");
  std::vector<double> lazy;
  try {
    lazy = cnn_losses(kLazy, 4);
  } catch (...) {
    set_lazy_backend("cpu");
    throw;
  }
  set_lazy_backend("cpu");
  for (size_t i = 0; i < cpu.size(); ++i) {
    EXPECT_NEAR(eager[i], cpu[i], 2e-3 * (1 + std::abs(cpu[i]))) << "step " << i;
    EXPECT_NEAR(lazy[i], cpu[i], 2e-3 * (1 + std::abs(cpu[i]))) << "step " << i;
  }
}

}  // namespace
}  // namespace lazygen::cuda
