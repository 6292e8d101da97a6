// Opening OpenBLAS (openblas.h, Note [Choosing OpenBLAS's kernels]).
#include "ops/cpu/openblas.h"

#include <dlfcn.h>

#include <cstdlib>
#include <stdexcept>

#ifndef LAZYGEN_OPENBLAS_SONAME
#define LAZYGEN_OPENBLAS_SONAME "libopenblas.so.0"
#endif

namespace lazygen::cpu {
namespace {

[[noreturn]] void fail(const std::string& what) {
  const char* why = dlerror();
  throw std::runtime_error("lazygen: " + what + " (" + LAZYGEN_OPENBLAS_SONAME +
                           "): " + (why ? why : "unknown error") +
                           "\nInstall it with:  sudo apt-get install -y libopenblas0");
}

template <class F>
F symbol(void* library, const char* name) {
  void* address = dlsym(library, name);
  if (!address) fail(std::string("OpenBLAS has no ") + name);
  return reinterpret_cast<F>(address);
}

OpenBlas open_openblas() {
  const std::string core = openblas_core_for_this_cpu();
  if (!core.empty()) setenv("OPENBLAS_CORETYPE", core.c_str(), /*overwrite=*/0);
  void* library = dlopen(LAZYGEN_OPENBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!library) fail("cannot open OpenBLAS");
  OpenBlas blas;
  blas.sgemm = symbol<decltype(&cblas_sgemm)>(library, "cblas_sgemm");
  blas.dgemm = symbol<decltype(&cblas_dgemm)>(library, "cblas_dgemm");
  blas.set_num_threads =
      symbol<decltype(&openblas_set_num_threads)>(library, "openblas_set_num_threads");
  blas.core = symbol<decltype(&openblas_get_corename)>(library, "openblas_get_corename")();
  return blas;
}

}  // namespace

std::string openblas_core_for_this_cpu() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")) {
    return "SkylakeX";
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
  return "";
}

const OpenBlas& openblas() {
  static const OpenBlas blas = open_openblas();
  return blas;
}

}  // namespace lazygen::cpu
