// Short runs of examples/train_cnn (a few dozen steps on the real Fashion-MNIST, which the
// dataset-fashion-mnist package installs; skipped without it): the loss must fall, lazy and
// eager must print the same losses, the lazy run compiles its step once, and a bad argument is
// refused. The binary's path comes from CMake (LAZYGEN_TRAIN_CNN).
#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "example_runs.h"
#include "lazygen/data/fashion_mnist.h"

namespace {

using lazygen::testing::losses;
using lazygen::testing::RunResult;

RunResult run_train_cnn(const std::string& args) {
  return lazygen::testing::run_example(LAZYGEN_TRAIN_CNN, args);
}

// The value of counter `name` in the printed metrics report (-1 when absent).
long counter(const std::string& output, const std::string& name) {
  const std::regex line("\\n\\s*" + std::regex_replace(name, std::regex("\\."), "\\.") +
                        "\\s+(\\d+)");
  std::smatch m;
  return std::regex_search(output, m, line) ? std::stol(m[1]) : -1;
}

class TrainCnn : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!lazygen::data::FashionMnist::available()) {
      GTEST_SKIP() << "Fashion-MNIST not installed: apt-get install "
                   << lazygen::data::kFashionMnistPackage;
    }
  }
};

TEST_F(TrainCnn, LossFallsOnTheLazyDeviceAndMatchesEager) {
  const RunResult lazy = run_train_cnn("--steps 40 --log-every 10");
  ASSERT_EQ(lazy.status, 0) << lazy.output;
  const std::vector<double> l = losses(lazy.output);
  ASSERT_EQ(l.size(), 4u) << lazy.output;
  EXPECT_LT(l.back(), l.front()) << lazy.output;
  EXPECT_LT(l.back(), 1.5) << lazy.output;
  // Step 1 compiles, step 2 too (optimizer state now exists), the evaluation once more.
  EXPECT_EQ(counter(lazy.output, "computation_cache.miss"), 3) << lazy.output;
  const RunResult eager = run_train_cnn("--device cpu --steps 40 --log-every 10");
  ASSERT_EQ(eager.status, 0) << eager.output;
  const std::vector<double> e = losses(eager.output);
  ASSERT_EQ(e.size(), l.size());
  for (size_t i = 0; i < e.size(); ++i) EXPECT_NEAR(e[i], l[i], 2e-3) << i;
}

TEST_F(TrainCnn, TrainsTheMlp) {
  const RunResult r = run_train_cnn("--mlp --steps 60 --log-every 20");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::vector<double> l = losses(r.output);
  ASSERT_EQ(l.size(), 3u) << r.output;
  EXPECT_LT(l.back(), l.front()) << r.output;
  EXPECT_NE(r.output.find("test accuracy"), std::string::npos);
  // fc1's bias gradient sums relu's backward over the batch inside relu's backward group, which
  // ended before it (See Note [Late folds]); once per compiled step.
  EXPECT_GE(counter(r.output, "fusion.late_folds"), 1) << r.output;
}

// train_cnn links the kernels of examples/train_cnn.manifest: no fusion group of a short CNN or
// MLP run (training and evaluation) runs on the interpreter.
TEST_F(TrainCnn, EveryFusionGroupHasAnAotKernel) {
  for (const char* args : {"--steps 40 --log-every 10", "--mlp --steps 60 --log-every 20"}) {
    const RunResult r = run_train_cnn(args);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_GT(counter(r.output, "aot.hit"), 0) << args << "\n" << r.output;
    EXPECT_EQ(counter(r.output, "aot.miss"), -1) << args << "\n" << r.output;  // never counted
    EXPECT_EQ(r.output.find("ran on the interpreter"), std::string::npos) << r.output;
  }
}

TEST(TrainCnnArguments, RefusesUnknownOnes) {
  const RunResult r = run_train_cnn("--frobnicate");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("usage: train_cnn"), std::string::npos) << r.output;
}

}  // namespace
