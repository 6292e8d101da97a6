// Stress test on PyTorch's own native_functions.yaml (issue: "Generating IR node classes for
// every entry of the real native_functions.yaml must succeed and the result must compile;
// PyTorch's generator crashes on 292 of them"). Loads the whole file in the Native dialect, checks
// that every entry derives distinct C++ names and emits one IR node class and one op-list line per
// entry. That the emitted header compiles is checked by the build (native_ir_nodes.cpp, see
// CMakeLists.txt beside this file). Skipped when the file is absent (set LAZYGEN_NATIVE_FUNCTIONS
// at configure time to use another copy).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "api/names.h"
#include "dest/emit.h"
#include "model/op_entry.h"

namespace lazygen::gen {
namespace {

const char* const kNativeFile = LAZYGEN_NATIVE_FUNCTIONS;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Lines of `text` starting with `prefix`.
size_t count_lines_starting(const std::string& text, const std::string& prefix) {
  size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.starts_with(prefix);
  return n;
}

size_t count_occurrences(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
    ++n;
  return n;
}

class NativeFunctions : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kNativeFile)) GTEST_SKIP() << kNativeFile << " is absent";
  }
};

TEST_F(NativeFunctions, EveryEntryLoads) {
  OpsFile file = load_ops_file(kNativeFile, OpsDialect::Native);
  EXPECT_GT(file.ops.size(), 2000u);  // 2493 in the copy torchgen 2.0 ships
  EXPECT_EQ(file.ops.size(), count_lines_starting(read(kNativeFile), "- func:"));
}

TEST_F(NativeFunctions, EveryEntryDerivesDistinctNames) {
  OpsFile file = load_ops_file(kNativeFile, OpsDialect::Native);
  EXPECT_NO_THROW(api::check_unique_ids(file.ops));
}

TEST_F(NativeFunctions, EveryEntryGetsAnIrNodeClass) {
  OpsFile file = load_ops_file(kNativeFile, OpsDialect::Native);
  TemplateDir templates("templates");
  dest::EmitContext ctx{file.ops, templates, "native_functions.yaml"};
  std::vector<dest::GeneratedFile> files;
  ASSERT_NO_THROW(files = dest::emit_all(ctx, /*ir_only=*/true));
  ASSERT_EQ(files.size(), 2 + file.ops.size());  // the op list, ir_nodes.h, a header per op
  EXPECT_EQ(files[0].path, "include/lazygen/generated/op_list.inc");
  EXPECT_EQ(count_lines_starting(files[0].content, "LAZYGEN_OP("), file.ops.size());
  EXPECT_EQ(files[1].path, "include/lazygen/generated/ir_nodes.h");
  EXPECT_EQ(count_lines_starting(files[1].content, "#include \"lazygen/generated/ir/"),
            file.ops.size());
  size_t classes = 0;
  for (size_t i = 2; i < files.size(); ++i) {
    classes += count_occurrences(files[i].content, " final : public Node {");
  }
  EXPECT_EQ(classes, file.ops.size());
}

TEST_F(NativeFunctions, SelectedEntriesGetTheFullGlue) {
  OpsFile file =
      load_ops_file(kNativeFile, OpsDialect::Native,
                    {"add.Tensor", "add_.Tensor", "add.out", "mm", "sum.dim_IntList", "max.dim"});
  TemplateDir templates("templates");
  dest::EmitContext ctx{file.ops, templates, "native_functions.yaml"};
  std::vector<dest::GeneratedFile> files;
  ASSERT_NO_THROW(files = dest::emit_all(ctx));
  EXPECT_EQ(files.back().path, "sources.cmake");
}

}  // namespace
}  // namespace lazygen::gen
