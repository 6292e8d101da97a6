// Tests of the built `lazygen` executable (its path comes from the build as LAZYGEN_EXE): exit
// codes and messages of command-line errors (2, a GenError's text, no stack trace), --help,
// --check on an up-to-date and on a stale directory (exit 1 with a diff), and --dump-schema,
// whose lines must be exactly the `func:` strings of a file written in canonical form (the
// repository's ops.yaml and, when installed, PyTorch's native_functions.yaml).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Result {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs lazygen with `args` (each quoted) from the source root.
Result lazygen(const std::vector<std::string>& args) {
  std::string cmd = "'" LAZYGEN_EXE "'";
  for (const std::string& a : args) cmd += " '" + a + "'";
  cmd += " 2>&1";
  Result r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) r.output.append(buf, n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The `func:` strings of an ops file, in order, as YAML reads them.
std::vector<std::string> func_strings(const std::string& path) {
  std::vector<std::string> out;
  for (const auto& entry : YAML::LoadFile(path)) out.push_back(entry["func"].as<std::string>());
  return out;
}

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("lazygen_cli_" + std::to_string(getpid()) + "_" + info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& rel) const { return (path_ / rel).string(); }

 private:
  fs::path path_;
};

const char* const kTinyOps = "tests/generator/dest/golden/tiny_ops.yaml";

TEST(Cli, UnknownOptionExitsWithTwo) {
  Result r = lazygen({"--bogus", "ops.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "error: unknown option '--bogus'\n  hint: see lazygen --help\n");
}

TEST(Cli, MissingInputExitsWithTwo) {
  Result r = lazygen({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(
      r.output.starts_with("error: no ops file given\n  hint: usage: lazygen [options] OPS_YAML"))
      << r.output;
}

TEST(Cli, OptionWithoutValueExitsWithTwo) {
  Result r = lazygen({"ops.yaml", "--ops"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "error: --ops needs a value\n  hint: see lazygen --help\n");
}

TEST(Cli, AnEmptyInputPathIsRefusedWithItsPosition) {
  Result r = lazygen({"-o", "out", ""});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.output.starts_with("error: an empty ops file path was given (argument 3)\n  hint: "
                                   "pass the path of an ops.yaml"))
      << r.output;
}

TEST(Cli, UnreadableInputNamesTheFile) {
  Result r = lazygen({"/nonexistent/ops.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "/nonexistent/ops.yaml: error: cannot open file\n  hint: check the path\n");
}

TEST(Cli, InvalidOpsFilePrintsTheLocatedError) {
  TempDir dir;
  std::ofstream(dir / "ops.yaml")
      << "- func: relu(Tensor self) -> Tensor\n  shape: same\n  pointwize: abs(self)\n";
  Result r = lazygen({dir / "ops.yaml", "-o", dir / "out"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.output.starts_with(
      dir / "ops.yaml" + ":3:3: error: unknown key 'pointwize'\n  hint: did you mean 'pointwise'?"))
      << r.output;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(Cli, KernelsReportsAMalformedManifestAtItsLocation) {
  TempDir dir;
  std::ofstream(dir / "app.manifest")
      << "# recorded\nlazygen-manifest 1\nkernel T=float32 load=float32:q op=relu(l0) out=v0:float32\n";
  Result r = lazygen({"--kernels", dir / "app.manifest", "-o", dir / "out"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.output.starts_with(dir / "app.manifest" +
                                   ":3:31: error: expected a stride class after ':' in 'float32:q'"))
      << r.output;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(Cli, KernelsRefusesOpsThatOpsYamlDoesNotHaveOrWithOtherOperands) {
  TempDir dir;
  std::ofstream(dir / "app.manifest")
      << "lazygen-manifest 1\nkernel T=float32 load=float32:c op=frobnicate(l0) out=v0:float32\n";
  Result r = lazygen({"--kernels", dir / "app.manifest", "-o", dir / "out", "ops.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.output.starts_with(dir / "app.manifest" + ":2:36: error: unknown op 'frobnicate'"))
      << r.output;
  std::ofstream(dir / "arity.manifest")
      << "lazygen-manifest 1\nkernel T=float32 load=float32:c op=relu(l0,l0) out=v0:float32\n";
  r = lazygen({"--kernels", dir / "arity.manifest", "-o", dir / "out", "ops.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.output.starts_with(dir / "arity.manifest" +
                                   ":2:36: error: 'relu' takes 1 tensor and 0 Scalar operand(s)"))
      << r.output;
}

TEST(Cli, KernelsOutputIsDeterministicAndMergesManifestsInAnyOrder) {
  TempDir dir;
  std::ofstream(dir / "a.manifest")
      << "lazygen-manifest 1\nkernel T=float32 load=float32:c op=relu(l0) out=v0:float32\n";
  std::ofstream(dir / "b.manifest")
      << "lazygen-manifest 1\nkernel T=float64 load=float64:b op=exp(l0) out=v0:float64\n"
         "kernel T=float32 load=float32:c op=relu(l0) out=v0:float32\n";
  auto run = [&](const std::string& manifests, const std::string& out) {
    Result r = lazygen({"--kernels", manifests, "-o", dir / out, "--no-format", "ops.yaml"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::ifstream in(dir / (out + "/aot_kernels.cpp"));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const std::string ab = run(dir / "a.manifest" + "," + dir / "b.manifest", "ab");
  EXPECT_EQ(ab, run(dir / "b.manifest" + "," + dir / "a.manifest", "ba"));
  size_t kernels = 0;
  for (size_t at = ab.find("void kernel_"); at != std::string::npos; at = ab.find("void kernel_", at + 1)) ++kernels;
  EXPECT_EQ(kernels, 2u) << ab;
  EXPECT_NE(ab.find("kernels::Relu{}"), std::string::npos) << ab;
}

TEST(Cli, HelpPrintsUsageAndExitsWithZero) {
  Result r = lazygen({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.output.starts_with("usage: lazygen")) << r.output;
}

TEST(Cli, CheckPassesRightAfterGenerating) {
  TempDir dir;
  ASSERT_EQ(lazygen({kTinyOps, "--no-format", "-o", dir / "out"}).exit_code, 0);
  Result r = lazygen({kTinyOps, "--check", "--no-format", "-o", dir / "out"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("all in sync"), std::string::npos) << r.output;
}

TEST(Cli, CheckFailsWithADiffWhenAFileIsStale) {
  TempDir dir;
  ASSERT_EQ(lazygen({kTinyOps, "--no-format", "-o", dir / "out"}).exit_code, 0);
  std::ofstream(dir / "out/src/op_info.cpp", std::ios::app) << "// edited by hand\n";
  Result r = lazygen({kTinyOps, "--check", "--no-format", "-o", dir / "out"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--- " + dir / "out/src/op_info.cpp" + " (on disk)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("-// edited by hand\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" is stale; run `lazygen "), std::string::npos) << r.output;
}

TEST(Cli, FunctionsListsEveryPointwiseFunctionWithItsArgumentsAndDtypes) {
  Result r = lazygen({"--functions"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GE(lines(r.output).size(), 59u) << r.output;  // a heading and the (at least) 58 functions
  for (const char* row : {"  where(a, b, c)", "  atan2(a, b)", "  erfinv(a)", "  bitwise_and(a, b)"}) {
    EXPECT_NE(r.output.find(row), std::string::npos) << row << " in\n" << r.output;
  }
  EXPECT_NE(r.output.find("bool and integral dtypes only"), std::string::npos) << r.output;
}

TEST(Cli, DumpSchemaPrintsTheFuncStringsOfOpsYaml) {
  Result r = lazygen({"--dump-schema", "ops.yaml"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(lines(r.output), func_strings("ops.yaml"));
}

TEST(Cli, DumpSchemaPrintsTheFuncStringsOfNativeFunctions) {
  const std::string native = LAZYGEN_NATIVE_FUNCTIONS;
  if (!fs::exists(native)) GTEST_SKIP() << native << " is absent";
  Result r = lazygen({"--dump-schema", native});
  ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
  std::vector<std::string> printed = lines(r.output), expected = func_strings(native);
  ASSERT_EQ(printed.size(), expected.size());
  for (size_t i = 0; i < printed.size(); ++i)
    ASSERT_EQ(printed[i], expected[i]) << "entry " << i + 1;
}

}  // namespace
