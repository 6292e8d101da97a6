// AOT CUDA kernels (See Note [CUDA AOT kernels] in backend/cuda/aot/cuda_aot_kernel.h). This binary
// links the kernels lazygen_add_kernels builds from cuda_aot_test.manifest (nvcc, sm_90): every
// group of the representative programs below (a vectorized chain, broadcasts with strided and
// transposed loads, mixed dtypes, a folded reduction) finds its prebuilt kernel, which proves
// without a GPU that the generator wrote the very source the JIT would compile (the entry's
// source hash); compile() then skips NVRTC. Misses, stale entries and LAZYGEN_AOT=0 fall back to
// NVRTC. With a device (CudaAotOnDevice.*, skipped otherwise) the prebuilt kernels run and match
// the cpu.
//
// Record the manifest again when the programs change:
//   LAZYGEN_RECORD=tests/runtime/backend/cuda/cuda_aot_test.manifest cuda_aot_test
//     --gtest_filter='CudaAot.EveryGroupOfTheProgramsHasAPrebuiltKernel'
#include <gtest/gtest.h>

#include <iterator>

#include "backend/cuda/aot/cuda_aot_registry.h"
#include "backend/cuda/lazy/cuda_backend.h"
#include "backend/cuda/lazy/cuda_executable.h"
#include "fusion/aot_lookup.h"
#include "fusion/kernel_key.h"
#include "lazygen/aot.h"
#include "lazygen/cuda.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/sigmoid.h"
#include "lazygen/generated/ops/sqrt.h"
#include "lazygen/generated/ops/sum.h"
#include "runtime/backend/cuda/cuda_testing.h"
#include "runtime/fusion/fusion_test_util.h"

namespace lazygen::cuda {
namespace {

using lazygen::testing::Program;

struct Case {
  Program program;
  std::vector<Tensor> (*inputs)();
};

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases = {
      {[](const std::vector<Tensor>& in) {
         return std::vector<Tensor>{relu(in[0] * 2.0 + 1.0) - 0.5};
       },
       [] { return std::vector<Tensor>{randn({1024})}; }},
      {[](const std::vector<Tensor>& in) {
         return std::vector<Tensor>{(in[0] + in[1]) * in[2], exp(in[0].t()) + in[3]};
       },
       [] {
         return std::vector<Tensor>{randn({64, 32}), randn({32}), randn({1}), randn({32, 64})};
       }},
      {[](const std::vector<Tensor>& in) {
         return std::vector<Tensor>{gt(in[0], in[1]), in[1] * 2 + 7, sqrt(abs(in[2])) * 3.0};
       },
       [] {
         return std::vector<Tensor>{randn({256}), arange(256), randn({256}).to(DType::Float64)};
       }},
      {[](const std::vector<Tensor>& in) {
         return std::vector<Tensor>{sum(exp(in[0]) * in[1], std::vector<int64_t>{1})};
       },
       [] {
         return std::vector<Tensor>{randn({8, 16}), randn({16})};
       }},
  };
  return kCases;
}

// Not in the manifest.
std::vector<Tensor> unlisted(const std::vector<Tensor>& in) {
  return {sigmoid(in[0]) * 3.0 - in[0]};
}

class CudaAot : public lazygen::testing::FusionTest {
 protected:
  // Every group kernel of `program` on lazy copies of `inputs`, as compile() emits them.
  std::vector<GroupKernel> kernels(const Program& program, const std::vector<Tensor>& inputs) {
    const exec::Graph graph =
        lazygen::testing::graph_of(program(lazygen::testing::to_lazy(inputs)));
    const fusion::FusionPlan plan = fusion::plan_fusion(graph);
    std::vector<GroupKernel> out;
    for (uint32_t g = 0; g < plan.groups.size(); ++g)
      out.push_back(emit_group_kernel(graph, plan, g));
    mark_step();
    return out;
  }

  const CudaExecutable& compile(const Program& program, const std::vector<Tensor>& inputs) {
    const exec::Graph graph =
        lazygen::testing::graph_of(program(lazygen::testing::to_lazy(inputs)));
    executable_ = backend_.compile(graph);
    mark_step();
    return static_cast<const CudaExecutable&>(*executable_);
  }

  CudaBackend backend_{testing::sm90_memory_only()};
  std::unique_ptr<exec::Executable> executable_;
};

TEST_F(CudaAot, EveryGroupOfTheProgramsHasAPrebuiltKernel) {
  const int64_t hits = metrics::counter_value("cuda.aot.hit");
  int64_t groups = 0;
  for (const Case& c : cases()) {
    for (const GroupKernel& k : kernels(c.program, c.inputs())) {
      EXPECT_NE(find_cuda_aot_kernel(k), nullptr)
          << "no usable prebuilt kernel for\n  kernel " << k.key;
      ++groups;
    }
  }
  EXPECT_GE(groups, 5);
  EXPECT_EQ(metrics::counter_value("cuda.aot.hit") - hits, groups);
}

TEST_F(CudaAot, CompileTakesThePrebuiltKernelsAndSkipsNvrtc) {
  for (const Case& c : cases()) {
    const int64_t nvrtc = metrics::counter_value("nvrtc.compile");
    const CudaExecutable& e = compile(c.program, c.inputs());
    ASSERT_FALSE(e.groups.empty());
    for (const CudaGroupStep& g : e.groups) {
      EXPECT_NE(g.binary->aot, nullptr) << g.kernel.key;
      EXPECT_TRUE(g.binary->ptx.empty());
    }
    EXPECT_EQ(metrics::counter_value("nvrtc.compile"), nvrtc);
  }
}

TEST_F(CudaAot, AGroupWithoutAKernelMissesAndCompilesWithNvrtc) {
  set_aot_record_path("");
  fusion::reset_aot_misses();
  const int64_t misses = metrics::counter_value("cuda.aot.miss");
  const CudaExecutable& e = compile(unlisted, {randn({512})});
  ASSERT_EQ(e.groups.size(), 1u);
  EXPECT_EQ(e.groups[0].binary->aot, nullptr);
  EXPECT_NE(e.groups[0].binary->ptx.find(".entry lazygen_group_i32"), std::string::npos);
  EXPECT_EQ(metrics::counter_value("cuda.aot.miss"), misses + 1);
  EXPECT_NE(aot_miss_report().find("kernel " + e.groups[0].kernel.key + "\n"), std::string::npos)
      << aot_miss_report();
}

TEST_F(CudaAot, StaleEntriesAreNeverUsed) {
  const GroupKernel k = kernels(unlisted, {randn({512})}).at(0);
  static const std::string key = k.key;
  static const std::string fingerprint = fusion::ops_fingerprint(key);
  const fusion::KeyHash h = fusion::key_hash(key);
  const fusion::KeyHash src = fusion::key_hash(k.source);
  static int dummy = 0;
  const void* fn = &dummy;
  // Another IR version, other ops, another source: each alone makes the entry stale.
  static const CudaAotEntry kStale[] = {
      {key.c_str(), h.hi, h.lo, kCudaAotIrVersion + 1, fingerprint.c_str(), src.hi, src.lo, fn, fn},
      {key.c_str(), h.hi, h.lo, kCudaAotIrVersion, "0000000000000000", src.hi, src.lo, fn, fn},
      {key.c_str(), h.hi, h.lo, kCudaAotIrVersion, fingerprint.c_str(), src.hi, src.lo + 1, fn, fn},
  };
  static const CudaAotRegistration kRegistration(kStale, std::size(kStale));
  const int64_t stale = metrics::counter_value("cuda.aot.stale");
  EXPECT_EQ(find_cuda_aot_kernel(k), nullptr);
  EXPECT_EQ(metrics::counter_value("cuda.aot.stale"), stale + 1);
  const CudaExecutable& e = compile(unlisted, {randn({512})});
  EXPECT_EQ(e.groups.at(0).binary->aot, nullptr);
  EXPECT_FALSE(e.groups[0].binary->ptx.empty());
}

TEST_F(CudaAot, WithAotOffCompileUsesNvrtcAndStillCounts) {
  set_aot_enabled(false);
  const int64_t hits = metrics::counter_value("cuda.aot.hit");
  const CudaExecutable& e = compile(cases()[0].program, cases()[0].inputs());
  set_aot_enabled(true);
  ASSERT_EQ(e.groups.size(), 1u);
  EXPECT_EQ(e.groups[0].binary->aot, nullptr);
  EXPECT_FALSE(e.groups[0].binary->ptx.empty());
  EXPECT_EQ(metrics::counter_value("cuda.aot.hit"), hits + 1);
}

// On a device: the prebuilt kernels run (no module is loaded from PTX) and match eager cpu.
class CudaAotOnDevice : public testing::LazyCudaTest {};

TEST_F(CudaAotOnDevice, PrebuiltKernelsMatchCpu) {
  for (const Case& c : cases()) {
    const int64_t hits = metrics::counter_value("cuda.aot.hit");
    const int64_t modules = metrics::counter_value("cuda.lazy.module_loads");
    const int64_t launches = metrics::counter_value("cuda.lazy.launches");
    lazygen::testing::expect_fused_matches_eager(c.program, c.inputs(), 1e-5);
    EXPECT_GT(metrics::counter_value("cuda.aot.hit"), hits);
    EXPECT_EQ(metrics::counter_value("cuda.lazy.module_loads"), modules);
    EXPECT_EQ(metrics::counter_value("cuda.aot.load_fallback"), 0);
    EXPECT_GT(metrics::counter_value("cuda.lazy.launches"), launches);
  }
}

}  // namespace
}  // namespace lazygen::cuda
