// Editing or adding one op rewrites a bounded set of generated files (See Note [Op shards]
// in generator/dest/pointwise.cpp): the emitters' output for a small ops file is compared with
// their output after one op's `pointwise:` expression changes and after one op is added. Also:
// an AOT kernel's fingerprint names only the ops it runs, so editing another op keeps it usable.
// Tests run with the source root as working directory (or LAZYGEN_SOURCE_DIR set).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "dest/emit.h"
#include "model/manifest.h"
#include "model/op_entry.h"
#include "source_root.h"

namespace lazygen::gen::dest {
namespace {

constexpr const char* kOps = R"(
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  shape: broadcast
  pointwise: self + alpha * other
  derivatives:
    self: grad
    other: grad * alpha

- func: mul.Tensor(Tensor self, Tensor other) -> Tensor
  shape: broadcast
  pointwise: self * other

- func: neg(Tensor self) -> Tensor
  shape: same
  pointwise: -self

- func: silu(Tensor self) -> Tensor
  shape: same
  dtype: float
  pointwise: self / (1 + exp(-self))
)";

constexpr const char* kSoftsign = R"(
- func: softsign(Tensor self) -> Tensor
  shape: same
  dtype: float
  pointwise: self / (1 + abs(self))
  derivatives:
    self: grad / ((1 + abs(self)) * (1 + abs(self)))
)";

using test_files::source_root;

std::map<std::string, std::string> emit(const std::string& yaml) {
  OpsFile file = load_ops_text(yaml, "locality_ops.yaml", OpsDialect::Lazygen);
  TemplateDir templates((source_root() / "templates").string());
  EmitContext ctx{file.ops, templates, "locality_ops.yaml", &file.torch_adapters};
  std::map<std::string, std::string> out;
  for (GeneratedFile& f : emit_all(ctx)) out[f.path] = std::move(f.content);
  return out;
}

// The paths written, removed or rewritten from `before` to `after`.
std::set<std::string> changed(const std::map<std::string, std::string>& before,
                              const std::map<std::string, std::string>& after) {
  std::set<std::string> out;
  for (const auto& [path, text] : after) {
    auto it = before.find(path);
    if (it == before.end() || it->second != text) out.insert(path);
  }
  for (const auto& [path, text] : before) {
    if (!after.count(path)) out.insert(path);
  }
  return out;
}

int shard_of(const std::string& yaml, const std::string& name) {
  OpsFile file = load_ops_text(yaml, "locality_ops.yaml", OpsDialect::Lazygen);
  for (const OpEntry& op : file.ops) {
    if (op.schema.name.str() == name) return op_shard(op);
  }
  ADD_FAILURE() << name << " not found";
  return -1;
}

// The per-shard files of shard k.
std::set<std::string> shard_files(int k) {
  const std::string n = std::to_string(k);
  return {"src/cpu_kernels_" + n + ".cpp", "src/tile_kernels_" + n + ".cpp",
          "src/cuda_kernels_" + n + ".cu"};
}

bool is_shard_file(const std::string& path) {
  for (const char* prefix : {"src/cpu_kernels_", "src/tile_kernels_", "src/cuda_kernels_"}) {
    if (path.starts_with(prefix)) return true;
  }
  return false;
}

TEST(LocalityTest, EditingAnExpressionRewritesItsHeaderItsFactsAndTheDeviceSources) {
  std::string edited = kOps;
  const std::string from = "self / (1 + exp(-self))";
  edited.replace(edited.find(from), from.size(), "self / (exp(-self) + 1)");
  // The eager CPU and CUDA kernel shards and the tile shard instantiate the functor from its
  // header: their text does not change. The pointwise facts carry the op's fingerprint (data
  // only, a small unit); the NVRTC sources its text.
  EXPECT_EQ(changed(emit(kOps), emit(edited)),
            (std::set<std::string>{"include/lazygen/generated/pointwise/silu.h",
                                   "src/pointwise_facts.cpp",
                                   "include/lazygen/generated/cuda_device_functions.inc"}));
}

TEST(LocalityTest, AddingAnOpLeavesEveryOtherShardAndFunctorAlone) {
  const std::map<std::string, std::string> before = emit(kOps);
  const std::string added = std::string(kOps) + kSoftsign;
  const std::map<std::string, std::string> after = emit(added);
  const std::set<std::string> own = shard_files(shard_of(added, "softsign"));
  for (const std::string& path : changed(before, after)) {
    if (is_shard_file(path)) {
      EXPECT_TRUE(own.count(path)) << path << " changed: only softsign's shard may";
    }
    if (path.starts_with("include/lazygen/generated/pointwise/")) {
      EXPECT_EQ(path, "include/lazygen/generated/pointwise/softsign.h");
    }
  }
  EXPECT_TRUE(after.count("include/lazygen/generated/pointwise/softsign.h"));
}

TEST(LocalityTest, ShardFilesExistForEveryShardWhateverTheOps) {
  const std::map<std::string, std::string> files = emit(kOps);
  for (int k = 0; k < kOpShards; ++k) {
    for (const std::string& path : shard_files(k)) EXPECT_TRUE(files.count(path)) << path;
  }
}

// A kernel's fingerprint changes with the ops it runs and with no other.
TEST(LocalityTest, AKernelFingerprintNamesOnlyItsOwnOps) {
  const std::vector<KernelKey> keys = parse_manifest(
      "lazygen-manifest 1\n"
      "kernel T=float32 load=float32:c load=float32:c op=add.Tensor(l0,l1,s0) op=mul.Tensor(v0,l1) "
      "out=v1:float32\n",
      "locality.manifest");
  ASSERT_EQ(keys.size(), 1u);
  auto fingerprint = [&](const std::string& yaml) {
    OpsFile file = load_ops_text(yaml, "locality_ops.yaml", OpsDialect::Lazygen);
    TemplateDir templates((source_root() / "templates").string());
    EmitContext ctx{file.ops, templates, "locality_ops.yaml"};
    return kernel_fingerprint(ctx, keys[0]);
  };
  auto replaced = [](std::string yaml, const std::string& from, const std::string& to) {
    yaml.replace(yaml.find(from), from.size(), to);
    return yaml;
  };
  const std::string base = fingerprint(kOps);
  EXPECT_NE(base.find(','), std::string::npos) << "one fingerprint per op: " << base;
  EXPECT_EQ(fingerprint(replaced(kOps, "pointwise: -self", "pointwise: 0 - self")), base);
  EXPECT_EQ(fingerprint(std::string(kOps) + kSoftsign), base);
  EXPECT_NE(fingerprint(replaced(kOps, "pointwise: self * other", "pointwise: other * self")),
            base);
}

}  // namespace
}  // namespace lazygen::gen::dest
