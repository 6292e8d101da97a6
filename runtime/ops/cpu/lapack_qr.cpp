// _lapack_geqrf (custom_kernels.h): OpenBLAS's geqrf and orgqr on each matrix of the batch,
// matrices split over the cpu thread pool as in lapack.cpp, each handed to LAPACK as a
// column-major copy with the workspace LAPACK asks for, as PyTorch's cpu linalg_qr does (so Q and
// R have LAPACK's signs: PyTorch's on the same OpenBLAS).
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

// geqrf on the column-major m x n matrix a (leading dimension lda): R on and above the diagonal,
// the reflectors below it and in tau [min(m, n)].
template <class T>
void geqrf(int m, int n, T* a, int lda, T* tau) {
  int info = 0, lwork = -1;
  T work_size = 0;
  auto call = [&](T* work) {
    if constexpr (std::is_same_v<T, float>) {
      openblas().sgeqrf(&m, &n, a, &lda, tau, work, &lwork, &info);
    } else {
      openblas().dgeqrf(&m, &n, a, &lda, tau, work, &lwork, &info);
    }
  };
  call(&work_size);  // the workspace query
  lwork = std::max(1, static_cast<int>(work_size));
  std::vector<T> work(static_cast<size_t>(lwork));
  call(work.data());
}

// orgqr: the first n columns of H_1 ... H_k (the k reflectors in a's first k columns and tau)
// over the column-major m x n matrix a (leading dimension m).
template <class T>
void orgqr(int m, int n, int k, T* a, const T* tau) {
  int info = 0, lwork = -1;
  const int lda = std::max(1, m);
  T work_size = 0;
  auto call = [&](T* work) {
    if constexpr (std::is_same_v<T, float>) {
      openblas().sorgqr(&m, &n, &k, a, &lda, tau, work, &lwork, &info);
    } else {
      openblas().dorgqr(&m, &n, &k, a, &lda, tau, work, &lwork, &info);
    }
  };
  call(&work_size);
  lwork = std::max(1, static_cast<int>(work_size));
  std::vector<T> work(static_cast<size_t>(lwork));
  call(work.data());
}

// R's rows [0, rows) from the column-major compact form qr (m x n, leading dimension m) into the
// dense row-major `r` (rows x n): the upper triangle, zeros below it.
template <class T>
void upper_rows(T* r, const T* qr, int64_t m, int64_t n, int64_t rows) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < n; ++j) r[i * n + j] = j >= i ? qr[j * m + i] : T(0);
  }
}

}  // namespace

std::tuple<Tensor, Tensor> _lapack_geqrf(const Tensor& self, bool complete, bool compute_q) {
  const std::vector<Shape> shapes = compute_shape__lapack_geqrf(self.shape(), complete, compute_q);
  Tensor Q = make_cpu_tensor(shapes[0].sizes, shapes[0].dtype);
  Tensor R = make_cpu_tensor(shapes[1].sizes, shapes[1].dtype);
  const int64_t b = self.size(0), m = self.size(1), n = self.size(2), k = std::min(m, n);
  const int64_t q_cols = complete ? m : k, r_rows = complete ? m : k;
  const int mi = lapack_int(m, "_lapack_geqrf"), ni = lapack_int(n, "_lapack_geqrf");
  const Tensor a = self.contiguous();
  dispatch_lapack("_lapack_geqrf", self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for_each_matrix(b, [&](int64_t i) {
      // m x max(n, q_cols) column-major: the compact form, then Q's columns over it.
      std::vector<T> work(static_cast<size_t>(m * std::max(n, q_cols)));
      std::vector<T> tau(static_cast<size_t>(std::max<int64_t>(k, 1)));
      to_column_major(work.data(), a.data_ptr<T>() + i * m * n, m, n);
      if (k > 0) geqrf(mi, ni, work.data(), std::max(1, mi), tau.data());
      upper_rows(R.data_ptr<T>() + i * r_rows * n, work.data(), m, n, r_rows);
      if (!compute_q || q_cols == 0) return;
      orgqr(mi, static_cast<int>(q_cols), static_cast<int>(k), work.data(), tau.data());
      from_column_major(Q.data_ptr<T>() + i * m * q_cols, work.data(), m, q_cols, m);
    });
  });
  return {Q, R};
}

}  // namespace lazygen::cpu
