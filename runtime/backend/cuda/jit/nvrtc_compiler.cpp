// NVRTC behind the kernel cache (nvrtc_compiler.h).
#include "backend/cuda/jit/nvrtc_compiler.h"

#include <dlfcn.h>
#include <nvrtc.h>

#include "backend/kernel_cache/digest.h"
#include "lazygen/metrics.h"

namespace lazygen::cuda {
namespace {

std::string target_of(const CompileRequest& r) {
  return (r.cubin ? "sm_" : "compute_") + std::to_string(r.arch);
}

// NVRTC's options for `r`: the target first, then the caller's.
std::vector<std::string> all_options(const CompileRequest& r) {
  std::vector<std::string> out = {"-arch=" + target_of(r)};
  out.insert(out.end(), r.options.begin(), r.options.end());
  return out;
}

std::string program_log(nvrtcProgram program) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size == 0) return "";
  std::string log(size, '\0');
  nvrtcGetProgramLog(program, log.data());
  if (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

void check(nvrtcResult result, const char* what, const CompileRequest& r) {
  if (result == NVRTC_SUCCESS) return;
  throw NvrtcError(
      std::string("NVRTC: ") + what + " failed for " + r.name + ": " + nvrtcGetErrorString(result),
      "");
}

// The compiled code of a program that compiled.
std::string compiled_code(nvrtcProgram program, const CompileRequest& r) {
  size_t size = 0;
  check(r.cubin ? nvrtcGetCUBINSize(program, &size) : nvrtcGetPTXSize(program, &size),
        "getting the output size", r);
  std::string code(size, '\0');
  check(r.cubin ? nvrtcGetCUBIN(program, code.data()) : nvrtcGetPTX(program, code.data()),
        "getting the output", r);
  if (!r.cubin && !code.empty() && code.back() == '\0') code.pop_back();
  return code;
}

// Runs NVRTC on `r`; throws NvrtcError with the log when the source does not compile.
std::string run_nvrtc(const CompileRequest& r) {
  static metrics::Counter& compiles = metrics::counter("nvrtc.compile");
  metrics::ScopedTimer timer(metrics::timed("nvrtc.compile_ms"));
  compiles.add();
  nvrtcProgram program = nullptr;
  check(nvrtcCreateProgram(&program, r.source.c_str(), r.name.c_str(), 0, nullptr, nullptr),
        "creating the program", r);
  const std::vector<std::string> options = all_options(r);
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  const nvrtcResult result =
      nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
  if (result != NVRTC_SUCCESS) {
    std::string log = program_log(program);
    nvrtcDestroyProgram(&program);
    throw NvrtcError("NVRTC could not compile " + r.name + " for " + target_of(r) + " (" +
                         nvrtcGetErrorString(result) + "):\n" + log,
                     log);
  }
  try {
    std::string code = compiled_code(program, r);
    nvrtcDestroyProgram(&program);
    return code;
  } catch (...) {
    nvrtcDestroyProgram(&program);
    throw;
  }
}

}  // namespace

std::string nvrtc_version() {
  int major = 0;
  int minor = 0;
  nvrtcVersion(&major, &minor);
  return "nvrtc " + std::to_string(major) + "." + std::to_string(minor);
}

std::string driver_version() {
  // Not linked: tests and builds must run where the toolkit is installed without a driver.
  void* libcuda = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (libcuda == nullptr) return "none";
  using GetVersion = int (*)(int*);
  auto get_version = reinterpret_cast<GetVersion>(::dlsym(libcuda, "cuDriverGetVersion"));
  int version = 0;
  const bool ok = get_version != nullptr && get_version(&version) == 0 && version > 0;
  ::dlclose(libcuda);
  return ok ? std::to_string(version) : "none";
}

NvrtcCompiler::NvrtcCompiler(kernel_cache::KernelCacheOptions cache_options)
    : cache_(std::move(cache_options)), toolchain_(nvrtc_version()), driver_(driver_version()) {}

kernel_cache::KernelKey NvrtcCompiler::key_for(const CompileRequest& r) const {
  std::string options = "name=" + r.name;
  for (const std::string& o : all_options(r)) options += ' ' + o;
  return {kernel_cache::source_digest(r.source), toolchain_, driver_, target_of(r), options};
}

std::string NvrtcCompiler::compile(const CompileRequest& request) {
  return cache_.get_or_build(key_for(request), [&request] { return run_nvrtc(request); });
}

}  // namespace lazygen::cuda
