// The driver loader (backend/cuda/jit/driver_api.h) fails with a clear "no CUDA device: ..." error,
// never a crash: for a missing library, a library without the driver's entry points, and the
// toolkit's stub libcuda (which resolves everything but whose cuInit always fails).
#include "backend/cuda/jit/driver_api.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace lazygen::cuda {
namespace {

std::string load_error(const std::string& library) {
  try {
    DriverApi::load(library);
  } catch (const DriverUnavailable& e) {
    return e.what();
  }
  return "";
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

TEST(DriverApi, AMissingLibraryIsReportedByPath) {
  const std::string error = load_error("/nonexistent/libcuda.so.1");
  EXPECT_TRUE(starts_with(error,
                          "no CUDA device: cannot load the CUDA driver "
                          "/nonexistent/libcuda.so.1"))
      << error;
}

TEST(DriverApi, ALibraryWithoutTheEntryPointsIsRejected) {
  const std::string error = load_error("libm.so.6");
  EXPECT_TRUE(starts_with(error, "no CUDA device: libm.so.6 has no cuInit")) << error;
}

TEST(DriverApi, TheProcessDriverIsUnavailableWithoutLibcuda) {
  if (void* h = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    ::dlclose(h);
    GTEST_SKIP() << "libcuda.so.1 is installed";
  }
  std::string first, second;
  try {
    driver_api();
  } catch (const DriverUnavailable& e) {
    first = e.what();
  }
  try {
    driver_api();
  } catch (const DriverUnavailable& e) {
    second = e.what();
  }
  EXPECT_TRUE(starts_with(first, "no CUDA device: cannot load the CUDA driver libcuda.so.1"))
      << first;
  EXPECT_EQ(first, second) << "the first error is kept";
}

// In a child process: the stub's soname is libcuda.so.1, so once loaded it would answer this
// process's later dlopen("libcuda.so.1") calls.
TEST(DriverApi, TheToolkitStubResolvesButCuInitFails) {
  const std::string stub = LAZYGEN_CUDA_STUB_LIBCUDA;
  if (!std::filesystem::exists(stub)) GTEST_SKIP() << "no stub libcuda at " << stub;
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the process has threads (metrics, tbb)
  EXPECT_EXIT(
      {
        const std::string error = load_error(stub);
        std::fprintf(stderr, "%s\n", error.c_str());
        std::exit(starts_with(error, "no CUDA device: cuInit failed in " + stub + ": ") ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "no CUDA device: cuInit failed in ");
}

}  // namespace
}  // namespace lazygen::cuda
