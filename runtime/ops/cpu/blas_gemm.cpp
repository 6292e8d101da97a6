// The pool-split BLAS gemm (blas_gemm.h, Note [One thread pool]).
#include "ops/cpu/blas_gemm.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <mutex>
#include <string>

#include "core/thread_pool.h"
#include "lazygen/shape.h"
#include "ops/cpu/openblas.h"

namespace lazygen::cpu {
namespace {

// Columns or rows per part are a multiple of this, so parts of c start on cache lines.
constexpr int64_t kPartAlignment = 16;

blasint blas_int(int64_t v, const char* op) {
  if (v > std::numeric_limits<blasint>::max()) {
    throw ShapeError(op, "dimension " + std::to_string(v) + " is too large for BLAS");
  }
  return static_cast<blasint>(v);
}

// cblas's two gemms under one name.
void cblas_gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k,
                float alpha, const float* a, blasint lda, const float* b, blasint ldb,
                float beta, float* c, blasint ldc) {
  openblas().sgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k,
                double alpha, const double* a, blasint lda, const double* b, blasint ldb,
                double beta, double* c, blasint ldc) {
  openblas().dgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// One BLAS call for all of g on the calling thread.
template <class T>
void blas_call(const Gemm& g, T alpha, const T* a, const T* b, T beta, T* c) {
  auto size = [&](int64_t v) { return blas_int(v, g.op); };
  cblas_gemm(g.trans_a ? CblasTrans : CblasNoTrans, g.trans_b ? CblasTrans : CblasNoTrans,
             size(g.m), size(g.n), size(g.k), alpha, a, size(g.lda), b, size(g.ldb), beta, c,
             size(g.ldc));
}

// g with every leading dimension of 0 replaced by the dense one.
Gemm with_leading_dims(Gemm g) {
  if (g.lda == 0) g.lda = std::max<int64_t>(1, g.trans_a ? g.m : g.k);
  if (g.ldb == 0) g.ldb = std::max<int64_t>(1, g.trans_b ? g.k : g.n);
  if (g.ldc == 0) g.ldc = std::max<int64_t>(1, g.n);
  return g;
}

std::atomic<bool> g_pool_split{true};
std::atomic<int> g_blas_threads{0};  // what OpenBLAS was last told; 0: nothing yet

}  // namespace

void apply_blas_threads() {
  const int wanted = g_pool_split.load(std::memory_order_relaxed) ? 1 : num_threads();
  if (g_blas_threads.load(std::memory_order_relaxed) == wanted) return;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (g_blas_threads.load() == wanted) return;
  openblas().set_num_threads(wanted);
  g_blas_threads.store(wanted);
}

template <class T>
void gemm(const Gemm& dense, T alpha, const T* a, const T* b, T beta, T* c) {
  apply_blas_threads();
  const Gemm g = with_leading_dims(dense);
  const bool split_n = g.n >= g.m;
  const int64_t extent = split_n ? g.n : g.m;
  const int64_t parts = std::min<int64_t>(num_threads(), extent / kPartAlignment);
  if (g.m * g.n * g.k <= kBlasSingleThreadMnk || parts < 2 || !gemm_pool_split()) {
    blas_call(g, alpha, a, b, beta, c);
    return;
  }
  const int64_t step = (extent / kPartAlignment + parts - 1) / parts * kPartAlignment;
  parallel_for(0, parts, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      // The last part takes the rest: step rounds to kPartAlignment, the extent need not.
      const int64_t lo = p * step, hi = p + 1 == parts ? extent : std::min(extent, (p + 1) * step);
      if (lo >= hi) continue;
      Gemm part = g;
      const T* pa = a;
      const T* pb = b;
      if (split_n) {
        part.n = hi - lo;
        pb += g.trans_b ? lo * g.ldb : lo;
        blas_call(part, alpha, pa, pb, beta, c + lo);
      } else {
        part.m = hi - lo;
        pa += g.trans_a ? lo : lo * g.lda;
        blas_call(part, alpha, pa, pb, beta, c + lo * g.ldc);
      }
    }
  });
}

void set_gemm_pool_split(bool on) {
  g_pool_split.store(on);
}
bool gemm_pool_split() {
  return g_pool_split.load(std::memory_order_relaxed);
}

template void gemm<float>(const Gemm&, float, const float*, const float*, float, float*);
template void gemm<double>(const Gemm&, double, const double*, const double*, double, double*);

}  // namespace lazygen::cpu
