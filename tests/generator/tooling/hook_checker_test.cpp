// Tests for tooling/hook_checker.h: hand-written hooks are checked on Clang's AST.
//
// Each test writes a tiny project into a fresh temporary directory (a header declaring
// lazygen::Shape, hand-written sources, sometimes a generated/ directory and a
// compile_commands.json), runs check_hooks() on it and asserts on statuses and on the exact text a
// user would read (file:line:col, the declaration to paste).
#include "tooling/hook_checker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace lazygen::gen {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using Status = HookFinding::Status;

constexpr char kShapeHeader[] = R"(#pragma once
#include <cstdint>
#include <vector>
namespace lazygen {
struct Shape { std::vector<int64_t> sizes; };
using ShapeRef = const Shape&;
using Int = int64_t;
}  // namespace lazygen
)";

// What a generated header would hold: declarations only.
constexpr char kShapeDecls[] = R"(#pragma once
#include "lazygen/shape.h"
namespace lazygen::shape {
std::vector<Shape> compute_shape_mm(const Shape& self, const Shape& mat2);
}  // namespace lazygen::shape
)";

HookSpec mm_shape_hook() {
  return HookSpec{"lazygen::shape::compute_shape_mm",
                  "std::vector<Shape> compute_shape_mm(const Shape& self, const Shape& mat2);",
                  "mm", "shape function", SourceLoc{"ops.yaml", 12, 3}};
}

HookSpec mm_kernel_hook() {
  return HookSpec{"lazygen::cpu::mm_cpu",
                  "void mm_cpu(const float* self, const float* mat2, float* out, int64_t m, "
                  "int64_t k, int64_t n);",
                  "mm", "CPU kernel", SourceLoc{"ops.yaml", 14, 3}};
}

class HookChecker : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() /
            ("lazygen_hook_checker_" + std::string(info->name()) + "_" + std::to_string(getpid()));
    fs::remove_all(root_);
    write("include/lazygen/shape.h", kShapeHeader);
    write("generated/lazygen/shape_decls.h", kShapeDecls);
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string write(const std::string& relative, const std::string& text) {
    const fs::path path = root_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
  }

  // Fallback arguments only: -I for the fixture's include dirs.
  HookCheckInput input(const std::vector<std::string>& sources) const {
    HookCheckInput in;
    for (const std::string& source : sources) in.sources.push_back((root_ / source).string());
    in.fallback_args = {"-std=c++20", "-I" + (root_ / "include").string(),
                        "-I" + (root_ / "generated").string()};
    in.root_dir = root_.string();
    return in;
  }

  HookFinding check_one(const HookSpec& hook, const std::vector<std::string>& sources) const {
    const std::vector<HookFinding> findings = check_hooks({hook}, input(sources));
    EXPECT_EQ(findings.size(), 1u);
    return findings.at(0);
  }

  fs::path root_;
};

TEST_F(HookChecker, AcceptsExactDefinition) {
  write("src/shape_mm.cpp", R"(#include "lazygen/shape.h"
namespace lazygen::shape {
std::vector<Shape> compute_shape_mm(const Shape& self, const Shape& mat2) { return {self, mat2}; }
}  // namespace lazygen::shape
)");
  const HookFinding finding = check_one(mm_shape_hook(), {"src/shape_mm.cpp"});
  EXPECT_EQ(finding.status, Status::Ok) << finding.message();
  ASSERT_EQ(finding.found.size(), 1u);
  EXPECT_EQ(finding.found[0].loc.str(), "src/shape_mm.cpp:3:20");
  EXPECT_EQ(finding.found[0].signature,
            "std::vector<Shape> compute_shape_mm(const Shape &self, const Shape &mat2)");
  EXPECT_EQ(finding.message(),
            "ops.yaml:12:3: note: mm: shape function 'lazygen::shape::compute_shape_mm' is "
            "defined at src/shape_mm.cpp:3:20");
}

TEST_F(HookChecker, AcceptsOtherParameterNamesTypedefsAndQualification) {
  write("src/shape_mm.cpp", R"(#include "lazygen/shape_decls.h"
std::vector<lazygen::Shape> lazygen::shape::compute_shape_mm(lazygen::ShapeRef a,
                                                             const ::lazygen::Shape& b) {
  return {a, b};
}
)");
  const HookFinding finding = check_one(mm_shape_hook(), {"src/shape_mm.cpp"});
  EXPECT_EQ(finding.status, Status::Ok) << finding.message();
  ASSERT_EQ(finding.found.size(), 1u);
  EXPECT_EQ(finding.found[0].loc.str(), "src/shape_mm.cpp:2:45");
}

TEST_F(HookChecker, IgnoresTopLevelConstOfByValueParameters) {
  write("src/mm_cpu.cpp", R"(#include <cstdint>
namespace lazygen::cpu {
void mm_cpu(const float* const a, const float* b, float* const out, const int64_t m,
            const std::int64_t k, long n) {}
}  // namespace lazygen::cpu
)");
  const HookFinding finding = check_one(mm_kernel_hook(), {"src/mm_cpu.cpp"});
  EXPECT_EQ(finding.status, Status::Ok) << finding.message();
}

TEST_F(HookChecker, ReportsMissingDefinitionWithDeclarationToPaste) {
  write("src/uses_decl.cpp", R"(#include "lazygen/shape_decls.h"
int unrelated() { return 1; }
)");
  const HookFinding finding = check_one(mm_shape_hook(), {"src/uses_decl.cpp"});
  EXPECT_EQ(finding.status, Status::Missing);
  EXPECT_TRUE(finding.found.empty());
  EXPECT_EQ(
      finding.message(),
      "ops.yaml:12:3: error: mm: shape function 'lazygen::shape::compute_shape_mm' is not "
      "defined in any hand-written source\n"
      "  hint: add this definition (in namespace lazygen::shape):\n"
      "    std::vector<Shape> compute_shape_mm(const Shape& self, const Shape& mat2) { ... }");
}

TEST_F(HookChecker, HandlesHooksAtGlobalScope) {
  const HookSpec hook{"scale_cpu", "void scale_cpu(float* data, long n, float factor);", "mul",
                      "CPU kernel", SourceLoc{"ops.yaml", 3, 5}};
  write("src/empty.cpp", "int unrelated;\n");
  EXPECT_THAT(check_one(hook, {"src/empty.cpp"}).message(),
              HasSubstr("hint: add this definition (at global scope):\n"
                        "    void scale_cpu(float* data, long n, float factor) { ... }"));
  write("src/scale.cpp", "void scale_cpu(float* d, long n, float f) {}\n");
  EXPECT_EQ(check_one(hook, {"src/scale.cpp"}).status, Status::Ok);
}

TEST_F(HookChecker, DeclarationOnlyDoesNotCount) {
  write("src/shape_mm.cpp", R"(#include "lazygen/shape.h"
namespace lazygen::shape {
std::vector<Shape> compute_shape_mm(const Shape& self, const Shape& mat2);
}  // namespace lazygen::shape
)");
  EXPECT_EQ(check_one(mm_shape_hook(), {"src/shape_mm.cpp"}).status, Status::Missing);
}

TEST_F(HookChecker, DefinitionsUnderGeneratedDoNotCount) {
  const std::string definition = R"(
namespace lazygen::shape {
inline std::vector<Shape> compute_shape_mm(const Shape& self, const Shape& mat2) { return {}; }
}  // namespace lazygen::shape
)";
  write("generated/lazygen/shape_inline.h",
        "#pragma once\n#include \"lazygen/shape.h\"\n" + definition);
  write("generated/shape_mm.cpp", "#include \"lazygen/shape.h\"\n" + definition);
  write("src/user.cpp", "#include \"lazygen/shape_inline.h\"\n");
  const HookFinding finding =
      check_one(mm_shape_hook(), {"generated/shape_mm.cpp", "src/user.cpp"});
  EXPECT_EQ(finding.status, Status::Missing) << finding.message();
}

TEST_F(HookChecker, InlineDefinitionInHandWrittenHeaderCounts) {
  write("include/lazygen/shape_mm_impl.h", R"(#pragma once
#include "lazygen/shape.h"
namespace lazygen::shape {
inline std::vector<Shape> compute_shape_mm(const Shape& self, const Shape& mat2) { return {}; }
}  // namespace lazygen::shape
)");
  write("src/a.cpp", "#include \"lazygen/shape_mm_impl.h\"\n");
  write("src/b.cpp", "#include \"lazygen/shape_mm_impl.h\"\n");
  const HookFinding finding = check_one(mm_shape_hook(), {"src/a.cpp", "src/b.cpp"});
  EXPECT_EQ(finding.status, Status::Ok) << finding.message();
  ASSERT_EQ(finding.found.size(), 1u);  // seen from both sources, reported once
  EXPECT_EQ(finding.found[0].loc.str(), "include/lazygen/shape_mm_impl.h:4:27");
}

TEST_F(HookChecker, ReportsWrongParameterTypeWithLocation) {
  write("src/shape_mm.cpp", R"(#include "lazygen/shape.h"
namespace lazygen::shape {
std::vector<Shape> compute_shape_mm(const Shape& self, int64_t mat2) { return {self}; }
}  // namespace lazygen::shape
)");
  const HookFinding finding = check_one(mm_shape_hook(), {"src/shape_mm.cpp"});
  EXPECT_EQ(finding.status, Status::Mismatch);
  const std::string message = finding.message();
  EXPECT_THAT(message, HasSubstr("ops.yaml:12:3: error: mm: shape function "
                                 "'lazygen::shape::compute_shape_mm' is defined, but not with the "
                                 "expected signature\n"
                                 "  expected (in namespace lazygen::shape):\n"
                                 "    std::vector<Shape> compute_shape_mm(const Shape& self, "
                                 "const Shape& mat2);\n"));
  EXPECT_THAT(message, HasSubstr("\nsrc/shape_mm.cpp:3:20: note: found: std::vector<Shape> "
                                 "compute_shape_mm(const Shape &self, int64_t mat2)\n"));
  EXPECT_THAT(message, HasSubstr("parameter 2 'mat2' has type 'int64_t' (aka 'long'), expected "
                                 "'const Shape &'"));
  EXPECT_THAT(message, HasSubstr("hint: change the definition"));
}

TEST_F(HookChecker, ReportsWrongReturnType) {
  write("src/shape_mm.cpp", R"(#include "lazygen/shape.h"
namespace lazygen::shape {
Shape compute_shape_mm(const Shape& self, const Shape& mat2) { return self; }
}  // namespace lazygen::shape
)");
  const HookFinding finding = check_one(mm_shape_hook(), {"src/shape_mm.cpp"});
  EXPECT_EQ(finding.status, Status::Mismatch);
  EXPECT_THAT(finding.message(), HasSubstr("src/shape_mm.cpp:3:7: note: found: Shape "
                                           "compute_shape_mm(const Shape &self, const Shape "
                                           "&mat2)\n  it returns 'Shape', expected "
                                           "'std::vector<Shape>'"));
}

TEST_F(HookChecker, ReportsExtraParameter) {
  write("src/shape_mm.cpp", R"(#include "lazygen/shape.h"
namespace lazygen::shape {
std::vector<Shape> compute_shape_mm(const Shape& self, const Shape& mat2, bool transpose) {
  return {};
}
}  // namespace lazygen::shape
)");
  const HookFinding finding = check_one(mm_shape_hook(), {"src/shape_mm.cpp"});
  EXPECT_EQ(finding.status, Status::Mismatch);
  EXPECT_THAT(finding.message(), HasSubstr("it takes 3 parameter(s), expected 2"));
}

TEST_F(HookChecker, OneMatchingOverloadIsEnough) {
  write("src/shape_mm.cpp", R"(#include "lazygen/shape.h"
namespace lazygen::shape {
std::vector<Shape> compute_shape_mm(const Shape& self, double alpha) { return {}; }
std::vector<Shape> compute_shape_mm(const Shape& self, const Shape& mat2) { return {}; }
}  // namespace lazygen::shape
)");
  const HookFinding finding = check_one(mm_shape_hook(), {"src/shape_mm.cpp"});
  EXPECT_EQ(finding.status, Status::Ok);
  EXPECT_EQ(finding.found.size(), 2u);
  EXPECT_THAT(finding.message(), HasSubstr("defined at src/shape_mm.cpp:4:20"));
}

TEST_F(HookChecker, ChecksSeveralHooksAcrossSourcesThatSeeDifferentTypes) {
  write("src/shape_mm.cpp", R"(#include "lazygen/shape.h"
namespace lazygen::shape {
std::vector<Shape> compute_shape_mm(const Shape& self, const Shape& mat2) { return {}; }
}  // namespace lazygen::shape
)");
  // Does not see lazygen::Shape: the shape hook's expected declaration cannot be built here, which
  // must not count as an error of this source.
  write("src/mm_cpu.cpp", R"(#include <cstdint>
namespace lazygen::cpu {
void mm_cpu(const float* a, const float* b, float* out, int64_t m, int64_t k, int64_t n) {}
}  // namespace lazygen::cpu
)");
  const std::vector<HookFinding> findings = check_hooks(
      {mm_shape_hook(), mm_kernel_hook()}, input({"src/shape_mm.cpp", "src/mm_cpu.cpp"}));
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].status, Status::Ok) << findings[0].message();
  EXPECT_EQ(findings[1].status, Status::Ok) << findings[1].message();
}

TEST_F(HookChecker, ExplainsExpectedDeclarationThatDoesNotCompileNextToTheDefinition) {
  write("src/shape_mm.cpp", R"(#include "lazygen/shape.h"
namespace lazygen::shape {
std::vector<Shape> compute_shape_mm(const Shape& self, const Shape& mat2) { return {}; }
}  // namespace lazygen::shape
)");
  HookSpec hook = mm_shape_hook();
  hook.declaration = "std::vector<Shape> compute_shape_mm(const Shape& self, Strides mat2);";
  const HookFinding finding = check_one(hook, {"src/shape_mm.cpp"});
  EXPECT_EQ(finding.status, Status::Mismatch);
  EXPECT_THAT(finding.problem, HasSubstr("the expected declaration does not compile in "
                                         "src/shape_mm.cpp: unknown type name 'Strides'"));
  EXPECT_THAT(finding.message(), HasSubstr("note: the expected declaration does not compile"));
  EXPECT_THAT(finding.message(), HasSubstr("hint: make the types the declaration names visible"));
}

TEST_F(HookChecker, SourceThatDoesNotCompileIsReportedWithItsFile) {
  write("src/broken.cpp", R"(#include "lazygen/shape.h"
namespace lazygen::shape {
Shap compute_shape_mm(const Shape& self, const Shape& mat2);
int body() { return undeclared_name; }
}  // namespace lazygen::shape
)");
  try {
    check_one(mm_shape_hook(), {"src/broken.cpp"});
    FAIL() << "expected a GenError";
  } catch (const GenError& error) {
    const std::string what = error.what();
    EXPECT_THAT(what, HasSubstr("src/broken.cpp:3:1: error: hand-written source "
                                "'src/broken.cpp' does not compile"));
    EXPECT_THAT(what, HasSubstr("src/broken.cpp:3:1: error: unknown type name 'Shap'"));
    // Bodies of the source itself are parsed (only headers' bodies are skipped).
    EXPECT_THAT(what, HasSubstr("src/broken.cpp:4:21: error: use of undeclared identifier "
                                "'undeclared_name'"));
    EXPECT_THAT(what, HasSubstr("hint: fix the error(s); Clang 14 parsed it with: clang++"));
  }
}

TEST_F(HookChecker, MissingIncludeIsAClearError) {
  write("src/no_include.cpp", "#include \"lazygen/does_not_exist.h\"\n");
  try {
    check_one(mm_shape_hook(), {"src/no_include.cpp"});
    FAIL() << "expected a GenError";
  } catch (const GenError& error) {
    EXPECT_THAT(error.what(), HasSubstr("src/no_include.cpp:1:10: error: hand-written source "
                                        "'src/no_include.cpp' does not compile"));
    EXPECT_THAT(error.what(), HasSubstr("'lazygen/does_not_exist.h' file not found"));
  }
}

TEST_F(HookChecker, NonexistentSourceIsAClearError) {
  EXPECT_THROW(
      {
        try {
          check_one(mm_shape_hook(), {"src/nope.cpp"});
        } catch (const GenError& error) {
          EXPECT_THAT(error.what(), HasSubstr("src/nope.cpp' does not exist"));
          throw;
        }
      },
      GenError);
}

TEST_F(HookChecker, UsesCompileCommandsJsonAndDropsGccOnlyOptions) {
  write("src/shape_mm.cpp", R"(#include "lazygen/shape.h"
namespace lazygen::shape {
std::vector<Shape> compute_shape_mm(const Shape& self, const Shape& mat2) { return {}; }
}  // namespace lazygen::shape
)");
  // Relative file name, a ccache launcher and options only gcc knows, as CMake writes them.
  write(
      "build/compile_commands.json",
      R"([{
  "directory": ")" +
          (root_ / "build").string() + R"(",
  "command": "/usr/bin/ccache /usr/bin/c++ -I)" +
          (root_ / "include").string() +
          R"( -std=c++20 -Wall -Werror -Wduplicated-cond -fconcepts-diagnostics-depth=3 -mno-direct-extern-access -o shape_mm.o -c ../src/shape_mm.cpp",
  "file": "../src/shape_mm.cpp"
}])");
  HookCheckInput in = input({"src/shape_mm.cpp"});
  in.fallback_args = {"-std=c++20"};  // would not find lazygen/shape.h
  in.compile_commands_dir = (root_ / "build").string();
  const std::vector<HookFinding> findings = check_hooks({mm_shape_hook()}, in);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].status, Status::Ok) << findings[0].message();
  EXPECT_EQ(findings[0].found.at(0).loc.str(), "src/shape_mm.cpp:3:20");
}

TEST_F(HookChecker, SourcesAbsentFromTheDatabaseUseFallbackArguments) {
  write("build/compile_commands.json", "[]");
  write("src/shape_mm.cpp", R"(#include "lazygen/shape.h"
namespace lazygen::shape {
std::vector<Shape> compute_shape_mm(const Shape& self, const Shape& mat2) { return {}; }
}  // namespace lazygen::shape
)");
  HookCheckInput in = input({"src/shape_mm.cpp"});
  in.compile_commands_dir = (root_ / "build").string();
  EXPECT_EQ(check_hooks({mm_shape_hook()}, in).at(0).status, Status::Ok);
}

TEST_F(HookChecker, UnreadableCompilationDatabaseIsAClearError) {
  HookCheckInput in = input({});
  in.compile_commands_dir = (root_ / "no_build").string();
  write("src/x.cpp", "");
  in.sources = {(root_ / "src/x.cpp").string()};
  EXPECT_THROW(check_hooks({mm_shape_hook()}, in), GenError);
}

TEST_F(HookChecker, ChecksASmallSourceQuickly) {
  write("src/shape_mm.cpp", R"(#include "lazygen/shape.h"
namespace lazygen::shape {
std::vector<Shape> compute_shape_mm(const Shape& self, const Shape& mat2) { return {}; }
}  // namespace lazygen::shape
)");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(check_one(mm_shape_hook(), {"src/shape_mm.cpp"}).status, Status::Ok);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  // Generous: typically a few hundred milliseconds; the bound only catches parsing far too much.
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(), 5000);
}

}  // namespace
}  // namespace lazygen::gen
