// Kernel manifests (runtime/fusion/aot_lookup.h, fusion/kernel_key.h): canonical, deduplicated,
// merged deterministically, other IR versions dropped; and a runtime without generated kernels
// (this test binary) misses every group and says what to add.
#include "fusion/aot_lookup.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fusion/kernel_key.h"
#include "lazygen/aot.h"
#include "lazygen/generated/ops/sigmoid.h"
#include "lazygen/generated/ops/tanh.h"
#include "runtime/fusion/fusion_test_util.h"

namespace lazygen::fusion {
namespace {

const std::string kHeader = "lazygen-manifest " + std::to_string(kKeyVersion) + "\n";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AotManifest, IsSortedAndFreeOfDuplicates) {
  const std::string text = manifest_text({"T=float32 op=b", "T=float32 op=a", "T=float32 op=b"});
  EXPECT_EQ(text.substr(text.find('\n') + 1),
            kHeader + "kernel T=float32 op=a\nkernel T=float32 op=b\n");
}

TEST(AotManifest, MergingIsDeterministic) {
  const std::string a = kHeader + "kernel T=float32 op=x\n# a comment\nkernel T=float64 op=y\n";
  const std::string b = kHeader + "kernel T=int64 op=z\nkernel T=float32 op=x\n";
  EXPECT_EQ(merge_manifests({a, b}), merge_manifests({b, a}));
  EXPECT_EQ(manifest_keys(merge_manifests({a, b})).size(), 3u);
}

TEST(AotManifest, DropsEntriesOfAnotherIrVersion) {
  bool stale = false;
  EXPECT_TRUE(manifest_keys("lazygen-manifest 0\nkernel T=float32 op=x\n", &stale).empty());
  EXPECT_TRUE(stale);
}

TEST(AotManifest, RecordingInAnyOrderWritesTheSameFile) {
  const std::string dir = ::testing::TempDir() + "aot_manifest_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(add_to_manifest_file(dir + "/one", {"T=float32 op=a"}));
  ASSERT_TRUE(add_to_manifest_file(dir + "/one", {"T=float32 op=b"}));
  ASSERT_TRUE(add_to_manifest_file(dir + "/two", {"T=float32 op=b", "T=float32 op=a"}));
  EXPECT_EQ(read(dir + "/one"), read(dir + "/two"));
  std::filesystem::remove_all(dir);
}

class AotRegistryTest : public testing::FusionTest {};

TEST_F(AotRegistryTest, WithoutGeneratedKernelsEveryGroupMissesAndIsReported) {
  reset_aot_misses();
  const int64_t hits = metrics::counter_value("aot.hit");
  const int64_t misses = metrics::counter_value("aot.miss");
  Tensor x = randn({64}).to(kLazy);
  Tensor y = tanh(x * 3.0) + 2.0;
  mark_step();
  EXPECT_EQ(metrics::counter_value("aot.hit"), hits);
  EXPECT_EQ(metrics::counter_value("aot.miss"), misses + 1);
  const std::string report = aot_miss_report();
  EXPECT_NE(report.find("kernel T=float32 load=float32:c op=mul.Scalar(l0,s0) op=tanh(v0)"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("op=tanh(v0)"), std::string::npos) << report;
}

TEST_F(AotRegistryTest, RecordsCompiledGroupsToTheManifest) {
  const std::string path = ::testing::TempDir() + "aot_record_" + std::to_string(getpid());
  std::filesystem::remove(path);
  set_aot_record_path(path);
  Tensor x = randn({64}).to(kLazy);
  Tensor y = sigmoid(x) * 5.0;
  mark_step();
  set_aot_record_path("");
  const KeySet keys = manifest_keys(read(path));
  // The group key and its CUDA key (See Note [CUDA group keys]), which sorts after it.
  ASSERT_EQ(keys.size(), 2u) << read(path);
  EXPECT_NE(keys.begin()->find("op=sigmoid(l0)"), std::string::npos) << *keys.begin();
  EXPECT_EQ(*std::next(keys.begin()), *keys.begin() + " cuda=1:C");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace lazygen::fusion
