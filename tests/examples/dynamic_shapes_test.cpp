// Dynamic shapes on the example models (Note [Dynamic shapes] in runtime/backend/graph.h): the
// tutorial CNN's training steps over batch sizes drawn at random, its epoch's short last batch
// and its evaluation, and a transformer block over sequence lengths, compile once per structure
// and give what eager gives. Synthetic data (it matters to neither property).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/amax.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/metrics.h"
#include "real_models.h"
#include "tutorial_models.h"

namespace lazygen::examples {
namespace {

constexpr int kSteps = 300;

std::vector<int64_t> random_batches(uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> batch(1, 256);
  std::vector<int64_t> out;
  for (int i = 0; i < kSteps; ++i) out.push_back(batch(rng));
  return out;
}

// Each step's loss training the CNN from seed 0 on `device` over `batches`.
std::vector<float> train(Device device, const std::vector<int64_t>& batches) {
  reset_trace_caches();  // each test compiles what it counts
  manual_seed(0);
  TutorialCnn model;
  model.to(device);
  optim::Adadelta opt(model.parameters());
  Generator data(1234);
  std::vector<float> losses;
  for (int64_t b : batches) {
    const Tensor images = randn({b, 1, 28, 28}, data), targets = randint(0, 10, {b}, data);
    losses.push_back(train_step(model, opt, images, targets, device).item<float>());
  }
  return losses;
}

TEST(DynamicBatch, RandomBatchSizesCompileOncePerStepStructureAndMatchEager) {
  const std::vector<int64_t> batches = random_batches(5);
  const int64_t compiles = metrics::counter_value("computation_cache.miss");
  const int64_t specialized = metrics::counter_value("computation_cache.specialize");
  const std::vector<float> lazy = train(kLazy, batches);
  // The first step (Adadelta's state created) and every later one: two structures. A first
  // batch of 1 would add one (Note [Specializing a fusion plan]); this draw starts above 1.
  ASSERT_GT(batches[0], 1);
  EXPECT_LE(metrics::counter_value("computation_cache.miss") - compiles, 2);
  EXPECT_GT(metrics::counter_value("computation_cache.specialize") - specialized, 100);
  const std::vector<float> eager = train(kCPU, batches);
  for (size_t i = 0; i < eager.size(); ++i) {
    EXPECT_NEAR(lazy[i], eager[i], 2e-3 * (1 + std::abs(eager[i]))) << "step " << i << ", batch " << batches[i];
  }
}

int64_t compiles() { return metrics::counter_value("computation_cache.miss"); }

TEST(DynamicBatch, AnEpochsShortLastBatchAndTheEvaluationCompileNoMoreThanTheirStructures) {
  reset_trace_caches();
  manual_seed(0);
  TutorialCnn model;
  model.to(kLazy);
  optim::Adadelta opt(model.parameters());
  Generator data(99);
  const int64_t before = compiles();
  for (int64_t b : {64, 64, 64, 64, 40}) {  // the epoch ends with a short batch
    train_step(model, opt, randn({b, 1, 28, 28}, data), randint(0, 10, {b}, data), kLazy);
  }
  EXPECT_EQ(compiles() - before, 2);  // the first step, then the step with optimizer state
  model.eval();
  for (int64_t b : {100, 100, 37}) {
    NoGradGuard no_grad;
    model.forward(randn({b, 1, 28, 28}, data).to(kLazy)).argmax(1).cpu();
  }
  EXPECT_EQ(compiles() - before, 3);  // the evaluation's forward pass, once
}

TEST(DynamicSequence, ATransformerBlockCompilesOncePerStructureOverSequenceLengths) {
  reset_trace_caches();
  GptConfig config;
  config.width = 64;
  std::mt19937 rng(3);
  std::uniform_int_distribution<int64_t> length(8, 128);
  manual_seed(0);
  DecoderBlock eager(config);
  manual_seed(0);
  DecoderBlock lazy(config);  // the same parameters
  lazy.to(kLazy);
  const int64_t before = compiles();
  for (int i = 0; i < 12; ++i) {
    const int64_t t = i == 0 ? 8 : length(rng);
    const Tensor x = randn({2, t, config.width});
    const Tensor want = eager.forward(x);
    const Tensor got = lazy.forward(x.to(kLazy)).cpu();
    EXPECT_LT(amax(abs(got - want), {}).item<float>(), 1e-4) << "length " << t;
  }
  EXPECT_EQ(compiles() - before, 1);
}

// prod and the cumulative scans run ceil(log2(n)) rounds (Note [Scans by doubling] in
// runtime/ops/composite/scans.cpp), so over lengths 2..64 prod has 11 structures (each exact power
// of two, which needs no padding, and each range between two) and cumprod 6 (one per round
// count). Halving odd lengths as they came made prod compile every length (69 in all).
TEST(DynamicLength, ProductsAndScansCompileOnlyWhereTheirLengthCrossesAPowerOfTwo) {
  reset_trace_caches();
  manual_seed(0);
  const int64_t before = compiles();
  for (int64_t n = 2; n <= 64; ++n) {
    const Tensor x = randn({n, 3}) * 0.1 + 1.0;
    const Tensor got = prod(x.to(kLazy), 0).cpu();
    const Tensor got_scan = cumprod(x.to(kLazy), 0).cpu();
    EXPECT_LT(amax(abs(got - prod(x, 0)), {}).item<float>(), 1e-4) << "length " << n;
    EXPECT_LT(amax(abs(got_scan - cumprod(x, 0)), {}).item<float>(), 1e-4) << "length " << n;
  }
  EXPECT_LE(compiles() - before, 11 + 6);
}

}  // namespace
}  // namespace lazygen::examples
