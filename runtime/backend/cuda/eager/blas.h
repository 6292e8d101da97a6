// The cuBLAS entry points the eager CUDA kernels share (blas.cpp): one handle per device and a
// row-major strided-batched gemm, used by the matrix products (blas.cpp) and the convolutions
// (conv_ops.cpp).
// Thread safety: all functions may be called concurrently; work queues on current_stream().
#pragma once

#include <cstdint>

#include "lazygen/dtype.h"

namespace lazygen::cuda {

// One row-major problem per batch entry b: C[b] = alpha * op(A[b]) @ op(B[b]) + beta * C[b],
// with op(A) of sizes m x k and op(B) k x n. A transposed operand is read as the transpose of a
// row-major matrix (`ld` is then its stored row length). `stride_*` is the element distance
// between batch entries (0: one matrix shared by every entry).
struct BatchedGemm {
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  int64_t batch = 1;
};

// Runs `g` on device memory of `dtype` (float32 with FP32 math, or float64) on `device`.
// Throws ShapeError naming `op` when a size exceeds cuBLAS's int, std::runtime_error with the
// cuBLAS status on failure. REQUIRES: every pointer is device memory on `device`.
void gemm_batched(const char* op, const BatchedGemm& g, DType dtype, const void* a, const void* b,
                  void* c, double alpha, double beta, int device);

}  // namespace lazygen::cuda
