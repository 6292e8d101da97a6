// conv2d, conv2d_backward_input and conv2d_backward_weight (training_kernels.h).
//
// Note [im2col convolution]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// Per sample and group, im2col copies the input windows into a [c/g * kh * kw, oh * ow] column
// matrix (zeros where a window hangs over the padding). Then
//   forward:         y_g  = w_g [o/g, rows] @ col [rows, cols]   (written straight into NCHW y)
//   weight gradient: dw_g += dy_g [o/g, cols] @ col^T             (summed over samples)
//   input gradient:  dcol = w_g^T @ dy_g, added back into dx by col2im
// A 1x1 kernel with unit stride and no padding needs no copy: the input planes already are the
// column matrix. Columns stay per sample (a few hundred KiB for the tutorial CNN), so a gemm
// reads them from cache. A per-sample gemm too small to be split (kBlasSingleThreadMnk, e.g. the
// tutorial CNN's conv1) would leave the other cores idle, so then our pool splits the samples,
// each thread with its own column matrix (and weight-gradient accumulator). Larger gemms run
// sample after sample, each split over the pool (See Note [One thread pool] in blas_gemm.h).
// 3x3 kernels with unit stride take Winograd instead where it applies (See Note [Winograd
// convolution] in winograd.h).
#include <algorithm>
#include <mutex>
#include <type_traits>

#include "core/tensor/tensor_impl.h"
#include "lazygen/conv.h"
#include "lazygen/metrics.h"
#include "ops/cpu/blas_gemm.h"
#include "ops/cpu/training_kernels.h"
#include "ops/cpu/winograd.h"
#include "ops/shape/training_shapes.h"

namespace lazygen::cpu {
namespace {

bool is_pointwise(const Conv2dGeometry& g) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
}

// Copies (Add = false) one column-matrix row out of, or adds it (Add = true) back into, the
// input plane for kernel tap (ki, kj).
template <bool Add, class T>
void transfer_row(T* plane, T* row, const Conv2dGeometry& g, int64_t ki, int64_t kj) {
  const int64_t x0 = kj * g.dw - g.pw;
  const auto [lo, hi] = tap_range(g.ow, g.w, g.sw, x0);
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    T* r = row + oy * g.ow;
    const int64_t iy = oy * g.sh - g.ph + ki * g.dh;
    const bool inside = iy >= 0 && iy < g.h;
    if constexpr (!Add) {
      if (!inside) {
        std::fill(r, r + g.ow, T(0));
        continue;
      }
      std::fill(r, r + lo, T(0));
      std::fill(r + hi, r + g.ow, T(0));
    }
    if (!inside) continue;
    T* in = plane + iy * g.w + x0;
    if (g.sw == 1) {  // contiguous: a copy, or an add that vectorizes
      if constexpr (Add) {
        for (int64_t ox = lo; ox < hi; ++ox) in[ox] += r[ox];
      } else {
        std::copy(in + lo, in + hi, r + lo);
      }
      continue;
    }
    for (int64_t ox = lo; ox < hi; ++ox) {
      if constexpr (Add) {
        in[ox * g.sw] += r[ox];
      } else {
        r[ox] = in[ox * g.sw];
      }
    }
  }
}

// im2col (Add = false) or col2im (Add = true) for one group's [c/g, h, w] input planes.
template <bool Add, class T>
void transfer(T* planes, T* col, const Conv2dGeometry& g) {
  const int64_t cols = g.col_cols();
  for (int64_t c = 0; c < g.in_per_group(); ++c) {
    for (int64_t ki = 0; ki < g.kh; ++ki) {
      for (int64_t kj = 0; kj < g.kw; ++kj) {
        T* row = col + ((c * g.kh + ki) * g.kw + kj) * cols;
        transfer_row<Add>(planes + c * g.h * g.w, row, g, ki, kj);
      }
    }
  }
}

// A scratch column matrix (from the caching allocator); none for 1x1 kernels.
Tensor column_buffer(const Conv2dGeometry& g, DType dtype) {
  return make_cpu_tensor({is_pointwise(g) ? 0 : g.col_rows() * g.col_cols()}, dtype);
}

// Whether this call runs Winograd; counts the choice (lazygen/conv.h).
bool use_winograd(const Conv2dGeometry& g) {
  static metrics::Counter& winograd = metrics::counter("conv.winograd");
  static metrics::Counter& im2col = metrics::counter("conv.im2col");
  const bool use = winograd_enabled() && winograd_applies(g);
  (use ? winograd : im2col).add();
  return use;
}

// Runs run(s0, s1) over sample ranges: split over our pool's threads when each per-sample gemm
// runs whole on one thread anyway, else one range. See Note [im2col convolution].
template <class F>
void over_sample_ranges(const Conv2dGeometry& g, const F& run) {
  if (g.out_per_group() * g.col_rows() * g.col_cols() <= kBlasSingleThreadMnk) {
    parallel_over_items(g.n, run);
  } else {
    run(0, g.n);
  }
}

// Runs fn(sample, col) for every sample, col a column matrix of the calling thread.
template <class T, class F>
void over_samples(const Conv2dGeometry& g, const F& fn) {
  over_sample_ranges(g, [&](int64_t s0, int64_t s1) {
    const Tensor col = column_buffer(g, dtype_of<T>());
    for (int64_t s = s0; s < s1; ++s) fn(s, col.data_ptr<T>());
  });
}

// C[m, n] = A[m, k] B[k, n], added to C when `accumulate`, for integer dtypes (BLAS has none):
// exact, wrapping on overflow as PyTorch's integer convolution does.
template <class T>
void integer_matmul(int64_t m, int64_t n, int64_t k, const T* a, const T* b, bool accumulate, T* c) {
  using U = std::make_unsigned_t<T>;
  for (int64_t i = 0; i < m; ++i) {
    U* row = reinterpret_cast<U*>(c + i * n);
    if (!accumulate) std::fill_n(row, n, U(0));
    for (int64_t p = 0; p < k; ++p) {
      const U coefficient = static_cast<U>(a[i * k + p]);
      const T* b_row = b + p * n;
      for (int64_t j = 0; j < n; ++j) row[j] += coefficient * static_cast<U>(b_row[j]);
    }
  }
}

template <class T>
void forward_sample(const T* x, const T* w, const T* bias, T* y, T* col, const Conv2dGeometry& g) {
  const int64_t rows = g.col_rows(), cols = g.col_cols(), opg = g.out_per_group();
  for (int64_t gi = 0; gi < g.groups; ++gi) {
    T* xg = const_cast<T*>(x) + gi * g.in_per_group() * g.h * g.w;
    const T* b = xg;
    if (!is_pointwise(g)) {
      transfer<false>(xg, col, g);
      b = col;
    }
    T* yg = y + gi * opg * cols;
    if (bias != nullptr) {
      for (int64_t oc = 0; oc < opg; ++oc) std::fill_n(yg + oc * cols, cols, bias[gi * opg + oc]);
    }
    if constexpr (std::is_floating_point_v<T>) {
      gemm(Gemm{false, false, opg, cols, rows}, w + gi * opg * rows, b, T(bias ? 1 : 0), yg);
    } else {
      integer_matmul(opg, cols, rows, w + gi * opg * rows, b, bias != nullptr, yg);
    }
  }
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
              const std::vector<int64_t>& dilation, int64_t groups) {
  const bool has_bias = bias && bias->defined();
  const std::optional<Shape> bias_shape = has_bias ? std::optional(bias->shape()) : std::nullopt;
  const Shape shape = compute_shape_conv2d(input.shape(), weight.shape(), bias_shape, stride,
                                           padding, dilation, groups)[0];
  const Conv2dGeometry g =
      conv2d_geometry("conv2d", input.sizes(), weight.sizes(), stride, padding, dilation, groups);
  Tensor out = make_cpu_tensor(shape.sizes, shape.dtype);
  const Tensor x = input.contiguous(), w = weight.contiguous();
  const Tensor b = has_bias ? bias->contiguous() : Tensor();
  const int64_t in_size = g.c * g.h * g.w, out_size = g.o * g.oh * g.ow;
  dispatch_dtype(shape.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {  // refused by the shape rule
      const T* bp = has_bias ? b.data_ptr<T>() : nullptr;
      if constexpr (std::is_floating_point_v<T>) {
        if (use_winograd(g)) {
          winograd_forward(x.data_ptr<T>(), w.data_ptr<T>(), bp, out.data_ptr<T>(), g);
          return;
        }
      }
      over_samples<T>(g, [&](int64_t s, T* col) {
        forward_sample(x.data_ptr<T>() + s * in_size, w.data_ptr<T>(), bp,
                       out.data_ptr<T>() + s * out_size, col, g);
      });
    }
  });
  return out;
}

namespace {

template <class T>
void backward_input_sample(const T* dy, const T* w, T* dx, T* col, const Conv2dGeometry& g) {
  const int64_t rows = g.col_rows(), cols = g.col_cols(), opg = g.out_per_group();
  std::fill_n(dx, g.c * g.h * g.w, T(0));
  for (int64_t gi = 0; gi < g.groups; ++gi) {
    T* dxg = dx + gi * g.in_per_group() * g.h * g.w;
    // A 1x1 kernel's column matrix is dx itself: the gemm writes it directly.
    T* dcol = is_pointwise(g) ? dxg : col;
    gemm(Gemm{true, false, rows, cols, opg}, w + gi * opg * rows, dy + gi * opg * cols, T(0), dcol);
    if (!is_pointwise(g)) transfer<true>(dxg, dcol, g);
  }
}

template <class T>
void backward_weight_sample(const T* dy, const T* x, T* dw, T* col, const Conv2dGeometry& g) {
  // Accumulates (beta = 1) into dw.
  const int64_t rows = g.col_rows(), cols = g.col_cols(), opg = g.out_per_group();
  for (int64_t gi = 0; gi < g.groups; ++gi) {
    T* xg = const_cast<T*>(x) + gi * g.in_per_group() * g.h * g.w;
    const T* b = xg;
    if (!is_pointwise(g)) {
      transfer<false>(xg, col, g);
      b = col;
    }
    gemm(Gemm{false, true, opg, rows, cols}, dy + gi * opg * cols, b, T(1), dw + gi * opg * rows);
  }
}

// dw = the sum over samples; with samples split over threads, each sums its own share first.
template <class T>
void backward_weight_samples(const T* dy, const T* x, T* dw, const Conv2dGeometry& g) {
  const int64_t in_size = g.c * g.h * g.w, out_size = g.o * g.oh * g.ow;
  const int64_t size = g.o * g.col_rows();
  std::fill_n(dw, size, T(0));
  std::mutex mu;
  over_sample_ranges(g, [&](int64_t s0, int64_t s1) {
    const Tensor col = column_buffer(g, dtype_of<T>()),
                 part = make_cpu_tensor({size}, dtype_of<T>());
    T* acc = part.data_ptr<T>();
    std::fill_n(acc, size, T(0));
    for (int64_t s = s0; s < s1; ++s) {
      backward_weight_sample(dy + s * out_size, x + s * in_size, acc, col.data_ptr<T>(), g);
    }
    std::lock_guard<std::mutex> lock(mu);
    for (int64_t i = 0; i < size; ++i) dw[i] += acc[i];
  });
}

}  // namespace

Tensor conv2d_backward_input(const Tensor& grad_output, const Tensor& weight,
                             const std::vector<int64_t>& input_size,
                             const std::vector<int64_t>& stride,
                             const std::vector<int64_t>& padding,
                             const std::vector<int64_t>& dilation, int64_t groups) {
  constexpr const char* kOp = "conv2d_backward_input";
  const Shape shape = compute_shape_conv2d_backward_input(
      grad_output.shape(), weight.shape(), input_size, stride, padding, dilation, groups)[0];
  const Conv2dGeometry g =
      conv2d_geometry(kOp, input_size, weight.sizes(), stride, padding, dilation, groups);
  Tensor out = make_cpu_tensor(shape.sizes, shape.dtype);
  const Tensor dy = grad_output.contiguous(), w = weight.contiguous();
  const int64_t in_size = g.c * g.h * g.w, out_size = g.o * g.oh * g.ow;
  dispatch_dtype(shape.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      if (use_winograd(g)) {
        winograd_backward_input(dy.data_ptr<T>(), w.data_ptr<T>(), out.data_ptr<T>(), g);
        return;
      }
      over_samples<T>(g, [&](int64_t s, T* col) {
        backward_input_sample(dy.data_ptr<T>() + s * out_size, w.data_ptr<T>(),
                              out.data_ptr<T>() + s * in_size, col, g);
      });
    }
  });
  return out;
}

Tensor conv2d_backward_weight(const Tensor& grad_output, const Tensor& input,
                              const std::vector<int64_t>& weight_size,
                              const std::vector<int64_t>& stride,
                              const std::vector<int64_t>& padding,
                              const std::vector<int64_t>& dilation, int64_t groups) {
  constexpr const char* kOp = "conv2d_backward_weight";
  const Shape shape = compute_shape_conv2d_backward_weight(
      grad_output.shape(), input.shape(), weight_size, stride, padding, dilation, groups)[0];
  const Conv2dGeometry g =
      conv2d_geometry(kOp, input.sizes(), weight_size, stride, padding, dilation, groups);
  Tensor out = make_cpu_tensor(shape.sizes, shape.dtype);
  const Tensor dy = grad_output.contiguous(), x = input.contiguous();
  dispatch_dtype(shape.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      if (use_winograd(g)) {
        winograd_backward_weight(dy.data_ptr<T>(), x.data_ptr<T>(), out.data_ptr<T>(), g);
        return;
      }
      backward_weight_samples(dy.data_ptr<T>(), x.data_ptr<T>(), out.data_ptr<T>(), g);
    }
  });
  return out;
}

}  // namespace lazygen::cpu
