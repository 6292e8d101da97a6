// What the LAPACK kernels share (lapack.cpp, spectral.cpp): LAPACK's int, the float dispatch,
// a batch of matrices over the cpu thread pool, and the transposed copies that turn a row-major
// matrix into the column-major one LAPACK reads.
#pragma once

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/thread_pool.h"
#include "lazygen/dtype.h"
#include "lazygen/shape.h"
#include "ops/cpu/blas_gemm.h"

namespace lazygen::cpu {

// n as LAPACK's int; ShapeError naming `op` when it does not fit.
inline int lapack_int(int64_t n, const char* op) {
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

// The dense row-major rows x cols matrix `src` as a column-major one (leading dimension rows)
// in `dst`.
template <class T>
void to_column_major(T* dst, const T* src, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) dst[c * rows + r] = src[r * cols + c];
  }
}

// The column-major rows x cols matrix `src` of leading dimension ld as a dense row-major one in
// `dst`.
template <class T>
void from_column_major(T* dst, const T* src, int64_t rows, int64_t cols, int64_t ld) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) dst[r * cols + c] = src[c * ld + r];
  }
}

}  // namespace lazygen::cpu
