// The eager CUDA matrix products: mm, addmm and bmm through cuBLAS (eager_kernels.h).
//
// cuBLAS is column-major and lazygen row-major: a row-major matrix is its transpose seen
// column-major, so C = A B is computed as C^T = B^T A^T, with no copies. An operand that is itself
// a transposed view (column-major) is passed with CUBLAS_OP_T; other layouts are made contiguous
// first. mm is a batch of one; bmm is cublas<t>gemmStridedBatched over the batch stride (0 for a
// broadcast batch). float32 (FP32 math, no TF32) and float64 only. gemm_batched (blas.h) is the
// same call for callers that lay their matrices out themselves (the convolutions).
#include "backend/cuda/eager/blas.h"

#include <cublas_v2.h>

#include <algorithm>
#include <climits>
#include <mutex>
#include <string>
#include <vector>

#include "backend/cuda/eager/eager_kernels.h"
#include "backend/cuda/memory/cuda_memory.h"
#include "core/dispatch.h"
#include "lazygen/generated/shapes/addmm.h"
#include "lazygen/generated/shapes/bmm.h"
#include "lazygen/generated/shapes/mm.h"

namespace lazygen::cuda {
namespace {

void check_blas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(what) + ": " + cublasGetStatusString(status));
  }
}

// One cuBLAS handle per device, created on first use and never destroyed (handles must not be
// destroyed after the CUDA runtime has unloaded).
cublasHandle_t handle(int device) {
  static std::mutex mutex;
  static std::vector<cublasHandle_t> handles;
  std::lock_guard<std::mutex> lock(mutex);
  if (handles.size() <= static_cast<size_t>(device)) handles.resize(device + 1, nullptr);
  if (handles[device] == nullptr) {
    DeviceGuard guard(device);
    check_blas(cublasCreate(&handles[device]), "cublasCreate");
  }
  check_blas(cublasSetStream(handles[device], current_stream()), "cublasSetStream");
  return handles[device];
}

// How cuBLAS reads one (batched) matrix operand of logical sizes r x c.
struct Operand {
  Tensor t;  // the tensor read (maybe a contiguous copy)
  cublasOperation_t op = CUBLAS_OP_N;
  int64_t ld = 0;
  int64_t batch_stride = 0;
};

// Dims -2 and -1 of `t` as row-major (op N on the transpose cuBLAS sees) or column-major (op T).
Operand operand(const Tensor& t) {
  const int64_t n = t.dim();
  const int64_t r = t.size(n - 2), c = t.size(n - 1), s0 = t.stride(n - 2), s1 = t.stride(n - 1);
  const int64_t batch = n == 3 ? t.stride(0) : 0;
  if ((c <= 1 || s1 == 1) && (r <= 1 || s0 >= c)) {
    return {t, CUBLAS_OP_N, r <= 1 ? std::max<int64_t>(c, 1) : s0, batch};
  }
  if ((r <= 1 || s0 == 1) && (c <= 1 || s1 >= r)) {
    return {t, CUBLAS_OP_T, c <= 1 ? std::max<int64_t>(r, 1) : s1, batch};
  }
  const Tensor dense = t.contiguous();
  return {dense, CUBLAS_OP_N, std::max<int64_t>(c, 1), n == 3 ? dense.stride(0) : 0};
}

int to_int(const char* op, int64_t v) {
  if (v > INT_MAX) throw ShapeError(op, "a matrix dimension exceeds what cuBLAS takes (int)");
  return static_cast<int>(v);
}

// out[b] = alpha * a[b] @ b[b] for out of sizes [batch,] n x m (contiguous, fresh).
void gemm(const char* op, const Tensor& a, const Tensor& b, const Tensor& out, double alpha) {
  const int64_t nd = out.dim();
  const int64_t n = out.size(nd - 2), m = out.size(nd - 1), k = a.size(a.dim() - 1);
  const int64_t batch = nd == 3 ? out.size(0) : 1;
  if (out.numel() == 0) return;
  if (a.dtype() != b.dtype() || (a.dtype() != DType::Float32 && a.dtype() != DType::Float64)) {
    throw ShapeError(op, "CUDA matrix products take two float32 or float64 tensors, got " +
                             std::string(dtype_name(a.dtype())) + " and " +
                             std::string(dtype_name(b.dtype())));
  }
  const Operand A = operand(a), B = operand(b);
  const int M = to_int(op, m), N = to_int(op, n), K = to_int(op, k), nb = to_int(op, batch);
  cublasHandle_t h = handle(out.device().index);
  DeviceGuard guard(out.device().index);
  if (out.dtype() == DType::Float32) {
    const float al = static_cast<float>(alpha), be = 0.0f;
    check_blas(cublasSgemmStridedBatched(h, B.op, A.op, M, N, K, &al, B.t.data_ptr<float>(),
                                         to_int(op, B.ld), B.batch_stride, A.t.data_ptr<float>(),
                                         to_int(op, A.ld), A.batch_stride, &be,
                                         out.data_ptr<float>(), M, m * n, nb),
               "cublasSgemmStridedBatched");
  } else {
    const double be = 0.0;
    check_blas(cublasDgemmStridedBatched(h, B.op, A.op, M, N, K, &alpha, B.t.data_ptr<double>(),
                                         to_int(op, B.ld), B.batch_stride, A.t.data_ptr<double>(),
                                         to_int(op, A.ld), A.batch_stride, &be,
                                         out.data_ptr<double>(), M, m * n, nb),
               "cublasDgemmStridedBatched");
  }
}

Tensor mm(const Tensor& self, const Tensor& mat2) {
  const Shape shape = compute_shape_mm(self.shape(), mat2.shape())[0];
  Tensor out = empty_device(shape.sizes, shape.dtype, self.device());
  gemm("mm", self, mat2, out, 1.0);
  return out;
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  const Shape shape = compute_shape_bmm(self.shape(), mat2.shape())[0];
  Tensor out = empty_device(shape.sizes, shape.dtype, self.device());
  gemm("bmm", self, mat2, out, 1.0);
  return out;
}

// beta * self + alpha * (mat1 @ mat2): the product scaled by alpha in the gemm, then one
// pointwise add (self broadcasts); beta == 0 ignores self, as PyTorch does.
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha) {
  const Shape shape = compute_shape_addmm(self.shape(), mat1.shape(), mat2.shape(), beta, alpha)[0];
  Tensor product = empty_device(shape.sizes, shape.dtype, self.device());
  gemm("addmm", mat1, mat2, product, alpha.to<double>());
  if (beta.to<double>() == 0.0) return product;
  // The CUDA add kernel itself: the op API would record autograd history a second time.
  using Add = Tensor(const Tensor&, const Tensor&, const Scalar&);
  return detail::device_kernel<Add>(DeviceType::CUDA, "add.Tensor")(product, self, beta);
}

}  // namespace

void gemm_batched(const char* op, const BatchedGemm& g, DType dtype, const void* a, const void* b,
                  void* c, double alpha, double beta, int device) {
  if (g.m == 0 || g.n == 0 || g.batch == 0) return;
  // Row-major C = A B is column-major C^T = B^T A^T: B first, and a row-major transpose is op T.
  const cublasOperation_t op_a = g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int m = to_int(op, g.n), n = to_int(op, g.m), k = to_int(op, g.k);
  const int lda = to_int(op, g.lda), ldb = to_int(op, g.ldb), ldc = to_int(op, g.ldc);
  const int batch = to_int(op, g.batch);
  cublasHandle_t h = handle(device);
  DeviceGuard guard(device);
  if (dtype == DType::Float32) {
    const float al = static_cast<float>(alpha), be = static_cast<float>(beta);
    check_blas(
        cublasSgemmStridedBatched(h, op_b, op_a, m, n, k, &al, static_cast<const float*>(b), ldb,
                                  g.stride_b, static_cast<const float*>(a), lda, g.stride_a, &be,
                                  static_cast<float*>(c), ldc, g.stride_c, batch),
        "cublasSgemmStridedBatched");
    return;
  }
  check_blas(
      cublasDgemmStridedBatched(h, op_b, op_a, m, n, k, &alpha, static_cast<const double*>(b), ldb,
                                g.stride_b, static_cast<const double*>(a), lda, g.stride_a, &beta,
                                static_cast<double*>(c), ldc, g.stride_c, batch),
      "cublasDgemmStridedBatched");
}

void register_blas_kernels() {
  detail::register_device_kernel(DeviceType::CUDA, "mm", &mm);
  detail::register_device_kernel(DeviceType::CUDA, "bmm", &bmm);
  detail::register_device_kernel(DeviceType::CUDA, "addmm", &addmm);
}

}  // namespace lazygen::cuda
