// Tests of the NVRTC compiler over the kernel cache (backend/cuda/jit/nvrtc_compiler.h). NVRTC runs
// without a GPU or driver, so these run on every machine with the CUDA toolkit.
#include "backend/cuda/jit/nvrtc_compiler.h"

#include <gtest/gtest.h>

#include <fstream>
#include <latch>
#include <thread>
#include <vector>

#include "backend/kernel_cache/cache_files.h"
#include "lazygen/metrics.h"
#include "runtime/backend/kernel_cache/temp_dir.h"

namespace lazygen::cuda {
namespace {
namespace fs = std::filesystem;
using kernel_cache::testing::TempDir;

const char* kScale = R"(extern "C" __global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
)";

CompileRequest scale_request() {
  CompileRequest r;
  r.source = kScale;
  r.name = "scale.cu";
  return r;
}

kernel_cache::KernelCacheOptions in_dir(const fs::path& dir) {
  kernel_cache::KernelCacheOptions options;
  options.dir = dir;
  return options;
}

int64_t compiles() {
  return metrics::counter_value("nvrtc.compile");
}

TEST(NvrtcCompiler, CompilesToPtxOnceThenHitsMemory) {
  metrics::reset();
  TempDir tmp;
  NvrtcCompiler nvrtc(in_dir(tmp.path()));
  const std::string ptx = nvrtc.compile(scale_request());
  EXPECT_NE(ptx.find(".entry scale"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".target sm_90"), std::string::npos);
  EXPECT_EQ(nvrtc.compile(scale_request()), ptx);
  EXPECT_EQ(compiles(), 1);
  EXPECT_EQ(metrics::counter_value("kernel_cache.memory_hit"), 1);
}

TEST(NvrtcCompiler, AFreshCompilerOnTheSameDirectoryHitsTheDisk) {
  metrics::reset();
  TempDir tmp;
  const std::string ptx = NvrtcCompiler(in_dir(tmp.path())).compile(scale_request());
  EXPECT_EQ(NvrtcCompiler(in_dir(tmp.path())).compile(scale_request()), ptx);
  EXPECT_EQ(compiles(), 1);
  EXPECT_EQ(metrics::counter_value("kernel_cache.disk_hit"), 1);
}

TEST(NvrtcCompiler, ACorruptDiskEntryIsRebuilt) {
  TempDir tmp;
  NvrtcCompiler first(in_dir(tmp.path()));
  const std::string ptx = first.compile(scale_request());
  const fs::path entry = first.cache().entry_path(first.key_for(scale_request()));
  std::string bytes = kernel_cache::read_entry_file(entry).bytes;
  ASSERT_FALSE(bytes.empty());
  bytes[bytes.size() / 2] ^= 0x20;  // a flipped bit in the PTX
  std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
  metrics::reset();
  EXPECT_EQ(NvrtcCompiler(in_dir(tmp.path())).compile(scale_request()), ptx);
  EXPECT_EQ(compiles(), 1);
  EXPECT_EQ(metrics::counter_value("kernel_cache.corrupt"), 1);
  EXPECT_EQ(NvrtcCompiler(in_dir(tmp.path())).compile(scale_request()), ptx);
  EXPECT_EQ(compiles(), 1);  // the rebuilt entry is sound
}

TEST(NvrtcCompiler, EightThreadsCompilingOneSourceShareOneCompile) {
  metrics::reset();
  TempDir tmp;
  NvrtcCompiler nvrtc(in_dir(tmp.path()));
  std::latch start(8);
  std::vector<std::string> results(8);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      results[t] = nvrtc.compile(scale_request());
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(compiles(), 1);
  for (const std::string& r : results) EXPECT_EQ(r, results[0]);
  EXPECT_NE(results[0].find(".entry scale"), std::string::npos);
}

TEST(NvrtcCompiler, ACompileErrorCarriesNvrtcsLogAndIsNotCached) {
  metrics::reset();
  TempDir tmp;
  NvrtcCompiler nvrtc(in_dir(tmp.path()));
  CompileRequest bad = scale_request();
  bad.source = "extern \"C\" __global__ void broken() { undeclared_thing = 1; }\n";
  bad.name = "broken.cu";
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      nvrtc.compile(bad);
      ADD_FAILURE() << "expected an NvrtcError";
    } catch (const NvrtcError& e) {
      EXPECT_NE(std::string(e.what()).find("broken.cu"), std::string::npos) << e.what();
      EXPECT_NE(e.log().find("undeclared_thing"), std::string::npos) << e.log();
      EXPECT_NE(std::string(e.what()).find(e.log()), std::string::npos);
    }
  }
  EXPECT_EQ(compiles(), 2);
  EXPECT_FALSE(fs::exists(nvrtc.cache().entry_path(nvrtc.key_for(bad))));
}

TEST(NvrtcCompiler, CompilesCubinForAnSmTarget) {
  TempDir tmp;
  CompileRequest r = scale_request();
  r.cubin = true;
  const std::string cubin = NvrtcCompiler(in_dir(tmp.path())).compile(r);
  ASSERT_GE(cubin.size(), 4u);
  EXPECT_EQ(cubin.substr(0, 4),
            "\x7f"
            "ELF");
}

TEST(NvrtcCompiler, KeyCoversSourceToolchainDriverTargetAndOptions) {
  TempDir tmp;
  NvrtcCompiler nvrtc(in_dir(tmp.path()));
  const kernel_cache::KernelKey key = nvrtc.key_for(scale_request());
  EXPECT_EQ(key.toolchain, nvrtc_version());
  EXPECT_EQ(key.driver, driver_version());
  EXPECT_EQ(key.arch, "compute_90");
  CompileRequest other = scale_request();
  other.options = {"-lineinfo"};
  EXPECT_NE(nvrtc.key_for(other).text(), key.text());
  other = scale_request();
  other.arch = 80;
  EXPECT_EQ(nvrtc.key_for(other).arch, "compute_80");
  other = scale_request();
  other.source += "\n";
  EXPECT_NE(nvrtc.key_for(other).source_hash, key.source_hash);
}

TEST(NvrtcCompiler, VersionsAreReadableWithoutAGpu) {
  EXPECT_EQ(nvrtc_version().rfind("nvrtc ", 0), 0u);
  const std::string driver = driver_version();
  EXPECT_TRUE(driver == "none" || std::stoi(driver) > 0) << driver;
}

}  // namespace
}  // namespace lazygen::cuda
