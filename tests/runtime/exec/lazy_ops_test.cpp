// The lazy device with generated ops on the default (cpu-lowering) backend: results equal eager
// ones, a training-style loop compiles once and reuses its IR, and in-place updates retain no
// old buffers. The generated lazy ops and cpu kernels are called directly (not through the op
// API of lazygen/generated/ops.h) so that this suite does not depend on autograd.
#include <gtest/gtest.h>

#include "core/ir/trie_cache.h"
#include "core/lazy/lazy_tensor.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/factory.h"
#include "lazygen/generated/cpu/add_tensor.h"
#include "lazygen/generated/cpu/mul_tensor.h"
#include "lazygen/generated/cpu/relu.h"
#include "lazygen/generated/cpu/sub_scalar.h"
#include "lazygen/generated/lazy/add_inplace_tensor.h"
#include "lazygen/generated/lazy/add_tensor.h"
#include "lazygen/generated/lazy/mul_scalar.h"
#include "lazygen/generated/lazy/mul_tensor.h"
#include "lazygen/generated/lazy/relu.h"
#include "lazygen/generated/lazy/sub_scalar.h"
#include "lazygen/generated/lazy/sum.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"

namespace lazygen {
namespace {

std::vector<float> values(const Tensor& t) {
  Tensor c = t.cpu().contiguous();
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

class LazyOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mark_step();  // nothing from earlier tests is pending, the trace starts at the root
    ir::TrieCache::current().reset();
  }
};

TEST_F(LazyOpsTest, MatchesEagerResults) {
  Tensor a = tensor<float>({1, 2, 3, 4}, IntList{2, 2});
  Tensor b = tensor<float>({10, 20}, IntList{2});
  Tensor eager = cpu::relu(cpu::sub_scalar(cpu::mul_tensor(cpu::add_tensor(a, b, 0.5), a), 3.0, 1));
  Tensor la = a.to(kLazy), lb = b.to(kLazy);
  Tensor lz =
      lazy::relu(lazy::sub_scalar(lazy::mul_tensor(lazy::add_tensor(la, lb, 0.5), la), 3.0, 1));
  EXPECT_TRUE(lz.device().is_lazy());
  EXPECT_EQ(values(lz), values(eager));
}

TEST_F(LazyOpsTest, ATrainingLoopCompilesOnceAndReusesItsIr) {
  Tensor w = ones({8}, DType::Float32, kLazy);
  Tensor g = full({8}, 2.0, DType::Float32, kLazy);
  int64_t misses = metrics::counter_value("computation_cache.miss");
  int64_t hits = metrics::counter_value("computation_cache.hit");
  ir::Node* first = nullptr;
  for (int step = 0; step < 4; ++step) {
    lazy::add_inplace_tensor(w, g,
                             -0.1 * (step + 1));  // a new learning rate every step: no recompile
    ir::Node* node = lazy::lazy_state(w).value.node.get();
    if (step == 0) first = node;
    EXPECT_EQ(node, first) << "step " << step;
    mark_step();
  }
  EXPECT_EQ(metrics::counter_value("computation_cache.miss"), misses + 1);
  EXPECT_EQ(metrics::counter_value("computation_cache.hit"), hits + 3);
  EXPECT_NEAR(values(w)[0], 1 - 2 * (0.1 + 0.2 + 0.3 + 0.4), 1e-6);
}

TEST_F(LazyOpsTest, InPlaceUpdatesRetainNoOldBuffers) {
  Tensor w = zeros({1 << 16}, DType::Float32, kLazy);
  Tensor g = ones({1 << 16}, DType::Float32, kLazy);
  size_t trie_size = 0;
  for (int step = 0; step < 5; ++step) {
    Tensor before = lazy::lazy_state(w).materialized();
    lazy::add_inplace_tensor(w, g, -1.0);
    mark_step();
    wait_device_ops();  // the launch holds its inputs until it has run
    EXPECT_EQ(before.impl_ptr().use_count(), 1) << "step " << step;
    if (step == 1) trie_size = ir::TrieCache::current().size();
    if (step > 1) {
      EXPECT_EQ(ir::TrieCache::current().size(), trie_size);
    }
  }
  EXPECT_EQ(lazy::sum(w, std::nullopt).item<float>(), -5.0f * (1 << 16));
}

TEST_F(LazyOpsTest, ItemAndPrintingSyncOnlyWhatTheyNeed) {
  Tensor x = tensor<float>({1, 2, 3}).to(kLazy);
  Tensor s = lazy::sum(x, std::nullopt);
  Tensor other = lazy::mul_scalar(x, 2.0);
  EXPECT_FLOAT_EQ(s.item<float>(), 6);
  EXPECT_TRUE(lazy::lazy_state(other).pending());
  EXPECT_NE(other.str().find("6."), std::string::npos) << other.str();
}

TEST_F(LazyOpsTest, DumpsGeneratedNodes) {
  Tensor x = ones({2}, DType::Float32, kLazy);
  std::string text = ir_dump_text({lazy::add_tensor(x, x, 2)});
  EXPECT_NE(text.find("AddTensor(%0, %0, %1) : float32[2]"), std::string::npos) << text;
}

}  // namespace
}  // namespace lazygen
