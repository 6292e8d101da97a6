// _lapack_getrf, _lapack_potrf and _lapack_trsm (custom_kernels.h): OpenBLAS's LAPACK and trsm,
// one call per matrix of the batch.
//
// LAPACK is column-major and a lazygen matrix row-major, so getrf and potrf factor a transposed
// copy of each matrix (the matrix itself as LAPACK reads it) and transpose the result back, an
// O(n^2) copy beside O(n^3) work; cblas trsm takes row-major operands as they are. Each matrix is
// one single-threaded OpenBLAS call (Note [One thread pool] in blas_gemm.h); a batch is split
// over the cpu thread pool, matrices whole on their thread, so results do not depend on the
// thread count.
#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/tensor/tensor_impl.h"
#include "core/thread_pool.h"
#include "ops/cpu/blas_gemm.h"
#include "ops/cpu/custom_kernels.h"
#include "ops/cpu/openblas.h"
#include "ops/shape/custom_shapes.h"

namespace lazygen::cpu {
namespace {

// n as LAPACK's int; ShapeError naming `op` when it does not fit.
int lapack_int(int64_t n, const char* op) {
  if (n > INT_MAX) {
    throw ShapeError(op, "a size of " + std::to_string(n) + " does not fit LAPACK's int");
  }
  return static_cast<int>(n);
}

// fn(T{}) for float32/float64 `t`; std::invalid_argument naming `op` otherwise (the op API only
// passes those).
template <class Fn>
void dispatch_lapack(const char* op, DType t, Fn&& fn) {
  if (t == DType::Float32) return fn(float{});
  if (t == DType::Float64) return fn(double{});
  throw std::invalid_argument(std::string(op) + ": expected float32 or float64, got " +
                              std::string(dtype_name(t)));
}

// fn(i) for every matrix i of a batch of `count`, split over the pool.
template <class Fn>
void for_each_matrix(int64_t count, const Fn& fn) {
  apply_blas_threads();
  parallel_over_items(count, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) fn(i);
  });
}

// dst [n, n] = src [n, n] transposed (both dense).
template <class T>
void transpose_into(T* dst, const T* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) dst[j * n + i] = src[i * n + j];
  }
}

template <class T>
void getrf(T* a, int n, int* pivots, int* info) {
  if constexpr (std::is_same_v<T, float>) {
    openblas().sgetrf(&n, &n, a, &n, pivots, info);
  } else {
    openblas().dgetrf(&n, &n, a, &n, pivots, info);
  }
}

template <class T>
void potrf(char uplo, T* a, int n, int* info) {
  if constexpr (std::is_same_v<T, float>) {
    openblas().spotrf(&uplo, &n, a, &n, info, 1);
  } else {
    openblas().dpotrf(&uplo, &n, a, &n, info, 1);
  }
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> _lapack_getrf(const Tensor& self) {
  const std::vector<Shape> shapes = compute_shape__lapack_getrf(self.shape());
  Tensor lu = make_cpu_tensor(shapes[0].sizes, shapes[0].dtype);
  Tensor pivots = make_cpu_tensor(shapes[1].sizes, DType::Int32);
  Tensor info = make_cpu_tensor(shapes[2].sizes, DType::Int32);
  const int64_t b = self.size(0), n = self.size(1);
  const int ni = lapack_int(n, "_lapack_getrf");
  const Tensor a = self.contiguous();
  dispatch_lapack("_lapack_getrf", self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for_each_matrix(b, [&](int64_t i) {
      int* status = info.data_ptr<int32_t>() + i;
      *status = 0;
      if (n == 0) return;
      std::vector<T> work(static_cast<size_t>(n * n));
      transpose_into(work.data(), a.data_ptr<T>() + i * n * n, n);
      getrf(work.data(), ni, pivots.data_ptr<int32_t>() + i * n, status);
      transpose_into(lu.data_ptr<T>() + i * n * n, work.data(), n);
    });
  });
  return {lu, pivots, info};
}

std::tuple<Tensor, Tensor> _lapack_potrf(const Tensor& self, bool upper) {
  const std::vector<Shape> shapes = compute_shape__lapack_potrf(self.shape(), upper);
  Tensor factor = make_cpu_tensor(shapes[0].sizes, shapes[0].dtype);
  Tensor info = make_cpu_tensor(shapes[1].sizes, DType::Int32);
  const int64_t b = self.size(0), n = self.size(1);
  const int ni = lapack_int(n, "_lapack_potrf");
  const Tensor a = self.contiguous();
  dispatch_lapack("_lapack_potrf", self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for_each_matrix(b, [&](int64_t i) {
      int* status = info.data_ptr<int32_t>() + i;
      *status = 0;
      if (n == 0) return;
      std::vector<T> work(static_cast<size_t>(n * n));
      transpose_into(work.data(), a.data_ptr<T>() + i * n * n, n);
      potrf(upper ? 'U' : 'L', work.data(), ni, status);
      T* out = factor.data_ptr<T>() + i * n * n;
      transpose_into(out, work.data(), n);
      for (int64_t r = 0; r < n; ++r) {  // the triangle LAPACK neither reads nor writes
        for (int64_t c = 0; c < n; ++c) {
          if (upper ? c < r : c > r) out[r * n + c] = T(0);
        }
      }
    });
  });
  return {factor, info};
}

Tensor _lapack_trsm(const Tensor& self, const Tensor& B, bool upper, bool unitriangular) {
  const Shape shape = compute_shape__lapack_trsm(self.shape(), B.shape(), upper, unitriangular)[0];
  Tensor x = B.contiguous().clone();
  const int64_t b = self.size(0), n = self.size(1), k = B.size(2);
  if (x.numel() == 0) return x;
  const int ni = lapack_int(n, "_lapack_trsm"), ki = lapack_int(k, "_lapack_trsm");
  const Tensor a = self.contiguous();
  const CBLAS_UPLO uplo = upper ? CblasUpper : CblasLower;
  const CBLAS_DIAG diag = unitriangular ? CblasUnit : CblasNonUnit;
  dispatch_lapack("_lapack_trsm", shape.dtype, [&](auto tag) {
    using T = decltype(tag);
    for_each_matrix(b, [&](int64_t i) {
      const T* ai = a.data_ptr<T>() + i * n * n;
      T* xi = x.data_ptr<T>() + i * n * k;
      if constexpr (std::is_same_v<T, float>) {
        openblas().strsm(CblasRowMajor, CblasLeft, uplo, CblasNoTrans, diag, ni, ki, 1.0f, ai, ni,
                         xi, ki);
      } else {
        openblas().dtrsm(CblasRowMajor, CblasLeft, uplo, CblasNoTrans, diag, ni, ki, 1.0, ai, ni,
                         xi, ki);
      }
    });
  });
  return x;
}

}  // namespace lazygen::cpu
