// Tests of cuda tensors (backend/cuda/memory/cuda_device.cpp, cuda_memory.h), the eager CUDA
// kernels' host side (eager_kernels.h) and their dispatch. The first group needs no GPU: it checks
// the no-device errors, the kernel registrations, views and launch arguments (on host memory, or on
// "cuda" tensors that wrap host memory and are never handed to a kernel). The CudaOnDevice tests
// compare every result with the cpu's and skip, naming the reason, where no device is usable.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "backend/cuda/eager/eager_kernels.h"
#include "core/dispatch.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/composite.h"
#include "lazygen/cuda.h"
#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/add.h"
#include "lazygen/generated/ops/addmm.h"
#include "lazygen/generated/ops/argmax.h"
#include "lazygen/generated/ops/bmm.h"
#include "lazygen/generated/ops/div.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/log.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/mm.h"
#include "lazygen/generated/ops/mul.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/metrics.h"
#include "lazygen/op_info.h"
#include "lazygen/operators.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"
#include "runtime/backend/cuda/cuda_testing.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen::cuda {
namespace {
using lazygen::testing::values;

using testing::error_of;
using testing::fake_cuda;
using testing::kCuda;

TEST(CudaDevice, WithoutADeviceSaysWhy) {
  if (is_available()) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_EQ(device_count(), 0);
  EXPECT_EQ(unavailable_reason().rfind("no CUDA device: cudaGetDeviceCount ", 0), 0u)
      << unavailable_reason();
}

TEST(CudaDevice, MovingATensorWithoutADeviceThrowsTheReason) {
  if (is_available()) GTEST_SKIP() << "a CUDA device is present";
  const Tensor cpu = ones({2, 3});
  EXPECT_EQ(error_of([&] { (void)cpu.to(Device("cuda")); }), unavailable_reason());
  EXPECT_EQ(error_of([&] { (void)zeros({4}, DType::Float32, Device("cuda:1")); }),
            unavailable_reason());
  EXPECT_EQ(error_of([&] { (void)empty_device({4}, DType::Float32, kCuda); }),
            unavailable_reason());
  EXPECT_EQ(memory_stats().bytes_in_use, 0u);
}

TEST(CudaDevice, PointwiseOpWithoutADeviceThrowsTheReasonBeforeAnyLaunch) {
  if (is_available()) GTEST_SKIP() << "a CUDA device is present";
  std::vector<float> data(6, 1.0f);
  const Tensor t = fake_cuda(data, {2, 3});
  EXPECT_EQ(error_of([&] { (void)exp(t); }), unavailable_reason());
}

TEST(CudaDispatch, EveryPointwiseViewMatmulAndSumOpHasACudaKernel) {
  int pointwise = 0;
  for (const OpInfo& op : all_ops()) {
    const bool has = detail::has_device_kernel(DeviceType::CUDA, op.name);
    if (op.pointwise || op.shape == ShapeKind::View) {
      EXPECT_TRUE(has) << op.name;
    }
    pointwise += op.pointwise ? 1 : 0;
  }
  EXPECT_GT(pointwise, 30);
  for (const char* op : {"mm", "addmm", "bmm", "sum", "sum.dim_IntList", "mean.dim"}) {
    EXPECT_TRUE(detail::has_device_kernel(DeviceType::CUDA, op)) << op;
  }
}

TEST(CudaDispatch, OpWithoutACudaKernelNamesTheOpAndDevice) {
  std::vector<float> x(16, 1.0f);
  const Tensor input = fake_cuda(x, {4, 4});
  EXPECT_EQ(error_of([&] { (void)argmax(input, 1); }),
            "argmax: no CUDA kernel; move the tensors to cpu (t.cpu()) to run it there");
}

TEST(CudaDispatch, AKernelOfAnotherSignatureIsALogicError) {
  using Wrong = Tensor(const Tensor&);
  EXPECT_THROW(detail::device_kernel<Wrong>(DeviceType::CUDA, "mm"), std::logic_error);
}

TEST(CudaDispatch, ViewsOfCudaTensorsShareTheDeviceStorage) {
  std::vector<float> data(6, 0.0f);
  const Tensor t = fake_cuda(data, {2, 3});
  const Tensor tt = t.t();
  EXPECT_EQ(tt.device(), kCuda);
  EXPECT_EQ(tt.sizes(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(tt.strides(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(tt.raw_data(), data.data());
  EXPECT_EQ(t.reshape({6}).raw_data(), data.data());
  EXPECT_EQ(t.unsqueeze(0).sizes(), (std::vector<int64_t>{1, 2, 3}));
}

TEST(CudaDispatch, MixingCpuAndCudaTensorsIsAnError) {
  std::vector<float> data(6, 0.0f);
  const Tensor t = fake_cuda(data, {2, 3});
  EXPECT_THROW((void)add(t, ones({2, 3})), ShapeError);
}

TEST(PointwiseArgs, BroadcastInputsGetStrideZero) {
  const Tensor out = empty({2, 3});
  const Tensor a = ones({2, 3}), row = ones({3}), col = ones({2, 1});
  const std::vector<Tensor> in = {a, row, col};
  const std::vector<Scalar> s = {Scalar(2.5)};
  const PointwiseArgs args = pointwise_args("test", out, in, s, DType::Float32);
  EXPECT_EQ(args.numel, 6);
  EXPECT_EQ(args.ndim, 2);
  EXPECT_EQ(args.num_inputs, 3);
  EXPECT_EQ(args.in_strides[0][0], 3);
  EXPECT_EQ(args.in_strides[1][0], 0);
  EXPECT_EQ(args.in_strides[1][1], 1);
  EXPECT_EQ(args.in_strides[2][0], 1);
  EXPECT_EQ(args.in_strides[2][1], 0);
  EXPECT_EQ(args.scalars[0], 2.5);
  EXPECT_EQ(args.in[1], row.raw_data());
  EXPECT_FALSE(args.contiguous);  // broadcasting takes the strided path
}

TEST(PointwiseArgs, DenseSameDtypeOperandsTakeTheFastPath) {
  const Tensor out = empty({4, 5}), a = ones({4, 5}), b = ones({4, 5});
  const std::vector<Tensor> in = {a, b};
  EXPECT_TRUE(pointwise_args("test", out, in, {}, DType::Float32).contiguous);
  EXPECT_FALSE(pointwise_args("test", out, in, {}, DType::Float64).contiguous);
  const Tensor bt = ones({5, 4}).t();
  const std::vector<Tensor> transposed = {a, bt};
  const PointwiseArgs args = pointwise_args("test", out, transposed, {}, DType::Float32);
  EXPECT_FALSE(args.contiguous);
  EXPECT_EQ(args.in_strides[1][0], 1);
  EXPECT_EQ(args.in_strides[1][1], 4);
}

TEST(PointwiseArgs, ShapesTheKernelCannotTakeAreShapeErrors) {
  const Tensor out = empty({2, 3});
  const std::vector<Tensor> bad = {ones({4})};
  EXPECT_THROW(pointwise_args("test", out, bad, {}, DType::Float32), ShapeError);
  const Tensor deep = empty(std::vector<int64_t>(9, 1));
  EXPECT_THROW(pointwise_args("test", deep, {}, {}, DType::Float32), ShapeError);
}

// ---- on a device: every result is compared with the cpu's.

class CudaOnDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!is_available()) GTEST_SKIP() << unavailable_reason();
  }
};

void expect_close(const Tensor& cuda, const Tensor& cpu, double tol = 1e-5) {
  ASSERT_EQ(cuda.device(), kCuda);
  ASSERT_EQ(cuda.sizes(), cpu.sizes());
  ASSERT_EQ(cuda.dtype(), cpu.dtype());
  const std::vector<double> got = values<double>(cuda), want = values<double>(cpu);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << "at " << i;
  }
}

TEST_F(CudaOnDevice, CopiesRoundTripEveryDtypeAndLayout) {
  for (DType dtype : {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Bool}) {
    const Tensor cpu = arange(0, 12, 1, DType::Int64).to(dtype).reshape({3, 4});
    const Tensor gpu = cpu.to(kCuda);
    EXPECT_EQ(gpu.device(), kCuda);
    EXPECT_EQ(values<double>(gpu), values<double>(cpu));
    EXPECT_EQ(values<double>(gpu.t()), values<double>(cpu.t()));          // strided to cpu
    EXPECT_EQ(values<double>(gpu.t().clone()), values<double>(cpu.t()));  // strided clone
    EXPECT_EQ(values<double>(gpu.slice(1, 1, 3)), values<double>(cpu.slice(1, 1, 3)));
  }
  EXPECT_EQ(empty({0, 3}).to(kCuda).cpu().numel(), 0);
}

TEST_F(CudaOnDevice, PointwiseOpsMatchTheCpu) {
  const Tensor a = randn({4, 5}), b = randn({5}), pos = rand({4, 5}) + 0.1;
  const Tensor ga = a.to(kCuda), gb = b.to(kCuda), gpos = pos.to(kCuda);
  expect_close(add(ga, gb, 2), add(a, b, 2));
  expect_close(mul(ga, 3.0), mul(a, 3.0));
  expect_close(div(ga, gpos), div(a, pos));
  expect_close(exp(ga), exp(a));
  expect_close(relu(ga), relu(a));
  expect_close(log(gpos), log(pos));
  expect_close(eq(ga, ga.t().t()), eq(a, a));
  expect_close(where(gt(ga, 0), ga, gb), where(gt(a, 0), a, b));
  expect_close(add(ga.t(), ga.t()), add(a.t(), a.t()));  // transposed operands
  const Tensor ints = arange(0, 6, 1, DType::Int64);
  expect_close(div(ints.to(kCuda), 4), div(ints, 4));  // int -> float promotion
}

TEST_F(CudaOnDevice, InPlaceOpsWriteTheDeviceTensor) {
  const Tensor a = randn({3, 4}), b = randn({4});
  const Tensor ga = a.to(kCuda);
  ga.add_(b.to(kCuda), 0.5);
  expect_close(ga, add(a, b, 0.5));
  const Tensor dst = zeros({4, 3}).to(kCuda);
  dst.t().copy_(ga);  // into a transposed view
  expect_close(dst, add(a, b, 0.5).t().contiguous());
}

TEST_F(CudaOnDevice, MatrixProductsMatchTheCpu) {
  for (DType dtype : {DType::Float32, DType::Float64}) {
    const Tensor a = randn({7, 5}).to(dtype), b = randn({5, 3}).to(dtype);
    const Tensor bias = randn({3}).to(dtype), bt = randn({3, 5}).to(dtype);
    expect_close(mm(a.to(kCuda), b.to(kCuda)), mm(a, b), 1e-4);
    expect_close(mm(a.to(kCuda), bt.to(kCuda).t()), mm(a, bt.t()), 1e-4);  // transposed operand
    expect_close(addmm(bias.to(kCuda), a.to(kCuda), b.to(kCuda), 0.5, 2), addmm(bias, a, b, 0.5, 2),
                 1e-4);
    const Tensor x = randn({4, 7, 5}).to(dtype), y = randn({4, 5, 3}).to(dtype);
    expect_close(bmm(x.to(kCuda), y.to(kCuda)), bmm(x, y), 1e-4);
  }
  EXPECT_THROW(mm(ones({2, 2}, DType::Int64).to(kCuda), ones({2, 2}, DType::Int64).to(kCuda)),
               ShapeError);
}

TEST_F(CudaOnDevice, ReductionsMatchTheCpu) {
  const Tensor a = randn({6, 7, 5});
  const Tensor ga = a.to(kCuda);
  expect_close(sum(ga), sum(a), 1e-4);
  expect_close(sum(ga, std::vector<int64_t>{1}), sum(a, std::vector<int64_t>{1}), 1e-4);
  expect_close(sum(ga, std::vector<int64_t>{0, 2}, true), sum(a, std::vector<int64_t>{0, 2}, true),
               1e-4);
  expect_close(mean(ga, std::vector<int64_t>{-1}), mean(a, std::vector<int64_t>{-1}), 1e-4);
  expect_close(sum(ga.transpose(0, 2), std::vector<int64_t>{0}),
               sum(a.transpose(0, 2), std::vector<int64_t>{0}), 1e-4);  // a strided view
  const Tensor ints = arange(0, 10, 1, DType::Int32);
  expect_close(sum(ints.to(kCuda)), sum(ints));  // int32 sums to int64
}

TEST_F(CudaOnDevice, FreedBlocksAreReused) {
  (void)ones({1024}).to(kCuda);  // allocated and freed
  const MemoryStats before = memory_stats();
  (void)ones({1024}).to(kCuda);
  const MemoryStats after = memory_stats();
  EXPECT_EQ(after.hits, before.hits + 1);
  EXPECT_EQ(after.misses, before.misses);
  empty_cache();
  EXPECT_EQ(memory_stats().bytes_cached, 0u);
}

}  // namespace
}  // namespace lazygen::cuda
