// The NVRTC compiler: CUDA C++ source text -> PTX or cubin, compiled once per key and kept in the
// persistent kernel cache (backend/kernel_cache/kernel_cache.h), so a kernel is compiled once per
// process and, with a disk cache, once per machine. Needs the NVRTC library, not a GPU nor the
// driver: the driver's version is read through dlopen when libcuda is present, else "none".
//
//   NvrtcCompiler nvrtc;  // cache directory from the environment
//   std::string ptx = nvrtc.compile({.source = src, .name = "group_3.cu"});
//
// Note [JIT kernel key]
// An artifact depends on the source, the compiler (NVRTC's version), the target (compute_XX for
// PTX, sm_XX for cubin), the options, and the driver that will load it (a PTX JIT-compiled by an
// older driver may fail to load; keying on the driver rebuilds rather than reuse). The source
// enters the key as a 128-bit digest; the key itself is stored and compared in full on load.
//
// Metrics: nvrtc.compile (NVRTC actually ran), nvrtc.compile_ms, plus the kernel_cache.* counters.
// Thread safety: compile() may be called from any thread; threads asking for one key while it is
// being compiled wait for that compile (single flight, from KernelCache).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "backend/kernel_cache/kernel_cache.h"

namespace lazygen::cuda {

struct CompileRequest {
  std::string source;                // complete, include-free CUDA C++
  std::string name = "kernel.cu";    // the program's name in NVRTC's messages
  int arch = 90;                     // compute capability, major * 10 + minor
  bool cubin = false;                // false: PTX for compute_<arch>; true: SASS for sm_<arch>
  std::vector<std::string> options;  // more NVRTC options, e.g. "-lineinfo"
};

// A compile failure: what() holds the program name, NVRTC's error and its log.
class NvrtcError : public std::runtime_error {
 public:
  NvrtcError(const std::string& message, std::string log)
      : std::runtime_error(message), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

class NvrtcCompiler {
 public:
  explicit NvrtcCompiler(kernel_cache::KernelCacheOptions cache_options = {});

  // PTX text (NUL-free) or cubin bytes for `request`. Throws NvrtcError when it does not compile.
  std::string compile(const CompileRequest& request);

  // The cache key of `request`. See Note [JIT kernel key].
  kernel_cache::KernelKey key_for(const CompileRequest& request) const;

  kernel_cache::KernelCache& cache() { return cache_; }

 private:
  kernel_cache::KernelCache cache_;
  std::string toolchain_;  // "nvrtc <major>.<minor>"
  std::string driver_;     // driver_version()
};

// "nvrtc 13.0": the NVRTC library this process loaded.
std::string nvrtc_version();
// The CUDA driver's version ("13000"), or "none" when libcuda cannot be loaded.
std::string driver_version();

}  // namespace lazygen::cuda
