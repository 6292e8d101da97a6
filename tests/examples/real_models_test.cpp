// Short runs of examples/train_resnet (skipped without Fashion-MNIST) and examples/train_gpt: the
// lazy device's losses equal eager cpu training's for the first five steps (float32 tolerance:
// the lazy device fuses and orders sums differently), the loss falls over the run, and the lazy
// device compiles two step graphs (the first step, then the steps after the optimizer's state
// exists). The binaries' paths come from CMake (LAZYGEN_TRAIN_RESNET, LAZYGEN_TRAIN_GPT).
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "example_runs.h"
#include "lazygen/data/fashion_mnist.h"

namespace {

using lazygen::testing::losses;

// The output of `binary args`, which must succeed.
std::string run(const std::string& binary, const std::string& args) {
  const lazygen::testing::RunResult r = lazygen::testing::run_example(binary, args);
  EXPECT_EQ(r.status, 0) << binary << " " << args << "\n" << r.output;
  return r.output;
}

long graphs_compiled(const std::string& output) {
  static const std::regex kLine(R"(graphs compiled: (\d+))");
  std::smatch m;
  return std::regex_search(output, m, kLine) ? std::stol(m[1]) : -1;
}

// Lazy and cpu runs of `steps` steps; the first five losses agree within `rtol`.
void expect_lazy_equals_eager(const std::string& binary, double rtol) {
  const std::vector<double> lazy = losses(run(binary, "--steps 5 --device lazy"));
  const std::vector<double> eager = losses(run(binary, "--steps 5 --device cpu"));
  ASSERT_EQ(lazy.size(), 5u);
  ASSERT_EQ(eager.size(), 5u);
  for (size_t i = 0; i < 5; ++i)
    EXPECT_NEAR(lazy[i], eager[i], rtol * eager[i]) << "step " << i + 1;
}

TEST(TrainGpt, FiveLazyStepsEqualEagerOnes) {
  expect_lazy_equals_eager(LAZYGEN_TRAIN_GPT, 1e-4);
}

TEST(TrainGpt, TheLossFallsOverOneHundredStepsWithTwoCompiledGraphs) {
  const std::string out = run(LAZYGEN_TRAIN_GPT, "--steps 100 --log-every 20");
  const std::vector<double> l = losses(out);
  ASSERT_GE(l.size(), 6u) << out;
  EXPECT_NEAR(l.front(), 5.545, 0.05) << "chance over 256 bytes is ln 256 = 5.545";
  EXPECT_LT(l.back(), 3.3) << out;
  EXPECT_EQ(graphs_compiled(out), 2) << out;
}

TEST(TrainGpt, BadArgumentsAndAMissingTextAreRefused) {
  const std::string command = std::string(LAZYGEN_TRAIN_GPT) + " --steps zero >/dev/null 2>&1";
  EXPECT_NE(std::system(command.c_str()), 0);
  const std::string missing =
      std::string(LAZYGEN_TRAIN_GPT) + " --text /nonexistent >/dev/null 2>&1";
  EXPECT_NE(std::system(missing.c_str()), 0);
}

class TrainResnet : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!lazygen::data::FashionMnist::available()) GTEST_SKIP() << "Fashion-MNIST not installed";
  }
};

TEST_F(TrainResnet, FiveLazyStepsEqualEagerOnes) {
  expect_lazy_equals_eager(LAZYGEN_TRAIN_RESNET, 1e-3);
}

TEST_F(TrainResnet, TheLossFallsWithTwoCompiledGraphs) {
  const std::string out = run(LAZYGEN_TRAIN_RESNET, "--steps 40 --log-every 5");
  const std::vector<double> l = losses(out);
  ASSERT_GE(l.size(), 10u) << out;
  // Single batches are noisy: the mean of the first three steps against that of the last four logs.
  const double first = (l[0] + l[1] + l[2]) / 3;
  const size_t n = l.size();
  const double last = (l[n - 1] + l[n - 2] + l[n - 3] + l[n - 4]) / 4;
  EXPECT_LT(last, 0.75 * first) << out;
  EXPECT_EQ(graphs_compiled(out), 2) << out;
}

}  // namespace
