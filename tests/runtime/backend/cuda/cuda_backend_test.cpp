// The lazy CUDA backend (backend/cuda/lazy/cuda_backend.h). Without a device: selecting it fails
// with "no CUDA device: ...", and compile() turns representative graphs (pointwise chains,
// broadcasts, mixed dtypes, a folded reduction, a training-step-like graph with addmm/mm) into one
// NVRTC-compiled PTX module per fusion group plus eager steps, or names the op it cannot lower.
// With a device (CudaLazyOnDevice.*, skipped otherwise): lazy results on the GPU match eager cpu
// results, the second step of a loop is a computation-cache hit, and a new batch size is a
// specialization of the compiled graph, whose kernels it reuses (also checked without a device).
#include "backend/cuda/lazy/cuda_backend.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "backend/cuda/jit/driver_api.h"
#include "backend/cuda/lazy/cuda_executable.h"
#include "lazygen/cuda.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/argmax.h"
#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/sqrt.h"
#include "lazygen/generated/ops/sum.h"
#include "runtime/backend/cuda/cuda_testing.h"
#include "runtime/backend/cuda/tutorial_cnn_step.h"
#include "runtime/fusion/fusion_test_util.h"

namespace lazygen::cuda {
namespace {

using lazygen::testing::Program;

std::vector<Tensor> chain(const std::vector<Tensor>& in) {
  return {relu(in[0] * 2.0 + 1.0) - 0.5};
}
std::vector<Tensor> broadcasts(const std::vector<Tensor>& in) {
  return {(in[0] + in[1]) * in[2], exp(in[0].t()) + in[3]};
}
std::vector<Tensor> mixed_dtypes(const std::vector<Tensor>& in) {
  return {gt(in[0], in[1]), in[1] * 2 + 7, sqrt(abs(in[2])) * 3.0};
}
std::vector<Tensor> folded_reduction(const std::vector<Tensor>& in) {
  return {sum(exp(in[0]) * in[1], std::vector<int64_t>{1})};
}
// One SGD step of relu(x @ w + b) on loss sum(h * h), gradients written out by hand.
std::vector<Tensor> train_step(const std::vector<Tensor>& in) {
  const Tensor &x = in[0], &w = in[1], &b = in[2];
  Tensor h = relu(b.addmm(x, w));
  Tensor loss = (h * h).sum();
  Tensor grad_h = h * 2.0;
  Tensor grad_w = x.t().mm(grad_h);
  Tensor grad_b = sum(grad_h, std::vector<int64_t>{0});
  return {loss, w - grad_w * 0.1, b - grad_b * 0.1};
}

std::vector<Tensor> chain_inputs() {
  return {randn({1024})};
}
std::vector<Tensor> broadcast_inputs() {
  return {randn({64, 32}), randn({32}), randn({1}), randn({32, 64})};
}
std::vector<Tensor> mixed_inputs() {
  return {randn({256}), arange(256), randn({256}).to(DType::Float64)};
}
std::vector<Tensor> reduction_inputs() {
  return {randn({8, 16}), randn({16})};
}
std::vector<Tensor> train_inputs() {
  return {randn({16, 32}), randn({32, 8}), randn({8})};
}

class CudaBackendCompile : public lazygen::testing::FusionTest {
 protected:
  // Traces `program` on lazy copies of `inputs` and compiles the graph; every group must have
  // PTX with both entry points for sm_90.
  const CudaExecutable& compile(const Program& program, const std::vector<Tensor>& inputs) {
    const std::vector<Tensor> outs = program(lazygen::testing::to_lazy(inputs));
    const exec::Graph graph = lazygen::testing::graph_of(outs);
    groups_ = fusion::plan_fusion(graph).groups.size();
    executable_ = backend_.compile(graph);
    const auto& e = static_cast<const CudaExecutable&>(*executable_);
    for (const CudaGroupStep& g : e.groups) {
      EXPECT_NE(g.binary->ptx.find(std::string(".entry ") + kGroupKernel32), std::string::npos);
      EXPECT_NE(g.binary->ptx.find(std::string(".entry ") + kGroupKernel64), std::string::npos);
      EXPECT_NE(g.binary->ptx.find(".target sm_90"), std::string::npos);
    }
    mark_step();
    return e;
  }

  // Every answer the kernel cache gave: from memory, from disk, or built.
  static int64_t kernel_cache_lookups() {
    return metrics::counter_value("kernel_cache.memory_hit") +
           metrics::counter_value("kernel_cache.disk_hit") +
           metrics::counter_value("kernel_cache.miss");
  }

  static std::vector<std::string> lowered_ops(const CudaExecutable& e) {
    std::vector<std::string> ops;
    for (const CudaLowerStep& l : e.lowers) ops.push_back(ir::op_kind_name(l.node->op()));
    return ops;
  }

  CudaBackend backend_{testing::sm90_memory_only()};
  std::unique_ptr<exec::Executable> executable_;
  size_t groups_ = 0;
};

TEST_F(CudaBackendCompile, APointwiseChainIsOneKernelAndNoEagerStep) {
  const CudaExecutable& e = compile(chain, chain_inputs());
  ASSERT_EQ(e.groups.size(), 1u);
  EXPECT_TRUE(e.lowers.empty());
  EXPECT_EQ(e.steps.size(), 1u);
  EXPECT_EQ(e.groups[0].kernel.vector_width, 4);
}

TEST_F(CudaBackendCompile, BroadcastsAndTransposesCompileEveryGroup) {
  const CudaExecutable& e = compile(broadcasts, broadcast_inputs());
  EXPECT_EQ(e.groups.size(), groups_);
  EXPECT_GE(e.groups.size(), 2u);
  EXPECT_EQ(e.output_slots.size(), 2u);
}

TEST_F(CudaBackendCompile, MixedDtypesCompileOneKernelPerComputeDtype) {
  const CudaExecutable& e = compile(mixed_dtypes, mixed_inputs());
  EXPECT_EQ(e.groups.size(), groups_);
  std::vector<DType> dtypes;
  for (const CudaGroupStep& g : e.groups) dtypes.push_back(g.kernel.dtype);
  EXPECT_NE(std::find(dtypes.begin(), dtypes.end(), DType::Float64), dtypes.end());
  EXPECT_NE(std::find(dtypes.begin(), dtypes.end(), DType::Int64), dtypes.end());
}

TEST_F(CudaBackendCompile, AFoldedReductionRunsAsGroupThenEagerSum) {
  const CudaExecutable& e = compile(folded_reduction, reduction_inputs());
  ASSERT_EQ(e.groups.size(), 1u);
  EXPECT_TRUE(e.groups[0].kernel.reduction_input);
  EXPECT_EQ(lowered_ops(e), std::vector<std::string>{"sum.dim_IntList"});
  // The reduction reads the group's extra output, not a slot of the graph's nodes.
  EXPECT_EQ(e.lowers[0].operand_slots[0], e.groups[0].output_slots.back());
  EXPECT_EQ(e.groups[0].output_shapes.back(), Shape(DType::Float32, {8, 16}));
}

TEST_F(CudaBackendCompile, ATrainingStepRunsMatmulsEagerlyAndTheRestAsKernels) {
  const CudaExecutable& e = compile(train_step, train_inputs());
  EXPECT_EQ(e.groups.size(), groups_);
  EXPECT_GE(e.groups.size(), 2u);
  const std::vector<std::string> ops = lowered_ops(e);
  EXPECT_NE(std::find(ops.begin(), ops.end(), "addmm"), ops.end());
  EXPECT_NE(std::find(ops.begin(), ops.end(), "mm"), ops.end());
  EXPECT_EQ(e.output_slots.size(), 3u);
  EXPECT_EQ(e.steps.size(), e.groups.size() + e.lowers.size());
}

TEST_F(CudaBackendCompile, AnOpWithoutACudaLoweringIsACompileErrorNamingIt) {
  Tensor x = randn({4, 8}).to(kLazy);
  const exec::Graph graph = lazygen::testing::graph_of({argmax(x, 1)});
  try {
    backend_.compile(graph);
    ADD_FAILURE() << "compiled";
  } catch (const exec::CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA lowering for op argmax"), std::string::npos)
        << e.what();
  }
  mark_step();
}

// Forward, backward and Adadelta of the tutorial CNN: every node runs on the GPU, as a fused
// group (compiled to PTX) or as a lowered eager CUDA op.
TEST_F(CudaBackendCompile, TheTutorialCnnTrainingStepCompilesWithEveryNodeOnTheGpu) {
  lazygen::testing::CnnRun run(kLazy, 2);
  const exec::Graph graph = lazygen::testing::graph_of(run.step(kLazy));
  executable_ = backend_.compile(graph);
  const auto& e = static_cast<const CudaExecutable&>(*executable_);
  EXPECT_FALSE(e.groups.empty());
  const std::vector<std::string> ops = lowered_ops(e);
  for (const char* op : {"conv2d", "conv2d_backward_weight", "max_pool2d", "max_pool2d_backward",
                         "_dropout_mask", "_log_softmax", "_log_softmax_backward_data", "nll_loss",
                         "nll_loss_backward", "addmm", "mm"}) {
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op;
  }
  mark_step();
}

TEST_F(CudaBackendCompile, CompiledKernelsComeFromTheKernelCacheTheSecondTime) {
  compile(chain, chain_inputs());
  const int64_t before = metrics::counter_value("nvrtc.compile");
  compile(chain, chain_inputs());
  EXPECT_EQ(metrics::counter_value("nvrtc.compile"), before);
}

TEST_F(CudaBackendCompile, ExecutingWithoutADriverSaysWhyInsteadOfCrashing) {
  if (void* h = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    ::dlclose(h);
    GTEST_SKIP() << "libcuda.so.1 is installed";
  }
  const CudaExecutable& e = compile(chain, chain_inputs());
  const std::vector<exec::Input> inputs(e.input_slots.size());
  try {
    backend_.execute(e, inputs);
    ADD_FAILURE() << "executed";
  } catch (const DriverUnavailable& err) {
    EXPECT_EQ(std::string(err.what()).rfind("no CUDA device: cannot load the CUDA driver", 0), 0u)
        << err.what();
  }
  for (const CudaGroupStep& g : e.groups) {
    EXPECT_FALSE(g.binary->loaded.has_value()) << "no module was loaded";
  }
}

// Note [Specializing a fusion plan] on CUDA: a new batch size of the training step is the compiled
// plan rebound, every kernel taken from the compiled executable (no NVRTC, not even a kernel cache
// lookup), and the result is what compiling at the new sizes gives.
TEST_F(CudaBackendCompile, ANewBatchSizeSpecializesWithTheCompiledKernels) {
  const CudaExecutable& compiled = compile(train_step, train_inputs());
  const std::vector<Tensor> outs =
      train_step(lazygen::testing::to_lazy({randn({5, 32}), randn({32, 8}), randn({8})}));
  const exec::Graph graph = lazygen::testing::graph_of(outs);
  const int64_t reused = metrics::counter_value("cuda.lazy.specialize_kernel_reuse");
  const int64_t lookups = kernel_cache_lookups();
  const std::unique_ptr<exec::Executable> specialized = backend_.specialize(compiled, graph);
  ASSERT_NE(specialized, nullptr);
  const auto& s = static_cast<const CudaExecutable&>(*specialized);
  EXPECT_EQ(metrics::counter_value("cuda.lazy.specialize_kernel_reuse") - reused,
            static_cast<int64_t>(s.groups.size()));
  EXPECT_EQ(kernel_cache_lookups(), lookups);
  const std::unique_ptr<exec::Executable> fresh = backend_.compile(graph);
  const auto& f = static_cast<const CudaExecutable&>(*fresh);
  ASSERT_EQ(s.groups.size(), f.groups.size());
  for (size_t g = 0; g < s.groups.size(); ++g) {
    EXPECT_EQ(s.groups[g].binary, compiled.groups[g].binary) << "group " << g;
    EXPECT_EQ(s.groups[g].kernel.source, f.groups[g].kernel.source) << "group " << g;
    EXPECT_EQ(s.groups[g].kernel.numel, f.groups[g].kernel.numel) << "group " << g;
    EXPECT_EQ(s.groups[g].kernel.dims, f.groups[g].kernel.dims) << "group " << g;
    EXPECT_EQ(s.groups[g].output_shapes, f.groups[g].output_shapes) << "group " << g;
  }
  EXPECT_EQ(lowered_ops(s), lowered_ops(f));
  for (const CudaLowerStep& l : s.lowers) {
    EXPECT_NE(std::find(graph.nodes().begin(), graph.nodes().end(), l.node), graph.nodes().end())
        << "a lowered step reads the new graph's node, not the compiled one's";
  }
  EXPECT_EQ(s.num_slots, f.num_slots);
  EXPECT_EQ(s.input_slots, f.input_slots);
  EXPECT_EQ(s.output_slots, f.output_slots);
  mark_step();
}

// A group whose kernel source the new sizes change (an input that becomes all size 1 is read as
// a broadcast) gets its own PTX, that of the fresh compile; the others keep the compiled one's.
TEST_F(CudaBackendCompile, AGroupWhoseSourceChangesIsCompiledAnew) {
  const CudaExecutable& compiled = compile(chain, chain_inputs());
  const std::vector<Tensor> outs = chain(lazygen::testing::to_lazy({randn({1})}));
  const exec::Graph graph = lazygen::testing::graph_of(outs);
  const std::unique_ptr<exec::Executable> specialized = backend_.specialize(compiled, graph);
  const std::unique_ptr<exec::Executable> fresh = backend_.compile(graph);
  ASSERT_NE(specialized, nullptr);
  const auto& s = static_cast<const CudaExecutable&>(*specialized);
  const auto& f = static_cast<const CudaExecutable&>(*fresh);
  ASSERT_EQ(s.groups.size(), 1u);
  ASSERT_EQ(f.groups.size(), 1u);
  EXPECT_NE(s.groups[0].kernel.source, compiled.groups[0].kernel.source);
  EXPECT_NE(s.groups[0].binary, compiled.groups[0].binary);
  EXPECT_EQ(s.groups[0].kernel.source, f.groups[0].kernel.source);
  EXPECT_EQ(s.groups[0].binary->ptx, f.groups[0].binary->ptx);
  mark_step();
}

// An empty batch is a size the plan depends on (Note [Specializing a fusion plan]): no
// specialization, so the executor compiles it.
TEST_F(CudaBackendCompile, AnEmptyBatchIsNotSpecialized) {
  const CudaExecutable& compiled = compile(folded_reduction, reduction_inputs());
  const std::vector<Tensor> outs =
      folded_reduction(lazygen::testing::to_lazy({randn({0, 16}), randn({16})}));
  EXPECT_EQ(backend_.specialize(compiled, lazygen::testing::graph_of(outs)), nullptr);
  mark_step();
}

// Selection without a device.
TEST(CudaLazyBackend, AskingForItWithoutADeviceSaysWhy) {
  if (is_available()) GTEST_SKIP() << "a CUDA device is present";
  try {
    set_lazy_backend("cuda");
    ADD_FAILURE() << "selected";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("no CUDA device: ", 0), 0u) << e.what();
  }
  EXPECT_EQ(lazy_backend(), "cpu");
  EXPECT_THROW(make_cuda_backend(), std::runtime_error);
}

TEST(CudaLazyBackend, ABackendAskingTheDeviceForItsArchNeedsTheDriver) {
  if (is_available()) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_THROW(CudaBackend(CudaBackend::Options{}), DriverUnavailable);
}

TEST(CudaLazyBackend, AnUnknownBackendNameIsAnInvalidArgument) {
  EXPECT_THROW(set_lazy_backend("tpu"), std::invalid_argument);
  EXPECT_EQ(lazy_backend(), "cpu");
}

// On a device: lazy graphs on the GPU against eager cpu.
class CudaLazyOnDevice : public testing::LazyCudaTest {};

TEST_F(CudaLazyOnDevice, PointwiseChainsMatchCpu) {
  lazygen::testing::expect_fused_matches_eager(chain, chain_inputs(), 1e-6);
}

TEST_F(CudaLazyOnDevice, BroadcastsMatchCpu) {
  lazygen::testing::expect_fused_matches_eager(broadcasts, broadcast_inputs(), 1e-6);
}

TEST_F(CudaLazyOnDevice, MixedDtypesMatchCpu) {
  lazygen::testing::expect_fused_matches_eager(mixed_dtypes, mixed_inputs(), 1e-6);
}

TEST_F(CudaLazyOnDevice, FoldedReductionsMatchCpu) {
  lazygen::testing::expect_fused_matches_eager(folded_reduction, reduction_inputs(), 1e-5);
}

TEST_F(CudaLazyOnDevice, ATrainingStepMatchesCpuAndHitsTheCacheTheSecondTime) {
  const std::vector<Tensor> inputs = train_inputs();
  lazygen::testing::expect_fused_matches_eager(train_step, inputs, 1e-4);
  const int64_t hits = metrics::counter_value("computation_cache.hit");
  const int64_t misses = metrics::counter_value("computation_cache.miss");
  lazygen::testing::expect_fused_matches_eager(train_step, inputs, 1e-4);
  EXPECT_GT(metrics::counter_value("computation_cache.hit"), hits);
  EXPECT_EQ(metrics::counter_value("computation_cache.miss"), misses);
  EXPECT_GT(metrics::counter_value("cuda.lazy.launches"), 0);
}

// A new batch size on the GPU: specialized, not compiled, and still equal to the cpu's results.
TEST_F(CudaLazyOnDevice, ANewBatchSizeSpecializesAndMatchesCpu) {
  lazygen::testing::expect_fused_matches_eager(train_step, train_inputs(), 1e-4);
  const int64_t specialized = metrics::counter_value("computation_cache.specialize");
  const int64_t misses = metrics::counter_value("computation_cache.miss");
  lazygen::testing::expect_fused_matches_eager(train_step,
                                               {randn({5, 32}), randn({32, 8}), randn({8})}, 1e-4);
  EXPECT_EQ(metrics::counter_value("computation_cache.specialize"), specialized + 1);
  EXPECT_EQ(metrics::counter_value("computation_cache.miss"), misses);
}

}  // namespace
}  // namespace lazygen::cuda
