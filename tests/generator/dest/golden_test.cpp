// Golden tests for the emitters (dest/): tests/generator/dest/golden/tiny_ops.yaml is run through
// dest::emit_all with the repository's templates/, and every generated file is compared byte for
// byte with tests/generator/dest/golden/expected/<path>.golden. The comparison is on the emitters'
// own text (no banner, no clang-format), so it does not depend on the clang-format version. The
// `.golden` suffix keeps build and format tooling away from the expected files.
//
// After an intended change to an emitter or a template, regenerate the expected files and review
// the diff:
//
//   LAZYGEN_UPDATE_GOLDEN=1 ctest --test-dir build -R GoldenTest    (or run the test binary)
//
// Tests run with the source root as working directory (or LAZYGEN_SOURCE_DIR set).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "dest/emit.h"
#include "model/op_entry.h"
#include "source_root.h"
#include "writer/file_writer.h"

namespace fs = std::filesystem;

namespace lazygen::gen::dest {
namespace {

using test_files::source_root;

fs::path golden_dir() {
  return source_root() / "tests/generator/dest/golden";
}
fs::path expected_path(const std::string& rel) {
  return golden_dir() / "expected" / (rel + ".golden");
}

bool updating() {
  const char* v = std::getenv("LAZYGEN_UPDATE_GOLDEN");
  return v && std::string(v) == "1";
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<GeneratedFile> emit_tiny(bool ir_only = false) {
  OpsFile file = load_ops_file((golden_dir() / "tiny_ops.yaml").string(), OpsDialect::Lazygen);
  TemplateDir templates((source_root() / "templates").string());
  EmitContext ctx{file.ops, templates, "tiny_ops.yaml", &file.torch_adapters};
  return emit_all(ctx, ir_only);
}

// Every expected file on disk, as generated paths ("src/op_info.cpp").
std::set<std::string> expected_files() {
  std::set<std::string> out;
  fs::path root = golden_dir() / "expected";
  if (!fs::exists(root)) return out;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    std::string rel = fs::relative(entry.path(), root).generic_string();
    if (entry.is_regular_file() && rel.ends_with(".golden"))
      out.insert(rel.substr(0, rel.size() - 7));
  }
  return out;
}

void update_expected(const std::vector<GeneratedFile>& files) {
  std::set<std::string> stale = expected_files();
  for (const GeneratedFile& f : files) {
    stale.erase(f.path);
    fs::create_directories(expected_path(f.path).parent_path());
    std::ofstream(expected_path(f.path), std::ios::binary) << f.content;
  }
  for (const std::string& rel : stale) fs::remove(expected_path(rel));
}

TEST(GoldenTest, EmittersMatchTheExpectedFiles) {
  std::vector<GeneratedFile> files = emit_tiny();
  if (updating()) {
    update_expected(files);
    GTEST_SKIP() << "LAZYGEN_UPDATE_GOLDEN=1: wrote " << files.size() << " expected files";
  }
  std::set<std::string> unexpected = expected_files();
  for (const GeneratedFile& f : files) {
    unexpected.erase(f.path);
    fs::path path = expected_path(f.path);
    ASSERT_TRUE(fs::exists(path)) << path << " is missing; regenerate with LAZYGEN_UPDATE_GOLDEN=1";
    std::string expected = read(path);
    EXPECT_EQ(f.content, expected)
        << line_diff(path.string(), expected, f.content)
        << "if the change is intended, regenerate with LAZYGEN_UPDATE_GOLDEN=1";
  }
  EXPECT_TRUE(unexpected.empty()) << "expected files no emitter produces, e.g. "
                                  << *unexpected.begin();
}

TEST(GoldenTest, EmitsTheFilesInAFixedOrder) {
  std::vector<std::string> paths;
  for (const GeneratedFile& f : emit_tiny()) paths.push_back(f.path);
  auto shards = [](const std::string& prefix, const std::string& suffix) {
    std::vector<std::string> out;
    for (int k = 0; k < kOpShards; ++k) out.push_back(prefix + std::to_string(k) + suffix);
    return out;
  };
  std::vector<std::string> expected = {
      "include/lazygen/generated/op_list.inc",
      "include/lazygen/generated/ir_nodes.h",
      "include/lazygen/generated/ir/add_tensor.h",  // one node class header per op, in op order
      "include/lazygen/generated/ir/add_inplace_tensor.h",
      "include/lazygen/generated/ir/sum_dim_intlist.h",
      "include/lazygen/generated/ir/max_dim.h",
      "include/lazygen/generated/shape_inference.h",
      "include/lazygen/generated/shapes/add_tensor.h",  // one shape function header per op
      "include/lazygen/generated/shapes/add_inplace_tensor.h",
      "include/lazygen/generated/shapes/sum_dim_intlist.h",
      "include/lazygen/generated/shapes/max_dim.h",
  };
  for (std::string& p : shards("src/shape_inference_", ".cpp")) expected.push_back(std::move(p));
  for (const char* p : {
           "include/lazygen/generated/ops/add.h",  // one header per API name, sorted by name
           "include/lazygen/generated/ops/add_.h",
           "include/lazygen/generated/ops/max.h",
           "include/lazygen/generated/ops/sum.h",
           "include/lazygen/generated/ops.h",
           "include/lazygen/generated/tensor_methods.inc",
       }) {
    expected.push_back(p);
  }
  for (std::string& p : shards("src/ops_", ".cpp")) expected.push_back(std::move(p));
  for (const char* p : {
           "include/lazygen/generated/pointwise_ops.h",
           "include/lazygen/generated/cpu_kernels.h",
       }) {
    expected.push_back(p);
  }
  for (std::string& p : shards("src/cpu_kernels_", ".cpp")) expected.push_back(std::move(p));
  for (const char* p : {"include/lazygen/generated/pointwise/add_tensor.h",
                        "include/lazygen/generated/pointwise/add_inplace_tensor.h",
                        "include/lazygen/generated/pointwise_functions.inc"}) {
    expected.push_back(p);
  }
  for (const char* id : {"add_tensor", "add_inplace_tensor", "sum_dim_intlist", "max_dim"}) {
    expected.push_back(std::string("include/lazygen/generated/cpu/") + id + ".h");  // per op
  }
  expected.push_back("include/lazygen/generated/lazy_ops.h");
  for (std::string& p : shards("src/lazy_ops_", ".cpp")) expected.push_back(std::move(p));
  for (const char* id : {"add_tensor", "add_inplace_tensor", "sum_dim_intlist", "max_dim"}) {
    expected.push_back(std::string("include/lazygen/generated/lazy/") + id + ".h");  // per op
  }
  for (std::string& p : shards("src/lowering_", ".cpp")) expected.push_back(std::move(p));
  for (const char* p : {"src/lowering.cpp", "include/lazygen/generated/backward.h"}) {
    expected.push_back(p);
  }
  expected.push_back("include/lazygen/generated/autograd/add_tensor.h");  // per differentiable op
  for (std::string& p : shards("src/backward_", ".cpp")) expected.push_back(std::move(p));
  for (std::string& p : shards("src/tile_kernels_", ".cpp")) expected.push_back(std::move(p));
  for (const char* p : {"src/pointwise_facts.cpp", "src/tile_kernels.cpp", "src/chain_dispatch.cpp",
                        "include/lazygen/generated/cuda_device_functions.inc",
                        "include/lazygen/generated/cuda_kernels.h", "src/cuda_ops.cpp"}) {
    expected.push_back(p);
  }
  for (int k = 0; k < kOpShards; ++k) {  // a shard's kernels and their host side
    expected.push_back("src/cuda_kernels_" + std::to_string(k) + ".cu");
    expected.push_back("src/cuda_ops_" + std::to_string(k) + ".cpp");
  }
  for (const char* id : {"add_tensor", "add_inplace_tensor"}) {  // per `pointwise:` op
    expected.push_back(std::string("include/lazygen/generated/cuda/") + id + ".h");
  }
  for (std::string& p : shards("src/op_info_", ".cpp")) expected.push_back(std::move(p));
  expected.push_back("src/op_info.cpp");
  expected.push_back("include/lazygen/generated/torch_adapters.h");
  for (std::string& p : shards("src/torch_kernels_", ".cpp")) expected.push_back(std::move(p));
  expected.push_back("src/torch_kernels.cpp");
  expected.push_back("sources.cmake");
  EXPECT_EQ(paths, expected);
}

// cmake/LazygenGenerate.cmake names the generated files up front (add_custom_command needs its
// OUTPUTs at configure time); it must list exactly what emit_all writes. Shard files are listed by
// a loop over the shard numbers (`src/cpu_kernels_${k}.cpp`, k from _lazygen_shard_numbers), and
// the per-op functor headers
// (pointwise/<op id>.h) and the per-name op API headers (ops/<name>.h) are written beside the
// listed outputs, unlisted.
TEST(GoldenTest, CMakeListsEveryGeneratedFile) {
  std::ifstream in("cmake/LazygenGenerate.cmake");
  ASSERT_TRUE(in) << "run from the source root";
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("foreach(k RANGE " + std::to_string(kOpShards - 1) + ")"),
            std::string::npos)
      << "_lazygen_shard_numbers in cmake/LazygenGenerate.cmake must number the shards 0.."
      << kOpShards - 1;
  for (const GeneratedFile& f : emit_tiny()) {
    if (f.path == "sources.cmake" || f.path.starts_with("include/lazygen/generated/pointwise/") ||
        f.path.starts_with("include/lazygen/generated/ops/") ||
        f.path.starts_with("include/lazygen/generated/ir/") ||
        f.path.starts_with("include/lazygen/generated/shapes/") ||
        f.path.starts_with("include/lazygen/generated/cpu/") ||
        f.path.starts_with("include/lazygen/generated/cuda/") ||
        f.path.starts_with("include/lazygen/generated/autograd/") ||
        f.path.starts_with("include/lazygen/generated/lazy/"))
      continue;
    std::string listed = f.path;
    const size_t digits = listed.find_last_of('_') + 1;
    const size_t dot = listed.find('.', digits);
    if (digits > 0 && dot != std::string::npos && dot > digits &&
        listed.substr(digits, dot - digits).find_first_not_of("0123456789") == std::string::npos) {
      listed.replace(digits, dot - digits, "${k}");
    }
    EXPECT_NE(text.str().find(listed), std::string::npos)
        << listed << " is missing from cmake/LazygenGenerate.cmake";
  }
}

TEST(GoldenTest, IrOnlyEmitsTheOpListAndNodeClassesAsTheFullRunDoes) {
  std::vector<GeneratedFile> full = emit_tiny();
  std::vector<GeneratedFile> ir = emit_tiny(/*ir_only=*/true);
  ASSERT_EQ(ir.size(), 6u);  // the op list, ir_nodes.h and the node class of each of 4 ops
  for (size_t i = 0; i < ir.size(); ++i) {
    EXPECT_EQ(ir[i].path, full[i].path);
    EXPECT_EQ(ir[i].content, full[i].content);
  }
}

// `lazygen --kernels`: tiny.manifest's kernels over tiny_ops.yaml, against aot/aot_kernels.cpp.golden
// (outside expected/, which holds emit_all's files only).
TEST(GoldenTest, AotKernelsMatchTheExpectedFile) {
  OpsFile file = load_ops_file((golden_dir() / "tiny_ops.yaml").string(), OpsDialect::Lazygen);
  TemplateDir templates((source_root() / "templates").string());
  EmitContext ctx{file.ops, templates, "tiny.manifest"};
  std::vector<KernelKey> keys;
  for (KernelKey& k : parse_manifest(read(golden_dir() / "tiny.manifest"), "tiny.manifest")) {
    if (k.cuda_rank == 0) keys.push_back(std::move(k));
  }
  const std::vector<GeneratedFile> files = emit_aot_kernels(ctx, keys, "tiny_ops.yaml");
  ASSERT_EQ(files.size(), 1u);
  const fs::path path = golden_dir() / "aot" / (files[0].path + ".golden");
  if (updating()) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << files[0].content;
    GTEST_SKIP() << "LAZYGEN_UPDATE_GOLDEN=1: wrote " << path;
  }
  const std::string expected = read(path);
  EXPECT_EQ(files[0].content, expected) << line_diff(path.string(), expected, files[0].content)
                                        << "if the change is intended, regenerate with LAZYGEN_UPDATE_GOLDEN=1";
}

// `lazygen --kernels --cuda`: tiny.manifest's CUDA keys, against aot/aot_kernels.cu.golden. The
// kernels themselves are the runtime's text (See Note [Shared CUDA kernel text]); nvcc compiles
// this file in tests/runtime/backend/cuda (cuda_aot_test).
TEST(GoldenTest, AotCudaKernelsMatchTheExpectedFile) {
  OpsFile file = load_ops_file((golden_dir() / "tiny_ops.yaml").string(), OpsDialect::Lazygen);
  TemplateDir templates((source_root() / "templates").string());
  EmitContext ctx{file.ops, templates, "tiny.manifest"};
  std::vector<KernelKey> keys;
  for (KernelKey& k : parse_manifest(read(golden_dir() / "tiny.manifest"), "tiny.manifest")) {
    if (k.cuda_rank > 0) keys.push_back(std::move(k));
  }
  ASSERT_EQ(keys.size(), 2u);
  const std::vector<GeneratedFile> files = emit_aot_cuda_kernels(ctx, keys, "tiny_ops.yaml");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].content, emit_aot_cuda_kernels(ctx, keys, "tiny_ops.yaml")[0].content) << "deterministic";
  // One namespace and one registry entry per key, entry points by C++ name, never extern "C".
  for (const KernelKey& k : keys) {
    const std::string ns = "namespace lazygen_aot_" + key_hash(print_key(k)).hex() + " {";
    EXPECT_NE(files[0].content.find(ns), std::string::npos) << ns;
    EXPECT_NE(files[0].content.find("CudaAotEntry{\"" + print_key(k) + "\""), std::string::npos);
  }
  EXPECT_EQ(files[0].content.find("extern \"C\""), std::string::npos);
  const fs::path path = golden_dir() / "aot" / (files[0].path + ".golden");
  if (updating()) {
    std::ofstream(path, std::ios::binary) << files[0].content;
    GTEST_SKIP() << "LAZYGEN_UPDATE_GOLDEN=1: wrote " << path;
  }
  const std::string expected = read(path);
  EXPECT_EQ(files[0].content, expected) << line_diff(path.string(), expected, files[0].content)
                                        << "if the change is intended, regenerate with LAZYGEN_UPDATE_GOLDEN=1";
}

TEST(GoldenTest, TwoRunsGiveIdenticalBytes) {
  std::vector<GeneratedFile> first = emit_tiny();
  std::vector<GeneratedFile> second = emit_tiny();
  ASSERT_EQ(first.size(), second.size());
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].path, second[i].path);
    EXPECT_EQ(first[i].content, second[i].content) << first[i].path;
  }
}

}  // namespace
}  // namespace lazygen::gen::dest
