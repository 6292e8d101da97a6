// Adapters for PyTorch's linear-algebra kernels that lazygen serves as composites over its LAPACK
// ops or unrolled (ops.yaml, "PyTorch adapters"; lazygen/composite.h, Note [LAPACK or unrolled]):
// solves (_linalg_solve_ex, linalg_solve_triangular, triangular_solve), factorizations
// (linalg_lu_factor_ex, lu_unpack, linalg_lu, linalg_cholesky_ex, cholesky, linalg_qr), Cholesky
// solves and inverses (_cholesky_solve_helper, cholesky_inverse), the symmetric eigenproblem and
// the SVD (_linalg_eigh, _linalg_svd: LAPACK only, so PyTorch's cpu kernel where the lazy
// backend does not run on the cpu), least squares (linalg_lstsq, likewise), the matrix
// exponential (linalg_matrix_exp), and _trilinear (F.bilinear's product). PyTorch's autograd
// differentiates them with its own formulas, over ops the device serves. check_errors reads info
// (a sync) and raises PyTorch's own error for it.
#include <ATen/ops/_linalg_check_errors.h>
#include <ATen/ops/linalg_pinv_native.h>
#include <c10/util/Exception.h>

#include <optional>
#include <string_view>
#include <tuple>

#include "lazygen/composite.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/transpose.h"
#include "lazygen/generated/torch_adapters.h"
#include "lazygen/lazy.h"
#include "pytorch/call.h"
#include "pytorch/fallback.h"

namespace lazygen::pytorch::adapters {
namespace {

// PyTorch's checkFloatingOrComplex, with its dtype names ("Long"), before lazygen's check would
// name lazygen's ("int64").
void check_floating(const char* api, const at::Tensor& A) {
  TORCH_CHECK(at::isFloatingType(A.scalar_type()) || at::isComplexType(A.scalar_type()), api,
              ": Expected a floating point or complex tensor as input. Got ", A.scalar_type());
}

// Whether the device's LAPACK ops run: its lazy backend runs on the cpu (Note [LAPACK or
// unrolled]).
bool lapack_on_device() {
  return lazy_backend() == "cpu";
}

// Whether the device factors A: square, or rectangular where the LAPACK ops run (the unrolled LU
// takes square matrices only).
bool factors_on_device(const at::Tensor& A) {
  return A.dim() >= 2 &&
         (A.size(-1) == A.size(-2) || (lapack_on_device() && lazygen::lapack_enabled()));
}

}  // namespace

::std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> _linalg_solve_ex(const at::Tensor& A,
                                                                              const at::Tensor& B,
                                                                              bool left,
                                                                              bool check_errors) {
  Call c("_linalg_solve_ex", {&A, &B});
  auto result = c.result(lazygen::linalg_solve_ex(c.arg(A), c.arg(B), left));
  if (check_errors) {
    at::_linalg_check_errors(std::get<3>(result), "torch.linalg.solve_ex", A.dim() == 2);
  }
  return result;
}

// LU without pivoting (which PyTorch's CPU kernel refuses), and rectangular matrices the device
// does not factor, run on the CPU.
::std::tuple<at::Tensor, at::Tensor, at::Tensor> linalg_lu_factor_ex(const at::Tensor& A,
                                                                     bool pivot,
                                                                     bool check_errors) {
  if (!pivot || !factors_on_device(A)) {
    static const c10::OperatorHandle op = aten_op("aten::linalg_lu_factor_ex");
    return call_on_cpu<std::tuple<at::Tensor, at::Tensor, at::Tensor>>(op, A, pivot, check_errors);
  }
  Call c("linalg_lu_factor_ex", {&A});
  auto result = c.result(lazygen::lu_factor_ex(c.arg(A)));
  if (check_errors) {
    at::_linalg_check_errors(std::get<2>(result), "torch.linalg.lu_factor_ex", A.dim() == 2);
  }
  return result;
}

::std::tuple<at::Tensor, at::Tensor, at::Tensor> lu_unpack(const at::Tensor& LU_data,
                                                           const at::Tensor& LU_pivots,
                                                           bool unpack_data, bool unpack_pivots) {
  Call c("lu_unpack", {&LU_data, &LU_pivots});
  return c.result(lazygen::lu_unpack(c.arg(LU_data), c.arg(LU_pivots), unpack_data, unpack_pivots));
}

::std::tuple<at::Tensor, at::Tensor, at::Tensor> linalg_lu(const at::Tensor& A, bool pivot) {
  if (!pivot || !factors_on_device(A)) {
    static const c10::OperatorHandle op = aten_op("aten::linalg_lu");
    return call_on_cpu<std::tuple<at::Tensor, at::Tensor, at::Tensor>>(op, A, pivot);
  }
  Call c("linalg_lu", {&A});
  const auto [lu, pivots] = lazygen::lu_factor(c.arg(A));
  return c.result(lazygen::lu_unpack(lu, pivots));
}

at::Tensor linalg_solve_triangular(const at::Tensor& self, const at::Tensor& B, bool upper,
                                   bool left, bool unitriangular) {
  Call c("linalg_solve_triangular", {&self, &B});
  return c.result(
      lazygen::linalg_solve_triangular(c.arg(self), c.arg(B), upper, left, unitriangular));
}

// The legacy form: A X = B (transpose: A^T X = B), and A broadcast to the batch as a copy.
::std::tuple<at::Tensor, at::Tensor> triangular_solve(const at::Tensor& self, const at::Tensor& A,
                                                      bool upper, bool transpose,
                                                      bool unitriangular) {
  Call c("triangular_solve", {&self, &A});
  const Tensor& a = c.arg(A);
  const Tensor coefficients = transpose ? lazygen::transpose(a, -2, -1) : a;
  const Tensor x = lazygen::linalg_solve_triangular(coefficients, c.arg(self), upper != transpose,
                                                    true, unitriangular);
  std::vector<int64_t> a_sizes(x.sizes().begin(), x.sizes().end() - 2);
  a_sizes.push_back(a.size(-2));
  a_sizes.push_back(a.size(-1));
  return {c.result(x), c.result(expand(a, a_sizes).clone())};
}

::std::tuple<at::Tensor, at::Tensor> linalg_cholesky_ex(const at::Tensor& self, bool upper,
                                                        bool check_errors) {
  Call c("linalg_cholesky_ex", {&self});
  auto result = c.result(lazygen::linalg_cholesky_ex(c.arg(self), upper));
  if (check_errors) {
    at::_linalg_check_errors(std::get<1>(result), "torch.linalg.cholesky_ex", self.dim() == 2);
  }
  return result;
}

// The deprecated torch.cholesky, with the warning PyTorch's kernel gives.
at::Tensor cholesky(const at::Tensor& self, bool upper) {
  TORCH_WARN_ONCE(
      "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
      "future PyTorch release.");
  Call c("cholesky", {&self});
  auto [L, info] = c.result(lazygen::linalg_cholesky_ex(c.arg(self), upper));
  at::_linalg_check_errors(info, "cholesky", self.dim() == 2);
  return L;
}

// torch.cholesky_solve broadcasts its arguments' batch dims, then calls this.
at::Tensor _cholesky_solve_helper(const at::Tensor& self, const at::Tensor& A, bool upper) {
  Call c("_cholesky_solve_helper", {&self, &A});
  return c.result(lazygen::cholesky_solve(c.arg(self), c.arg(A), upper));
}

at::Tensor cholesky_inverse(const at::Tensor& self, bool upper) {
  Call c("cholesky_inverse", {&self});
  return c.result(lazygen::cholesky_inverse(c.arg(self), upper));
}

::std::tuple<at::Tensor, at::Tensor> linalg_qr(const at::Tensor& A, c10::string_view mode) {
  Call c("linalg_qr", {&A});
  return c.result(lazygen::linalg_qr(c.arg(A), c.arg(mode)));
}

::std::tuple<at::Tensor, at::Tensor> _linalg_eigh(const at::Tensor& A, c10::string_view UPLO,
                                                  bool compute_v) {
  TORCH_CHECK(UPLO == "L" || UPLO == "U", "Expected UPLO argument to be 'L' or 'U', but got ",
              UPLO);
  check_floating("linalg.eigh", A);
  if (!lapack_on_device()) {
    static const c10::OperatorHandle op = aten_op("aten::_linalg_eigh");
    return call_on_cpu<std::tuple<at::Tensor, at::Tensor>>(op, A, UPLO, compute_v);
  }
  Call c("_linalg_eigh", {&A});
  auto [values, vectors, info] =
      c.result(lazygen::linalg_eigh_ex(c.arg(A), UPLO == "U", compute_v));
  at::_linalg_check_errors(info, "linalg.eigh", A.dim() == 2);
  return {values, vectors};
}

::std::tuple<at::Tensor, at::Tensor, at::Tensor> _linalg_svd(
    const at::Tensor& A, bool full_matrices, bool compute_uv,
    c10::optional<c10::string_view> driver) {
  TORCH_CHECK(!driver.has_value(),
              "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
              "cuSOLVER backend.");
  check_floating("linalg.svd", A);
  if (!lapack_on_device()) {
    static const c10::OperatorHandle op = aten_op("aten::_linalg_svd");
    return call_on_cpu<std::tuple<at::Tensor, at::Tensor, at::Tensor>>(op, A, full_matrices,
                                                                       compute_uv, driver);
  }
  Call c("_linalg_svd", {&A});
  auto [U, S, Vh, info] = c.result(lazygen::linalg_svd_ex(c.arg(A), full_matrices, compute_uv));
  at::_linalg_check_errors(info, "linalg.svd", A.dim() == 2);
  return {U, S, Vh};
}

// PyTorch's errors in its order: the dims (lazygen's checks, with PyTorch's messages), then the
// dtypes (here, in PyTorch's dtype names), then the rest; a rank-deficient matrix under gels,
// and an SVD that did not converge, from LAPACK's info (a sync).
::std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> linalg_lstsq(
    const at::Tensor& self, const at::Tensor& b, c10::optional<double> rcond,
    c10::optional<c10::string_view> driver) {
  if (self.dim() >= 2 && b.dim() >= 1) {
    TORCH_CHECK(self.scalar_type() == b.scalar_type(),
                "torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                "input's dtype ",
                self.scalar_type(), " and other's dtype ", b.scalar_type());
    TORCH_CHECK(at::isFloatingType(self.scalar_type()),
                "This function doesn't handle types other than float and double");
  }
  if (!lapack_on_device()) {
    static const c10::OperatorHandle op = aten_op("aten::linalg_lstsq");
    return call_on_cpu<std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor>>(op, self, b,
                                                                                   rcond, driver);
  }
  Call c("linalg_lstsq", {&self, &b});
  const std::optional<double> tolerance =
      rcond.has_value() ? std::optional<double>(*rcond) : std::nullopt;
  const std::optional<std::string_view> name =
      driver.has_value()
          ? std::optional<std::string_view>(std::string_view(driver->data(), driver->size()))
          : std::nullopt;
  auto [X, residuals, rank, S, info] =
      c.result(lazygen::linalg_lstsq_ex(c.arg(self), c.arg(b), tolerance, name));
  at::_linalg_check_errors(info, "torch.linalg.lstsq", self.dim() == 2);
  return {X, residuals, rank, S};
}

at::Tensor linalg_matrix_exp(const at::Tensor& self) {
  check_floating("matrix_exp", self);
  Call c("linalg_matrix_exp", {&self});
  return c.result(lazygen::linalg_matrix_exp(c.arg(self)));
}

// PyTorch's own kernel (See ops.yaml): its at:: calls reach the device's ops.
at::Tensor linalg_pinv_atol_rtol_tensor(const at::Tensor& self,
                                        const c10::optional<at::Tensor>& atol,
                                        const c10::optional<at::Tensor>& rtol, bool hermitian) {
  return at::native::linalg_pinv(self, atol, rtol, hermitian);
}

// unroll_dim only chooses how PyTorch's kernel loops; the product is the same.
at::Tensor _trilinear(const at::Tensor& i1, const at::Tensor& i2, const at::Tensor& i3,
                      at::IntArrayRef expand1, at::IntArrayRef expand2, at::IntArrayRef expand3,
                      at::IntArrayRef sumdim, int64_t unroll_dim) {
  (void)unroll_dim;
  Call c("_trilinear", {&i1, &i2, &i3});
  return c.result(lazygen::trilinear(c.arg(i1), c.arg(i2), c.arg(i3), c.arg(expand1),
                                     c.arg(expand2), c.arg(expand3), c.arg(sumdim)));
}

}  // namespace lazygen::pytorch::adapters
