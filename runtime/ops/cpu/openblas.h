// OpenBLAS for the cpu kernels, opened at the first gemm instead of linked, so that lazygen can
// name its kernels first (Note [Choosing OpenBLAS's kernels]).
//
// Note [Choosing OpenBLAS's kernels]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A DYNAMIC_ARCH OpenBLAS (Debian's is one) chooses its kernels once, while it is being loaded,
// from the CPU's family and model numbers. A CPU newer than the OpenBLAS it runs (Debian
// bookworm's 0.3.21 on an Emerald Rapids Xeon, family 6 model 207) is a model it does not know,
// and it falls back to its Prescott kernels: SSE3 on a machine with AVX-512, gemm several times
// slower than it should be, and nothing says so. What those kernels need is the vector units,
// not the model, so unless OPENBLAS_CORETYPE is already set, lazygen sets it from the CPU's
// features before OpenBLAS is loaded: SkylakeX for AVX-512 F, BW, VL and DQ, Haswell for AVX2 and
// FMA, nothing (OpenBLAS's own choice) below that. A linked OpenBLAS would have chosen before
// any of lazygen's code ran, hence dlopen. A process that loaded OpenBLAS itself before the first
// gemm (a program linking it; Python after `import torch`, for the PyTorch device) keeps what
// OpenBLAS chose then: openblas().core says which, and lazygen says once on stderr when that is
// not the kernels this CPU calls for, naming the OPENBLAS_CORETYPE to set before the program
// starts.
#pragma once

#include <cblas.h>

#include <cstddef>

#include <string>

namespace lazygen::cpu {

// The OpenBLAS entry points the cpu kernels call.
struct OpenBlas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
  decltype(&openblas_set_num_threads) set_num_threads = nullptr;
  decltype(&cblas_strsm) strsm = nullptr;
  decltype(&cblas_dtrsm) dtrsm = nullptr;
  // LAPACK's Fortran entry points (column-major; a character argument's length follows the
  // others, as gfortran passes it).
  void (*sgetrf)(const int* m, const int* n, float* a, const int* lda, int* ipiv,
                 int* info) = nullptr;
  void (*dgetrf)(const int* m, const int* n, double* a, const int* lda, int* ipiv,
                 int* info) = nullptr;
  void (*spotrf)(const char* uplo, const int* n, float* a, const int* lda, int* info,
                 size_t) = nullptr;
  void (*dpotrf)(const char* uplo, const int* n, double* a, const int* lda, int* info,
                 size_t) = nullptr;
  void (*ssyevd)(const char* jobz, const char* uplo, const int* n, float* a, const int* lda,
                 float* w, float* work, const int* lwork, int* iwork, const int* liwork, int* info,
                 size_t, size_t) = nullptr;
  void (*dsyevd)(const char* jobz, const char* uplo, const int* n, double* a, const int* lda,
                 double* w, double* work, const int* lwork, int* iwork, const int* liwork,
                 int* info, size_t, size_t) = nullptr;
  void (*sgesdd)(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s,
                 float* u, const int* ldu, float* vt, const int* ldvt, float* work,
                 const int* lwork, int* iwork, int* info, size_t) = nullptr;
  void (*dgesdd)(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s,
                 double* u, const int* ldu, double* vt, const int* ldvt, double* work,
                 const int* lwork, int* iwork, int* info, size_t) = nullptr;
  // geqrf and orgqr: Householder QR in LAPACK's compact form, and Q formed from it.
  void (*sgeqrf)(const int* m, const int* n, float* a, const int* lda, float* tau, float* work,
                 const int* lwork, int* info) = nullptr;
  void (*dgeqrf)(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
                 const int* lwork, int* info) = nullptr;
  void (*sorgqr)(const int* m, const int* n, const int* k, float* a, const int* lda,
                 const float* tau, float* work, const int* lwork, int* info) = nullptr;
  void (*dorgqr)(const int* m, const int* n, const int* k, double* a, const int* lda,
                 const double* tau, double* work, const int* lwork, int* info) = nullptr;
  // The least-squares drivers: gels (QR), gelsy (QR with column pivoting), gelsd and gelss
  // (the SVD, divide and conquer or not).
  void (*sgels)(const char* trans, const int* m, const int* n, const int* nrhs, float* a,
                const int* lda, float* b, const int* ldb, float* work, const int* lwork, int* info,
                size_t) = nullptr;
  void (*dgels)(const char* trans, const int* m, const int* n, const int* nrhs, double* a,
                const int* lda, double* b, const int* ldb, double* work, const int* lwork,
                int* info, size_t) = nullptr;
  void (*sgelsy)(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
                 const int* ldb, int* jpvt, const float* rcond, int* rank, float* work,
                 const int* lwork, int* info) = nullptr;
  void (*dgelsy)(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b,
                 const int* ldb, int* jpvt, const double* rcond, int* rank, double* work,
                 const int* lwork, int* info) = nullptr;
  void (*sgelsd)(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
                 const int* ldb, float* s, const float* rcond, int* rank, float* work,
                 const int* lwork, int* iwork, int* info) = nullptr;
  void (*dgelsd)(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b,
                 const int* ldb, double* s, const double* rcond, int* rank, double* work,
                 const int* lwork, int* iwork, int* info) = nullptr;
  void (*sgelss)(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
                 const int* ldb, float* s, const float* rcond, int* rank, float* work,
                 const int* lwork, int* info) = nullptr;
  void (*dgelss)(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b,
                 const int* ldb, double* s, const double* rcond, int* rank, double* work,
                 const int* lwork, int* info) = nullptr;
  std::string core;  // the kernels it chose ("SkylakeX", "Haswell", ...)
};

// Opens OpenBLAS on the first call (thread-safe) after choosing its kernels as Note [Choosing
// OpenBLAS's kernels] says. Throws std::runtime_error naming the library and the loader's message
// when it cannot be opened or lacks an entry point.
const OpenBlas& openblas();

// The OPENBLAS_CORETYPE this CPU's vector units call for ("SkylakeX", "Haswell"), or "" when
// OpenBLAS's own choice stands.
std::string openblas_core_for_this_cpu();

}  // namespace lazygen::cpu
