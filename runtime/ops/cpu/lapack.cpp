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
#include <type_traits>
#include <vector>

#include "core/tensor/tensor_impl.h"
#include "ops/cpu/custom_kernels.h"
#include "ops/cpu/lapack_parts.h"
#include "ops/cpu/openblas.h"
#include "ops/shape/custom_shapes.h"

namespace lazygen::cpu {
namespace {

template <class T>
void getrf(T* a, int m, int n, int* pivots, int* info) {
  if constexpr (std::is_same_v<T, float>) {
    openblas().sgetrf(&m, &n, a, &m, pivots, info);
  } else {
    openblas().dgetrf(&m, &n, a, &m, pivots, info);
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

// For each matrix i of a [b, m, n] (dense): a column-major copy of it, `factor(copy, &info[i], i)`,
// and the copy, back in row-major order, as out's matrix i.
template <class T, class Factor>
void factor_each(const Tensor& a, const Tensor& out, const Tensor& info, const Factor& factor) {
  const int64_t b = a.size(0), m = a.size(1), n = a.size(2);
  for_each_matrix(b, [&](int64_t i) {
    int* status = info.data_ptr<int32_t>() + i;
    *status = 0;
    if (m == 0 || n == 0) return;
    std::vector<T> work(static_cast<size_t>(m * n));
    to_column_major(work.data(), a.data_ptr<T>() + i * m * n, m, n);
    factor(work.data(), status, i);
    from_column_major(out.data_ptr<T>() + i * m * n, work.data(), m, n, m);
  });
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> _lapack_getrf(const Tensor& self) {
  const std::vector<Shape> shapes = compute_shape__lapack_getrf(self.shape());
  Tensor lu = make_cpu_tensor(shapes[0].sizes, shapes[0].dtype);
  Tensor pivots = make_cpu_tensor(shapes[1].sizes, DType::Int32);
  Tensor info = make_cpu_tensor(shapes[2].sizes, DType::Int32);
  const int64_t m = self.size(1), n = self.size(2), k = std::min(m, n);
  const int mi = lapack_int(m, "_lapack_getrf"), ni = lapack_int(n, "_lapack_getrf");
  dispatch_lapack("_lapack_getrf", self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    factor_each<T>(self.contiguous(), lu, info, [&](T* work, int* status, int64_t i) {
      getrf(work, mi, ni, pivots.data_ptr<int32_t>() + i * k, status);
    });
  });
  return {lu, pivots, info};
}

std::tuple<Tensor, Tensor> _lapack_potrf(const Tensor& self, bool upper) {
  const std::vector<Shape> shapes = compute_shape__lapack_potrf(self.shape(), upper);
  Tensor factor = make_cpu_tensor(shapes[0].sizes, shapes[0].dtype);
  Tensor info = make_cpu_tensor(shapes[1].sizes, DType::Int32);
  const int64_t n = self.size(1);
  const int ni = lapack_int(n, "_lapack_potrf");
  dispatch_lapack("_lapack_potrf", self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    factor_each<T>(self.contiguous(), factor, info, [&](T* work, int* status, int64_t) {
      potrf(upper ? 'U' : 'L', work, ni, status);
      for (int64_t c = 0; c < n; ++c) {    // the triangle LAPACK neither reads nor writes
        for (int64_t r = 0; r < n; ++r) {  // (column-major: element (r, c) at c * n + r)
          if (upper ? c < r : c > r) work[c * n + r] = T(0);
        }
      }
    });
  });
  return {factor, info};
}

Tensor _lapack_trsm(const Tensor& self, const Tensor& B, bool upper, bool unitriangular) {
  const Shape shape = compute_shape__lapack_trsm(self.shape(), B.shape(), upper, unitriangular)[0];
  Tensor x = B.clone();  // dense: the solution overwrites it
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
