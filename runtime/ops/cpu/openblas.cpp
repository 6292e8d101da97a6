// Opening OpenBLAS (openblas.h, Note [Choosing OpenBLAS's kernels]).
#include "ops/cpu/openblas.h"

#include <dlfcn.h>
#include <strings.h>

#include <cstdio>
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

// Says once, on stderr, that OpenBLAS runs other kernels than `wanted` because it was loaded before
// lazygen could name them (a program that loads it first: PyTorch, for the PyTorch device).
void warn_if_loaded_too_early(const std::string& wanted, bool user_chose, const std::string& core) {
  if (wanted.empty() || user_chose || strcasecmp(core.c_str(), wanted.c_str()) == 0) return;
  std::fprintf(stderr,
               "lazygen: OpenBLAS was loaded before lazygen and runs its %s kernels on a CPU for "
               "which its %s kernels are the fast ones (Note [Choosing OpenBLAS's kernels]); set "
               "OPENBLAS_CORETYPE=%s in the environment before the program starts\n",
               core.c_str(), wanted.c_str(), wanted.c_str());
}

OpenBlas open_openblas() {
  const std::string core = openblas_core_for_this_cpu();
  const bool user_chose = std::getenv("OPENBLAS_CORETYPE") != nullptr;
  if (!core.empty()) setenv("OPENBLAS_CORETYPE", core.c_str(), /*overwrite=*/0);
  void* library = dlopen(LAZYGEN_OPENBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!library) fail("cannot open OpenBLAS");
  OpenBlas blas;
  blas.sgemm = symbol<decltype(&cblas_sgemm)>(library, "cblas_sgemm");
  blas.dgemm = symbol<decltype(&cblas_dgemm)>(library, "cblas_dgemm");
  blas.set_num_threads =
      symbol<decltype(&openblas_set_num_threads)>(library, "openblas_set_num_threads");
  blas.strsm = symbol<decltype(&cblas_strsm)>(library, "cblas_strsm");
  blas.dtrsm = symbol<decltype(&cblas_dtrsm)>(library, "cblas_dtrsm");
  blas.sgetrf = symbol<decltype(blas.sgetrf)>(library, "sgetrf_");
  blas.dgetrf = symbol<decltype(blas.dgetrf)>(library, "dgetrf_");
  blas.spotrf = symbol<decltype(blas.spotrf)>(library, "spotrf_");
  blas.dpotrf = symbol<decltype(blas.dpotrf)>(library, "dpotrf_");
  blas.ssyevd = symbol<decltype(blas.ssyevd)>(library, "ssyevd_");
  blas.dsyevd = symbol<decltype(blas.dsyevd)>(library, "dsyevd_");
  blas.sgesdd = symbol<decltype(blas.sgesdd)>(library, "sgesdd_");
  blas.dgesdd = symbol<decltype(blas.dgesdd)>(library, "dgesdd_");
  blas.sgeqrf = symbol<decltype(blas.sgeqrf)>(library, "sgeqrf_");
  blas.dgeqrf = symbol<decltype(blas.dgeqrf)>(library, "dgeqrf_");
  blas.sorgqr = symbol<decltype(blas.sorgqr)>(library, "sorgqr_");
  blas.dorgqr = symbol<decltype(blas.dorgqr)>(library, "dorgqr_");
  blas.sgels = symbol<decltype(blas.sgels)>(library, "sgels_");
  blas.dgels = symbol<decltype(blas.dgels)>(library, "dgels_");
  blas.sgelsy = symbol<decltype(blas.sgelsy)>(library, "sgelsy_");
  blas.dgelsy = symbol<decltype(blas.dgelsy)>(library, "dgelsy_");
  blas.sgelsd = symbol<decltype(blas.sgelsd)>(library, "sgelsd_");
  blas.dgelsd = symbol<decltype(blas.dgelsd)>(library, "dgelsd_");
  blas.sgelss = symbol<decltype(blas.sgelss)>(library, "sgelss_");
  blas.dgelss = symbol<decltype(blas.dgelss)>(library, "dgelss_");
  blas.core = symbol<decltype(&openblas_get_corename)>(library, "openblas_get_corename")();
  warn_if_loaded_too_early(core, user_chose, blas.core);
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
