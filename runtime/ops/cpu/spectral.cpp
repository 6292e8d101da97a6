// _lapack_syevd and _lapack_gesdd (custom_kernels.h): OpenBLAS's LAPACK, one call per matrix of
// the batch, matrices split over the cpu thread pool as in lapack.cpp. Each matrix goes to LAPACK
// as a column-major copy, as PyTorch's cpu kernels hand it over, with the workspace LAPACK asks
// for, so the eigenvectors' and singular vectors' signs are LAPACK's (PyTorch's on the same
// OpenBLAS).
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

// syevd on the column-major n x n matrix a (overwritten by the eigenvectors when jobz is 'V'),
// eigenvalues into w.
template <class T>
int syevd(char jobz, char uplo, int n, T* a, T* w) {
  int info = 0, lwork = -1, liwork = -1, iwork_size = 0;
  T work_size = 0;
  auto call = [&](T* work, int* iwork) {
    if constexpr (std::is_same_v<T, float>) {
      openblas().ssyevd(&jobz, &uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, &info, 1, 1);
    } else {
      openblas().dsyevd(&jobz, &uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, &info, 1, 1);
    }
  };
  call(&work_size, &iwork_size);  // the workspace query
  lwork = std::max(1, static_cast<int>(work_size));
  liwork = std::max(1, iwork_size);
  std::vector<T> work(static_cast<size_t>(lwork));
  std::vector<int> iwork(static_cast<size_t>(liwork));
  call(work.data(), iwork.data());
  return info;
}

// gesdd on the column-major m x n matrix a (destroyed): s, and u (m x ucols) and vt (vrows x n)
// when jobz is not 'N'.
template <class T>
int gesdd(char jobz, int m, int n, T* a, T* s, T* u, int ldu, T* vt, int ldvt) {
  int info = 0, lwork = -1;
  const int lda = std::max(1, m);
  std::vector<int> iwork(static_cast<size_t>(8 * std::min(m, n)));
  T work_size = 0;
  auto call = [&](T* work) {
    if constexpr (std::is_same_v<T, float>) {
      openblas().sgesdd(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork.data(),
                        &info, 1);
    } else {
      openblas().dgesdd(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork.data(),
                        &info, 1);
    }
  };
  call(&work_size);  // the workspace query
  lwork = std::max(1, static_cast<int>(work_size));
  std::vector<T> work(static_cast<size_t>(lwork));
  call(work.data());
  return info;
}

template <class T>
void set_identity(T* out, int64_t n) {
  std::fill(out, out + n * n, T(0));
  for (int64_t i = 0; i < n; ++i) out[i * n + i] = T(1);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> _lapack_syevd(const Tensor& self, bool upper, bool compute_v) {
  const std::vector<Shape> shapes = compute_shape__lapack_syevd(self.shape(), upper, compute_v);
  Tensor values = make_cpu_tensor(shapes[0].sizes, shapes[0].dtype);
  Tensor vectors = make_cpu_tensor(shapes[1].sizes, shapes[1].dtype);
  Tensor info = make_cpu_tensor(shapes[2].sizes, DType::Int32);
  const int64_t b = self.size(0), n = self.size(1);
  const int ni = lapack_int(n, "_lapack_syevd");
  const Tensor a = self.contiguous();
  dispatch_lapack("_lapack_syevd", self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for_each_matrix(b, [&](int64_t i) {
      int* status = info.data_ptr<int32_t>() + i;
      *status = 0;
      if (n == 0) return;
      std::vector<T> work(static_cast<size_t>(n * n));
      to_column_major(work.data(), a.data_ptr<T>() + i * n * n, n, n);
      *status = syevd(compute_v ? 'V' : 'N', upper ? 'U' : 'L', ni, work.data(),
                      values.data_ptr<T>() + i * n);
      if (compute_v) from_column_major(vectors.data_ptr<T>() + i * n * n, work.data(), n, n, n);
    });
  });
  return {values, vectors, info};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> _lapack_gesdd(const Tensor& self, bool full_matrices,
                                                         bool compute_uv) {
  const std::vector<Shape> shapes =
      compute_shape__lapack_gesdd(self.shape(), full_matrices, compute_uv);
  Tensor U = make_cpu_tensor(shapes[0].sizes, shapes[0].dtype);
  Tensor S = make_cpu_tensor(shapes[1].sizes, shapes[1].dtype);
  Tensor Vh = make_cpu_tensor(shapes[2].sizes, shapes[2].dtype);
  Tensor info = make_cpu_tensor(shapes[3].sizes, DType::Int32);
  const int64_t b = self.size(0), m = self.size(1), n = self.size(2), k = std::min(m, n);
  const int64_t ucols = full_matrices ? m : k, vrows = full_matrices ? n : k;
  const int mi = lapack_int(m, "_lapack_gesdd"), ni = lapack_int(n, "_lapack_gesdd");
  const char jobz = compute_uv ? (full_matrices ? 'A' : 'S') : 'N';
  const Tensor a = self.contiguous();
  dispatch_lapack("_lapack_gesdd", self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for_each_matrix(b, [&](int64_t i) {
      int* status = info.data_ptr<int32_t>() + i;
      *status = 0;
      T* ui = compute_uv ? U.data_ptr<T>() + i * m * ucols : nullptr;
      T* vi = compute_uv ? Vh.data_ptr<T>() + i * vrows * n : nullptr;
      if (k == 0) {  // no singular values; LAPACK would leave U and Vh unset
        if (compute_uv && full_matrices) {
          set_identity(ui, m);
          set_identity(vi, n);
        }
        return;
      }
      std::vector<T> work(static_cast<size_t>(m * n));
      to_column_major(work.data(), a.data_ptr<T>() + i * m * n, m, n);
      std::vector<T> u(compute_uv ? static_cast<size_t>(m * ucols) : 1);
      std::vector<T> vt(compute_uv ? static_cast<size_t>(vrows * n) : 1);
      *status = gesdd(jobz, mi, ni, work.data(), S.data_ptr<T>() + i * k, u.data(), mi, vt.data(),
                      compute_uv ? static_cast<int>(vrows) : 1);
      if (compute_uv) {
        from_column_major(ui, u.data(), m, ucols, m);
        from_column_major(vi, vt.data(), vrows, n, vrows);
      }
    });
  });
  return {U, S, Vh, info};
}

}  // namespace lazygen::cpu
