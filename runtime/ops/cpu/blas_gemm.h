// Row-major BLAS gemm for the cpu kernels (matmul.cpp, conv.cpp, winograd.cpp): one call shape
// for float and double, a check that sizes fit BLAS's int, and one thread pool.
//
// Note [One thread pool]
// ~~~~~~~~~~~~~~~~~~~~~~
// OpenBLAS brings its own worker threads, and after each threaded call they spin on sched_yield
// for a long while (2^28 cycles by default) before they sleep. Next to our pool's workers, on the
// two cores these kernels are tuned for, that spinning took ~22% of the CNN training step's CPU
// samples. So OpenBLAS runs on the calling thread only (blas_gemm.cpp sets its thread count to 1
// before the first gemm), and a gemm large enough to be worth splitting is split here over our
// pool: along n (columns of c) when n >= m, else along m, each part one single-threaded BLAS call.
// A gemm issued from inside a pool task (Winograd's blocks, im2col's sample ranges) runs whole
// on that thread, since parallel_for does not nest. The parts write disjoint parts of c and do
// the same arithmetic per element as one call, so results do not depend on the thread count.
#pragma once

#include <cblas.h>

#include <cstdint>

namespace lazygen::cpu {

// Row-major c [m, n] = alpha * op(a) [m, k] @ op(b) [k, n] + beta * c. A leading dimension of 0
// means dense: the stored row length (k or m for a, n or k for b, n for c).
struct Gemm {
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;
  const char* op = "conv2d";  // named by the ShapeError for a size BLAS's int cannot hold
};

// Gemms with m * n * k at most this run whole on the calling thread: splitting them costs more
// in wake-ups than it saves. Callers with many such gemms split their own work over the pool.
inline constexpr int64_t kBlasSingleThreadMnk = 65536 * 4;

// REQUIRES: g's sizes > 0 and operands of g's sizes and leading dimensions; beta == 0 ignores
// c's contents. Splits over our pool per Note [One thread pool]. Throws ShapeError naming g.op
// when a size or leading dimension does not fit BLAS's int.
template <class T>
void gemm(const Gemm& g, T alpha, const T* a, const T* b, T beta, T* c);

// Gives OpenBLAS the thread count the current mode wants (Note [One thread pool]), once per
// change; every call into OpenBLAS other than gemm's (LAPACK, trsm: lapack.cpp) comes after it.
void apply_blas_threads();

// For A/B benchmarks: off, OpenBLAS gets num_threads() threads of its own and nothing is split
// (the arrangement before Note [One thread pool]). On by default.
// REQUIRES: no gemm running; takes effect at the next gemm.
void set_gemm_pool_split(bool on);
bool gemm_pool_split();

// The same with alpha = 1.
template <class T>
void gemm(const Gemm& g, const T* a, const T* b, T beta, T* c) {
  gemm<T>(g, T(1), a, b, beta, c);
}

}  // namespace lazygen::cpu
