// _lapack_gels (custom_kernels.h): OpenBLAS's least-squares drivers gels, gelsy, gelsd and
// gelss on each matrix of the batch, split over the cpu thread pool as in lapack.cpp, each handed
// to LAPACK as column-major copies with the workspace LAPACK asks for, as PyTorch's cpu
// linalg_lstsq does (so solutions, ranks and singular values are PyTorch's on the same OpenBLAS).
#include <algorithm>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/tensor/tensor_impl.h"
#include "ops/cpu/custom_kernels.h"
#include "ops/cpu/lapack_parts.h"
#include "ops/cpu/openblas.h"
#include "ops/shape/custom_shapes.h"

namespace lazygen::cpu {
namespace {

enum class Driver { Gels, Gelsy, Gelsd, Gelss };

Driver driver_of(std::string_view name) {
  if (name == "gels") return Driver::Gels;
  if (name == "gelsy") return Driver::Gelsy;
  return name == "gelsd" ? Driver::Gelsd : Driver::Gelss;  // the shape function checked it
}

// One least-squares problem in LAPACK's column-major form: a (m x n, leading dimension lda), b
// (ldb x nrhs, ldb >= max(m, n)), the singular values s (min(m, n); gelsd, gelss) and the rank.
template <class T>
struct Problem {
  int m, n, nrhs, lda, ldb;
  T* a;
  T* b;
  T* s;
  T rcond;
  int rank = 0;
  int info = 0;
};

// The float or the double entry point of a LAPACK routine.
template <class T, class F, class D>
auto pick(F single, D dual) {
  if constexpr (std::is_same_v<T, float>) {
    return single;
  } else {
    return dual;
  }
}

// The driver on `p`, after a workspace query. The calls differ only in their arguments.
template <class T>
void solve(Driver driver, Problem<T>& p) {
  const OpenBlas& blas = openblas();
  std::vector<int> jpvt(driver == Driver::Gelsy ? static_cast<size_t>(p.n) : 0, 0);
  std::vector<int> iwork(1);
  int lwork = -1;
  auto call = [&](T* work) {
    switch (driver) {
      case Driver::Gels: {
        const char trans = 'N';
        pick<T>(blas.sgels, blas.dgels)(&trans, &p.m, &p.n, &p.nrhs, p.a, &p.lda, p.b, &p.ldb, work,
                                        &lwork, &p.info, 1);
        return;
      }
      case Driver::Gelsy:
        pick<T>(blas.sgelsy, blas.dgelsy)(&p.m, &p.n, &p.nrhs, p.a, &p.lda, p.b, &p.ldb,
                                          jpvt.data(), &p.rcond, &p.rank, work, &lwork, &p.info);
        return;
      case Driver::Gelsd:
        pick<T>(blas.sgelsd, blas.dgelsd)(&p.m, &p.n, &p.nrhs, p.a, &p.lda, p.b, &p.ldb, p.s,
                                          &p.rcond, &p.rank, work, &lwork, iwork.data(), &p.info);
        return;
      case Driver::Gelss:
        pick<T>(blas.sgelss, blas.dgelss)(&p.m, &p.n, &p.nrhs, p.a, &p.lda, p.b, &p.ldb, p.s,
                                          &p.rcond, &p.rank, work, &lwork, &p.info);
        return;
    }
  };
  T work_size = 0;
  call(&work_size);  // the workspace query (gelsd also sizes iwork in iwork[0])
  lwork = std::max(1, static_cast<int>(work_size));
  iwork.resize(static_cast<size_t>(std::max(1, iwork[0])));
  std::vector<T> work(static_cast<size_t>(lwork));
  call(work.data());
}

}  // namespace

// A right-hand side without columns (k == 0) is solved as one zero column, so that rank and
// singular values are A's (LAPACK's drivers return early without columns); matrices without
// elements solve to zeros, of rank 0.
std::tuple<Tensor, Tensor, Tensor, Tensor> _lapack_gels(const Tensor& self, const Tensor& B,
                                                        std::string_view driver,
                                                        std::optional<double> rcond) {
  const std::vector<Shape> shapes =
      compute_shape__lapack_gels(self.shape(), B.shape(), driver, rcond);
  Tensor X = make_cpu_tensor(shapes[0].sizes, shapes[0].dtype);
  Tensor rank = make_cpu_tensor(shapes[1].sizes, shapes[1].dtype);
  Tensor S = make_cpu_tensor(shapes[2].sizes, shapes[2].dtype);
  Tensor info = make_cpu_tensor(shapes[3].sizes, shapes[3].dtype);
  const Driver which = driver_of(driver);
  const int64_t b = self.size(0), m = self.size(1), n = self.size(2), k = B.size(2);
  const int64_t rows = std::max(m, n), nrhs = std::max<int64_t>(k, 1), kmin = std::min(m, n);
  const int mi = lapack_int(m, "_lapack_gels"), ni = lapack_int(n, "_lapack_gels");
  const int ld = std::max(1, lapack_int(rows, "_lapack_gels"));
  const Tensor a = self.contiguous(), rhs = B.contiguous();
  dispatch_lapack("_lapack_gels", self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T tolerance = rcond.has_value()
                            ? static_cast<T>(*rcond)
                            : std::numeric_limits<T>::epsilon() * static_cast<T>(rows);
    for_each_matrix(b, [&](int64_t i) {
      std::vector<T> a_cm(static_cast<size_t>(m * n));
      std::vector<T> b_cm(static_cast<size_t>(ld * nrhs), T(0));
      to_column_major(a_cm.data(), a.data_ptr<T>() + i * m * n, m, n);
      const T* b_src = rhs.data_ptr<T>() + i * m * k;
      for (int64_t c = 0; c < k; ++c) {
        for (int64_t r = 0; r < m; ++r) b_cm[c * ld + r] = b_src[r * k + c];
      }
      std::vector<T> s(static_cast<size_t>(std::max<int64_t>(kmin, 1)));
      Problem<T> p{
          mi,       ni,       static_cast<int>(nrhs), std::max(1, mi), ld, a_cm.data(), b_cm.data(),
          s.data(), tolerance};
      if (kmin > 0) solve(which, p);
      from_column_major(X.data_ptr<T>() + i * rows * k, b_cm.data(), rows, k, ld);
      if (rank.numel() > 0) rank.data_ptr<int64_t>()[i] = p.rank;
      if (S.numel() > 0) std::copy_n(s.data(), kmin, S.data_ptr<T>() + i * kmin);
      info.data_ptr<int32_t>()[i] = p.info;
    });
  });
  return {X, rank, S, info};
}

}  // namespace lazygen::cpu
