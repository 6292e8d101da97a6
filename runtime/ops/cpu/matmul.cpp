// mm, addmm and bmm (custom_kernels.h).
//
// float32/float64 go to OpenBLAS's row-major gemm. An operand is passed in place when its
// strides describe a row-major matrix (NoTrans) or a transposed one (Trans, as for x.t()), with
// a leading dimension BLAS accepts; anything else is copied contiguous first. Other dtypes use a
// plain i-k-j loop (accumulating in the dtype itself, int64 for bool), as PyTorch does.
#include <limits>
#include <optional>

#include "core/tensor/strided_loop.h"
#include "core/tensor/tensor_impl.h"
#include "core/thread_pool.h"
#include "ops/cpu/blas_gemm.h"
#include "ops/cpu/custom_kernels.h"
#include "ops/shape/custom_shapes.h"

namespace lazygen::cpu {
namespace {

struct BlasMatrix {
  const void* data;
  bool trans;
  int64_t ld;
};

// How BLAS can read the 2-D [rows, cols] matrix m in place, if it can.
std::optional<BlasMatrix> blas_view(const Tensor& m) {
  const int64_t rows = m.size(0), cols = m.size(1), s0 = m.stride(0), s1 = m.stride(1);
  if ((cols == 1 || s1 == 1) && (rows == 1 || s0 >= std::max<int64_t>(1, cols))) {
    return BlasMatrix{m.raw_data(), false, rows == 1 ? std::max<int64_t>(1, cols) : s0};
  }
  if ((rows == 1 || s0 == 1) && (cols == 1 || s1 >= std::max<int64_t>(1, rows))) {
    return BlasMatrix{m.raw_data(), true, cols == 1 ? std::max<int64_t>(1, rows) : s1};
  }
  return std::nullopt;
}

// c = alpha * a @ b + beta * c for 2-D a [m, k], b [k, n] and contiguous c [m, n] (BLAS dtypes).
template <class T>
void blas_product(const Tensor& c, const Tensor& a, const Tensor& b, T alpha, T beta) {
  Tensor a_in = a, b_in = b;
  auto va = blas_view(a_in), vb = blas_view(b_in);
  if (!va) va = blas_view(a_in = a.contiguous());
  if (!vb) vb = blas_view(b_in = b.contiguous());
  const Gemm g{va->trans, vb->trans, a.size(0), b.size(1), a.size(1),
               va->ld,     vb->ld,    std::max<int64_t>(1, c.size(1)), "mm"};
  gemm<T>(g, alpha, static_cast<const T*>(va->data), static_cast<const T*>(vb->data), beta,
          static_cast<T*>(c.raw_data()));
}

// The same for other dtypes, by loops over contiguous copies.
template <class T>
void loop_product(const Tensor& c, const Tensor& a, const Tensor& b, T alpha, T beta) {
  using Acc = std::conditional_t<std::is_same_v<T, bool>, int64_t, T>;
  const Tensor ac = a.contiguous(), bc = b.contiguous();
  const T* pa = ac.data_ptr<T>();
  const T* pb = bc.data_ptr<T>();
  T* pc = c.data_ptr<T>();
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  std::vector<Acc> row(static_cast<size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), Acc(0));
    for (int64_t p = 0; p < k; ++p) {
      const Acc x = pa[i * k + p];
      for (int64_t j = 0; j < n; ++j) row[j] += x * static_cast<Acc>(pb[p * n + j]);
    }
    for (int64_t j = 0; j < n; ++j) {
      const Acc prior = beta ? static_cast<Acc>(beta) * static_cast<Acc>(pc[i * n + j]) : Acc(0);
      pc[i * n + j] = static_cast<T>(static_cast<Acc>(alpha) * row[j] + prior);
    }
  }
}

// c = alpha * a @ b + beta * c; beta == 0 ignores c's contents (NaN included).
void product(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& alpha,
             const Scalar& beta) {
  if (c.numel() == 0) return;
  dispatch_dtype(c.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (a.size(1) == 0) {  // an empty sum: only beta * c remains
      T* pc = c.data_ptr<T>();
      for (int64_t i = 0; i < c.numel(); ++i)
        pc[i] = beta.to<T>() ? static_cast<T>(beta.to<T>() * pc[i]) : T(0);
    } else if constexpr (std::is_floating_point_v<T>) {
      blas_product<T>(c, a, b, alpha.to<T>(), beta.to<T>());
    } else {
      loop_product<T>(c, a, b, alpha.to<T>(), beta.to<T>());
    }
  });
}

}  // namespace

Tensor mm(const Tensor& self, const Tensor& mat2) {
  const Shape shape = compute_shape_mm(self.shape(), mat2.shape())[0];
  Tensor out = make_cpu_tensor(shape.sizes, shape.dtype);
  product(out, self, mat2, 1, 0);
  return out;
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha) {
  const Shape shape = compute_shape_addmm(self.shape(), mat1.shape(), mat2.shape(), beta, alpha)[0];
  Tensor out = make_cpu_tensor(shape.sizes, shape.dtype);
  const bool use_self = beta.to<double>() != 0;
  if (use_self) lazygen::detail::copy_into("addmm", out, self);
  product(out, mat1, mat2, alpha, use_self ? beta : Scalar(0));
  return out;
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  const Shape shape = compute_shape_bmm(self.shape(), mat2.shape())[0];
  Tensor out = make_cpu_tensor(shape.sizes, shape.dtype);
  const int64_t batch = shape.sizes[0], m = shape.sizes[1], n = shape.sizes[2], k = self.size(2);
  auto products = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      // Batch i of each operand as a 2-D view (no copy).
      const Tensor a = make_view(self, {m, k}, {self.stride(1), self.stride(2)},
                                 self.storage_offset() + i * self.stride(0));
      const Tensor b = make_view(mat2, {k, n}, {mat2.stride(1), mat2.stride(2)},
                                 mat2.storage_offset() + i * mat2.stride(0));
      const Tensor c = make_view(out, {m, n}, {n, 1}, i * m * n);
      product(c, a, b, 1, 0);
    }
  };
  // Attention's batches of small products ([32, 128, 32] @ [32, 32, 128]) ran at half the
  // speed with each product split over the pool in turn: a batch that shares out evenly goes
  // to the pool's threads instead, each product whole on its thread. The same BLAS call per
  // element either way (Note [One thread pool]), so the bits do not change.
  const int64_t threads = num_threads();
  if (threads > 1 && (batch % threads == 0 || batch >= 4 * threads)) {
    parallel_over_items(batch, products);
  } else {
    products(0, batch);
  }
  return out;
}

}  // namespace lazygen::cpu
