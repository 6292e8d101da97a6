// Row-major BLAS gemm for the convolution kernels (conv.cpp, winograd.cpp): one call shape for
// float and double, and a check that sizes fit BLAS's int.
#pragma once

#include <cblas.h>

#include <cstdint>
#include <limits>
#include <string>

#include "lazygen/shape.h"

namespace lazygen::cpu {

inline blasint blas_int(int64_t v) {
  if (v > std::numeric_limits<blasint>::max()) {
    throw ShapeError("conv2d", "dimension " + std::to_string(v) + " is too large for BLAS");
  }
  return static_cast<blasint>(v);
}

// Row-major c [m, n] = op(a) [m, k] @ op(b) [k, n] + beta * c, every operand dense (leading
// dimension = its row length).
struct Gemm {
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
};

inline void gemm(const Gemm& g, const float* a, const float* b, float beta, float* c) {
  cblas_sgemm(CblasRowMajor, g.trans_a ? CblasTrans : CblasNoTrans,
              g.trans_b ? CblasTrans : CblasNoTrans, blas_int(g.m), blas_int(g.n), blas_int(g.k),
              1.0f, a, blas_int(g.trans_a ? g.m : g.k), b, blas_int(g.trans_b ? g.k : g.n), beta, c,
              blas_int(g.n));
}
inline void gemm(const Gemm& g, const double* a, const double* b, double beta, double* c) {
  cblas_dgemm(CblasRowMajor, g.trans_a ? CblasTrans : CblasNoTrans,
              g.trans_b ? CblasTrans : CblasNoTrans, blas_int(g.m), blas_int(g.n), blas_int(g.k),
              1.0, a, blas_int(g.trans_a ? g.m : g.k), b, blas_int(g.trans_b ? g.k : g.n), beta, c,
              blas_int(g.n));
}

// OpenBLAS runs a gemm with m * n * k at most this on the calling thread alone
// (interface/gemm.c: SMP_THRESHOLD_MIN * GEMM_MULTITHREAD_THRESHOLD = 65536 * 4), so such gemms
// may run on our own pool's threads side by side without oversubscribing the cores.
inline constexpr int64_t kBlasSingleThreadMnk = 65536 * 4;

}  // namespace lazygen::cpu
