// Every fusion group of representative graphs becomes CUDA source that NVRTC compiles to PTX
// (backend/cuda/jit/group_kernel_source.h through nvrtc_compiler.h), and each input is read the way
// its layout asks: contiguous (vectorized), broadcast, or strided. No GPU needed.
#include "backend/cuda/jit/group_kernel_source.h"

#include <gtest/gtest.h>

#include "backend/cuda/jit/nvrtc_compiler.h"
#include "examples/tutorial_models.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/nll_loss.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/sqrt.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/optim/optimizer.h"
#include "runtime/fusion/fusion_test_util.h"

namespace lazygen::cuda {
namespace {

using Access = GroupKernel::Access;

class GroupKernelSourceTest : public lazygen::testing::FusionTest {
 protected:
  // Plans the pending values of `outs`, emits every group and compiles it to PTX.
  std::vector<GroupKernel> compile_groups(const std::vector<Tensor>& outs) {
    const exec::Graph graph = lazygen::testing::graph_of(outs);
    const fusion::FusionPlan plan = fusion::plan_fusion(graph);
    std::vector<GroupKernel> kernels;
    for (uint32_t g = 0; g < plan.groups.size(); ++g) {
      GroupKernel k = emit_group_kernel(graph, plan, g);
      CompileRequest request;
      request.source = k.source;
      request.name = "group_" + std::to_string(g) + ".cu";
      std::string ptx;
      try {
        ptx = nvrtc_.compile(request);
      } catch (const NvrtcError& e) {
        ADD_FAILURE() << e.what() << "\nsource:\n" << k.source;
        continue;
      }
      EXPECT_NE(ptx.find(std::string(".entry ") + kGroupKernel32), std::string::npos);
      EXPECT_NE(ptx.find(std::string(".entry ") + kGroupKernel64), std::string::npos);
      ptx_.push_back(std::move(ptx));
      if (std::getenv("LAZYGEN_TEST_PRINT_SOURCE")) std::printf("%s\n", k.source.c_str());
      kernels.push_back(std::move(k));
    }
    mark_step();
    return kernels;
  }

  static std::vector<Access> accesses(const GroupKernel& k) {
    std::vector<Access> out;
    for (const GroupKernel::Input& in : k.inputs) out.push_back(in.access);
    return out;
  }

  NvrtcCompiler nvrtc_{memory_only()};
  std::vector<std::string> ptx_;

 private:
  static kernel_cache::KernelCacheOptions memory_only() {
    kernel_cache::KernelCacheOptions options;
    options.dir = std::filesystem::path();
    return options;
  }
};

TEST_F(GroupKernelSourceTest, APointwiseChainIsOneVectorizedKernel) {
  Tensor x = randn({1024}).to(kLazy);
  std::vector<GroupKernel> k = compile_groups({relu(x * 2.0 + 1.0) - 0.5});
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(accesses(k[0]), std::vector<Access>{Access::Contiguous});
  EXPECT_EQ(k[0].vector_width, 4);
  EXPECT_EQ(k[0].scalar_nodes.size(), 5u);  // add and sub take other and alpha
  EXPECT_NE(ptx_[0].find("ld.global.v4.f32"), std::string::npos) << "16-byte loads";
  EXPECT_NE(ptx_[0].find("st.global.v4.f32"), std::string::npos) << "16-byte stores";
}

TEST_F(GroupKernelSourceTest, ABroadcastAddReadsTheSmallOperandByStrideZero) {
  Tensor x = randn({64, 32}).to(kLazy), row = randn({32}).to(kLazy), one = randn({1}).to(kLazy);
  std::vector<GroupKernel> k = compile_groups({(x + row) * one});
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(accesses(k[0]),
            (std::vector<Access>{Access::Contiguous, Access::Strided, Access::Broadcast}));
  EXPECT_EQ(k[0].inputs[1].strides, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(k[0].vector_width, 1) << "a strided input takes the scalar path";
}

TEST_F(GroupKernelSourceTest, ATransposedInputIsReadThroughPerDimStrides) {
  Tensor x = randn({32, 64}).to(kLazy), y = randn({64, 32}).to(kLazy);
  std::vector<GroupKernel> k = compile_groups({exp(x.t()) + y});
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].dims, (std::vector<int64_t>{64, 32}));
  EXPECT_EQ(accesses(k[0]), (std::vector<Access>{Access::Strided, Access::Contiguous}));
  EXPECT_EQ(k[0].inputs[0].strides, (std::vector<int64_t>{1, 64}));
}

TEST_F(GroupKernelSourceTest, AMixedDtypeComparisonConvertsInputsAndStoresBool) {
  Tensor x = randn({256}).to(kLazy), i = arange(256).to(kLazy);  // float32 and int64
  std::vector<GroupKernel> k = compile_groups({gt(x, i)});
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].dtype, DType::Float32);
  ASSERT_EQ(k[0].inputs.size(), 2u);
  EXPECT_EQ(k[0].inputs[1].dtype, DType::Int64);
  ASSERT_EQ(k[0].outputs.size(), 1u);
  EXPECT_EQ(k[0].outputs[0].dtype, DType::Bool);
  EXPECT_EQ(k[0].vector_width, 2) << "16 bytes of int64";
}

TEST_F(GroupKernelSourceTest, Float64AndInt64GroupsCompile) {
  Tensor d = randn({100}).to(DType::Float64).to(kLazy);
  Tensor n = arange(100).to(kLazy);
  std::vector<GroupKernel> k = compile_groups({sqrt(abs(d)) * 3.0, n * 2 + 7});
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].dtype, DType::Float64);
  EXPECT_EQ(k[1].dtype, DType::Int64);
}

TEST_F(GroupKernelSourceTest, AFoldedReductionStoresItsInputAsTheLastOutput) {
  Tensor x = randn({8, 16}).to(kLazy), y = randn({16}).to(kLazy);
  std::vector<GroupKernel> k = compile_groups({sum(exp(x) * y, std::vector<int64_t>{1})});
  ASSERT_EQ(k.size(), 1u);
  EXPECT_TRUE(k[0].reduction_input);
  ASSERT_EQ(k[0].outputs.size(), 1u);
  EXPECT_EQ(k[0].outputs[0].dtype, DType::Float32);
}

TEST_F(GroupKernelSourceTest, AFoldedLeadingReductionStoresItsInputAsTheLastOutputToo) {
  Tensor x = randn({8, 16}).to(kLazy), b = randn({16}).to(kLazy);
  std::vector<GroupKernel> k = compile_groups({sum(relu(x + b), std::vector<int64_t>{0})});
  ASSERT_EQ(k.size(), 1u);
  EXPECT_TRUE(k[0].reduction_input);
  ASSERT_EQ(k[0].outputs.size(), 1u);
  EXPECT_EQ(k[0].outputs[0].dtype, DType::Float32);
}

TEST_F(GroupKernelSourceTest, EveryGroupOfAnMlpTrainingStepCompiles) {
  examples::Mlp model;
  model.to(kLazy);
  optim::SGD opt(model.parameters(), {.lr = 0.1, .momentum = 0.9});
  Tensor images = randn({8, 1, 28, 28}).to(kLazy);
  Tensor targets = arange(8).to(kLazy);
  opt.zero_grad();
  Tensor loss = nn::functional::nll_loss(model.forward(images), targets);
  loss.backward();
  opt.step();
  std::vector<Tensor> outs = {loss};
  for (const Tensor& p : model.parameters()) outs.push_back(p);
  std::vector<GroupKernel> k = compile_groups(outs);
  EXPECT_GE(k.size(), 3u);
}

TEST_F(GroupKernelSourceTest, TheSourceDependsOnStructureNotSizes) {
  Tensor a = randn({1000}).to(kLazy), b = randn({3000}).to(kLazy);
  const std::string small = compile_groups({exp(a) + 1.0})[0].source;
  const std::string large = compile_groups({exp(b) + 1.0})[0].source;
  EXPECT_EQ(small, large);
  EXPECT_EQ(small.find("#include <"), small.find("#include <cmath>")) << "include-free";
}

}  // namespace
}  // namespace lazygen::cuda
