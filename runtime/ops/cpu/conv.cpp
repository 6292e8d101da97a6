// conv2d, conv2d_backward_input and conv2d_backward_weight (training_kernels.h).
//
// Note [im2col convolution]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// For a block of samples and per group, im2col copies the input windows into a column matrix
// [c/g * kh * kw, block * oh * ow] (zeros where a window hangs over the padding; each sample's
// oh * ow columns side by side). Then
//   forward:         y_g  = w_g [o/g, rows] @ col [rows, cols]
//   weight gradient: dw_g += dy_g [o/g, cols] @ col^T             (summed over blocks)
//   input gradient:  dcol = w_g^T @ dy_g, added back into dx by col2im
// where dy_g and y_g are [o/g, cols] with the block's samples side by side as in col: a block of
// one sample reads and writes NCHW dy and y in place; a larger block gathers dy into, and
// scatters y out of, a scratch matrix.
//
// Block size: a gemm whose column count is small packs its whole weight operand for little work
// (ResNet-18 on 32x32 images ends at 1x1 planes: per sample, a gemv against 512 x 4608 weights),
// so samples are blocked until a gemm has kMinGemmCols columns, within kMaxColumnBytes of column
// matrix. The tutorial CNN's planes (26x26, 24x24) are wide enough alone: blocks of one sample.
// A 1x1 kernel with unit stride and no padding in a block of one needs no copy: the input planes
// already are the column matrix.
//
// Threading: with two or more blocks (their count a multiple of the thread count), our pool
// splits the blocks, each thread with its own column matrix and weight-gradient accumulator and
// each gemm on one thread; one block runs on the calling thread, its gemm split over the pool
// (See Note [One thread pool] in blas_gemm.h) and its im2col, col2im and gathers split by sample.
//
// Note [Live taps]
// ~~~~~~~~~~~~~~~~
// A kernel tap whose windows all lie in the padding adds only zeros: on a 1x1 plane with padding
// 1, eight of a 3x3 kernel's nine taps. The kernel is cropped to the rows and columns of taps
// that reach the input (a tap range [first, last] per axis; dead taps between live ones stay),
// with the padding shifted to match, and the gemms run over the cropped weights: 9x fewer flops
// for ResNet-18's last stage. The weight gradient of a cropped tap is zero. When no tap reaches
// the input at all, the output is the bias, and both gradients are zero.
//
// 3x3 kernels with unit stride take Winograd instead where it applies and is switched on (See
// Note [Winograd convolution] in winograd.h).
#include <algorithm>
#include <mutex>
#include <type_traits>

#include "core/tensor/tensor_impl.h"
#include "lazygen/conv.h"
#include "lazygen/metrics.h"
#include "ops/cpu/blas_gemm.h"
#include "ops/cpu/onednn_conv.h"
#include "ops/cpu/training_kernels.h"
#include "ops/cpu/winograd.h"
#include "ops/shape/training_shapes.h"

namespace lazygen::cpu {
namespace {

// See Note [im2col convolution].
constexpr int64_t kMinGemmCols = 512;
constexpr int64_t kMaxColumnBytes = int64_t{8} << 20;

bool is_pointwise(const Conv2dGeometry& g) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
}

// The first live tap and the number of taps through the last live one, along one axis; {0, 0}
// when none is live. See Note [Live taps].
struct TapSpan {
  int64_t first = 0, count = 0;
};

TapSpan live_taps(int64_t k, int64_t out, int64_t in, int64_t s, int64_t pad, int64_t d) {
  int64_t first = -1, last = -1;
  for (int64_t i = 0; i < k; ++i) {
    const TapRange r = tap_range(out, in, s, i * d - pad);
    if (r.lo == r.hi) continue;
    if (first < 0) first = i;
    last = i;
  }
  return first < 0 ? TapSpan{} : TapSpan{first, last - first + 1};
}

// How one convolution runs: the called geometry, the one the gemms see (kernel cropped to its
// live taps), and how many samples share a column matrix.
struct ConvPlan {
  Conv2dGeometry full, g;
  int64_t ki0 = 0, kj0 = 0;  // the cropped kernel's first tap in the full kernel
  int64_t block = 1;

  bool cropped() const { return g.kh != full.kh || g.kw != full.kw; }
  bool empty() const { return g.kh == 0 || g.kw == 0; }
  int64_t in_size() const { return g.c * g.h * g.w; }  // one sample's input elements
  int64_t out_size() const { return g.o * g.oh * g.ow; }
};

// Blocks: enough for kMinGemmCols columns per gemm and kMaxColumnBytes per column matrix; when
// there are at least as many as threads, a multiple of the thread count, so that the pool's
// threads get equal shares.
ConvPlan plan_conv(const Conv2dGeometry& full, size_t itemsize) {
  ConvPlan p;
  p.full = p.g = full;
  const TapSpan y = live_taps(full.kh, full.oh, full.h, full.sh, full.ph, full.dh);
  const TapSpan x = live_taps(full.kw, full.ow, full.w, full.sw, full.pw, full.dw);
  p.ki0 = y.first, p.kj0 = x.first;
  p.g.kh = y.count, p.g.kw = x.count;
  p.g.ph = full.ph - y.first * full.dh, p.g.pw = full.pw - x.first * full.dw;
  const int64_t n = std::max<int64_t>(1, full.n), cols = p.g.col_cols();
  const int64_t sample_bytes = p.g.col_rows() * cols * int64_t(itemsize);
  int64_t blocks = std::max((n * cols + kMinGemmCols - 1) / kMinGemmCols,
                            (n * sample_bytes + kMaxColumnBytes - 1) / kMaxColumnBytes);
  const int64_t threads = num_threads();
  if (blocks >= threads) blocks = (blocks + threads - 1) / threads * threads;
  blocks = std::clamp<int64_t>(blocks, 1, n);
  p.block = (n + blocks - 1) / blocks;
  return p;
}

// Where kernel tap (ki, kj) reads: output rows [y.lo, y.hi) and columns [x.lo, x.hi) have their
// window's tap inside the input (the rest read padding); output (oy, ox) reads input (oy * sh +
// y0, ox * sw + x0).
struct TapWindow {
  TapRange y, x;
  int64_t y0 = 0, x0 = 0;
};

TapWindow tap_window(const Conv2dGeometry& g, int64_t ki, int64_t kj) {
  TapWindow t;
  t.y0 = ki * g.dh - g.ph, t.x0 = kj * g.dw - g.pw;
  t.y = tap_range(g.oh, g.h, g.sh, t.y0);
  t.x = tap_range(g.ow, g.w, g.sw, t.x0);
  return t;
}

// Copies (Add = false) one column-matrix row out of, or adds it (Add = true) back into, an input
// plane, for the tap of window t. Plain loops: rows are short (8, 4, 2 and 1 wide in ResNet-18's
// late stages), where library calls per piece cost more than the copy.
template <bool Add, class T>
void transfer_row(T* plane, T* row, const Conv2dGeometry& g, const TapWindow& t) {
  const int64_t ow = g.ow, lo = t.x.lo, hi = t.x.hi, sw = g.sw;
  if constexpr (!Add) {
    for (int64_t i = 0; i < t.y.lo * ow; ++i) row[i] = T(0);
    for (int64_t i = t.y.hi * ow; i < g.oh * ow; ++i) row[i] = T(0);
  }
  for (int64_t oy = t.y.lo; oy < t.y.hi; ++oy) {
    T* r = row + oy * ow;
    T* in = plane + (oy * g.sh + t.y0) * g.w + t.x0;
    if constexpr (Add) {
      for (int64_t ox = lo; ox < hi; ++ox) in[ox * sw] += r[ox];
    } else {
      for (int64_t ox = 0; ox < lo; ++ox) r[ox] = T(0);
      for (int64_t ox = lo; ox < hi; ++ox) r[ox] = in[ox * sw];
      for (int64_t ox = hi; ox < ow; ++ox) r[ox] = T(0);
    }
  }
}

// im2col (Add = false) or col2im (Add = true) between one sample's group of [c/g, h, w] input
// planes and its columns of a column matrix whose rows are `ld` apart.
template <bool Add, class T>
void transfer(T* planes, T* col, const Conv2dGeometry& g, int64_t ld) {
  const int64_t taps = g.kh * g.kw, plane = g.h * g.w;
  for (int64_t ki = 0; ki < g.kh; ++ki) {
    for (int64_t kj = 0; kj < g.kw; ++kj) {
      const TapWindow t = tap_window(g, ki, kj);
      T* row = col + (ki * g.kw + kj) * ld;
      for (int64_t c = 0; c < g.in_per_group(); ++c) {
        transfer_row<Add>(planes + c * plane, row + c * taps * ld, g, t);
      }
    }
  }
}

enum class Algorithm { Im2col, Winograd, OneDnn };

// The algorithm this call runs in compute type T; counts the choice (lazygen/conv.h).
template <class T>
Algorithm choose(const Conv2dGeometry& g, ConvPass pass) {
  static metrics::Counter* const counters[] = {&metrics::counter("conv.im2col"),
                                               &metrics::counter("conv.winograd"),
                                               &metrics::counter("conv.onednn")};
  Algorithm a = Algorithm::Im2col;
  if constexpr (std::is_floating_point_v<T>) {
    if (winograd_enabled() && winograd_applies(g)) a = Algorithm::Winograd;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (a == Algorithm::Im2col && onednn_conv_runs(g, pass)) a = Algorithm::OneDnn;
  }
  counters[static_cast<int>(a)]->add();
  return a;
}

// One thread's scratch: a column matrix (none for a 1x1 kernel in blocks of one) and a
// [o/g, block * oh * ow] matrix for gathered dy or unscattered y (none in blocks of one).
template <class T>
struct Scratch {
  explicit Scratch(const ConvPlan& p)
      : col(make_cpu_tensor(
            {p.block == 1 && is_pointwise(p.g) ? 0 : p.g.col_rows() * p.block * p.g.col_cols()},
            dtype_of<T>())),
        out(make_cpu_tensor({p.block == 1 ? 0 : p.g.out_per_group() * p.block * p.g.col_cols()},
                            dtype_of<T>())) {}
  Tensor col, out;
  Tensor acc;  // conv_backward_weight's share of the gradient, made at the first block
};

// Runs fn(s0, count, scratch) for every block of samples, then finish(scratch) once per thread
// that ran blocks. See Note [im2col convolution].
template <class T, class F, class Finish>
void over_blocks(const ConvPlan& p, const F& fn, const Finish& finish) {
  const int64_t n = p.g.n, blocks = (n + p.block - 1) / p.block;
  auto run = [&](int64_t b0, int64_t b1) {
    Scratch<T> scratch(p);
    for (int64_t s = b0 * p.block; s < std::min(n, b1 * p.block); s += p.block) {
      fn(s, std::min(p.block, n - s), scratch);
    }
    finish(scratch);
  };
  if (blocks >= std::min<int64_t>(2, num_threads())) {
    parallel_over_items(blocks, run);
  } else {
    run(0, blocks);
  }
}

template <class T, class F>
void over_blocks(const ConvPlan& p, const F& fn) {
  over_blocks<T>(p, fn, [](Scratch<T>&) {});
}

// fn(s) for s in [0, count): over the pool when called from outside it (a block that runs
// alone: its im2col, col2im and gathers split like its gemms), else on this thread.
template <class F>
void for_each_sample(int64_t count, const F& fn) {
  parallel_over_items(count, [&](int64_t b, int64_t e) {
    for (int64_t s = b; s < e; ++s) fn(s);
  });
}

// Group gi of sample s of an NCHW [n, o, oh, ow] tensor: [o/g, oh * ow].
template <class T>
T* group_rows(T* nchw, const ConvPlan& p, int64_t gi, int64_t s) {
  return nchw + s * p.out_size() + gi * p.g.out_per_group() * p.g.col_cols();
}

// Gathers group gi of samples [s0, s0 + count) into a [o/g, count * oh * ow] matrix (Gather),
// or scatters the matrix back, adding bias[oc] to row oc when bias is not null.
template <bool Gather, class T>
void move_group_rows(T* nchw, T* matrix, const ConvPlan& p, int64_t gi, int64_t s0, int64_t count,
                     const T* bias = nullptr) {
  const int64_t cols = p.g.col_cols(), ld = count * cols;
  for_each_sample(count, [&](int64_t s) {
    T* sample = group_rows(nchw, p, gi, s0 + s);
    for (int64_t oc = 0; oc < p.g.out_per_group(); ++oc) {
      T* m = matrix + oc * ld + s * cols;
      T* plane = sample + oc * cols;
      if constexpr (Gather) {
        std::copy(plane, plane + cols, m);
      } else if (bias != nullptr) {
        for (int64_t i = 0; i < cols; ++i) plane[i] = m[i] + bias[oc];
      } else {
        std::copy(m, m + cols, plane);
      }
    }
  });
}

// The column matrix of group gi for samples [s0, s0 + count): the input planes themselves for a
// 1x1 kernel in a block of one, else im2col into scratch.
template <class T>
const T* columns(const T* x, const ConvPlan& p, int64_t gi, int64_t s0, int64_t count,
                 Scratch<T>& scratch) {
  const Conv2dGeometry& g = p.g;
  T* planes = const_cast<T*>(x) + s0 * p.in_size() + gi * g.in_per_group() * g.h * g.w;
  if (count == 1 && is_pointwise(g)) return planes;
  T* col = scratch.col.template data_ptr<T>();
  for_each_sample(count, [&](int64_t s) {
    transfer<false>(planes + s * p.in_size(), col + s * g.col_cols(), g, count * g.col_cols());
  });
  return col;
}

// C[m, n] = A[m, k] B[k, n], added to C when `accumulate`, for integer dtypes (BLAS has none):
// exact, wrapping on overflow as PyTorch's integer convolution does.
template <class T>
void integer_matmul(int64_t m, int64_t n, int64_t k, const T* a, const T* b, bool accumulate,
                    T* c) {
  using U = std::make_unsigned_t<T>;
  for (int64_t i = 0; i < m; ++i) {
    U* row = reinterpret_cast<U*>(c + i * n);
    if (!accumulate) std::fill_n(row, n, U(0));
    for (int64_t q = 0; q < k; ++q) {
      const U coefficient = static_cast<U>(a[i * k + q]);
      const T* b_row = b + q * n;
      for (int64_t j = 0; j < n; ++j) row[j] += coefficient * static_cast<U>(b_row[j]);
    }
  }
}

// y_g [o/g, cols] (+)= w_g [o/g, rows] @ b [rows, cols].
template <class T>
void forward_gemm(const T* w, const T* b, bool accumulate, T* y, int64_t opg, int64_t cols,
                  int64_t rows) {
  if constexpr (std::is_floating_point_v<T>) {
    gemm(Gemm{false, false, opg, cols, rows}, w, b, T(accumulate ? 1 : 0), y);
  } else {
    integer_matmul(opg, cols, rows, w, b, accumulate, y);
  }
}

// y = the bias (or zeros) for a convolution none of whose taps reaches the input.
template <class T>
void bias_only(T* y, const T* bias, const ConvPlan& p) {
  const int64_t cols = p.g.col_cols();
  for (int64_t s = 0; s < p.g.n; ++s) {
    for (int64_t oc = 0; oc < p.g.o; ++oc) {
      std::fill_n(y + s * p.out_size() + oc * cols, cols, bias == nullptr ? T(0) : bias[oc]);
    }
  }
}

// Operands of one call, contiguous; w is the cropped kernel. Gradients are written to `out`.
template <class T>
struct ConvArgs {
  const T* x;     // input (forward, weight gradient)
  const T* w;     // weight (forward, input gradient)
  const T* dy;    // grad_output (both gradients)
  const T* bias;  // forward; may be null
  T* out;
};

template <class T>
void forward_block(const ConvArgs<T>& a, const ConvPlan& p, int64_t s0, int64_t count,
                   Scratch<T>& scratch) {
  const Conv2dGeometry& g = p.g;
  const int64_t rows = g.col_rows(), cols = g.col_cols(), opg = g.out_per_group();
  for (int64_t gi = 0; gi < g.groups; ++gi) {
    const T* b = columns(a.x, p, gi, s0, count, scratch);
    const T* wg = a.w + gi * opg * rows;
    const T* bias = a.bias == nullptr ? nullptr : a.bias + gi * opg;
    if (count == 1) {  // y's planes start as the bias, and the gemm adds to them
      T* yg = group_rows(a.out, p, gi, s0);
      for (int64_t oc = 0; bias != nullptr && oc < opg; ++oc) {
        std::fill_n(yg + oc * cols, cols, bias[oc]);
      }
      forward_gemm(wg, b, bias != nullptr, yg, opg, cols, rows);
      continue;
    }
    T* m = scratch.out.template data_ptr<T>();
    forward_gemm(wg, b, false, m, opg, count * cols, rows);
    move_group_rows<false>(a.out, m, p, gi, s0, count, bias);
  }
}

// dy of group gi for samples [s0, s0 + count) as a [o/g, count * cols] matrix.
template <class T>
const T* dy_rows(const ConvArgs<T>& a, const ConvPlan& p, int64_t gi, int64_t s0, int64_t count,
                 Scratch<T>& scratch) {
  T* dy = const_cast<T*>(a.dy);
  if (count == 1) return group_rows(dy, p, gi, s0);
  T* m = scratch.out.template data_ptr<T>();
  move_group_rows<true>(dy, m, p, gi, s0, count);
  return m;
}

template <class T>
void backward_input_block(const ConvArgs<T>& a, const ConvPlan& p, int64_t s0, int64_t count,
                          Scratch<T>& scratch) {
  const Conv2dGeometry& g = p.g;
  const int64_t rows = g.col_rows(), cols = g.col_cols(), opg = g.out_per_group();
  const int64_t plane_size = g.in_per_group() * g.h * g.w;
  T* dx = a.out + s0 * p.in_size();
  for (int64_t gi = 0; gi < g.groups; ++gi) {
    const T* dyg = dy_rows(a, p, gi, s0, count, scratch);
    const Gemm dcol_gemm{true, false, rows, count * cols, opg};
    if (count == 1 && is_pointwise(g)) {  // the column matrix is dx itself
      gemm(dcol_gemm, a.w + gi * opg * rows, dyg, T(0), dx + gi * plane_size);
      continue;
    }
    T* dcol = scratch.col.template data_ptr<T>();
    gemm(dcol_gemm, a.w + gi * opg * rows, dyg, T(0), dcol);
    for_each_sample(count, [&](int64_t s) {
      transfer<true>(dx + s * p.in_size() + gi * plane_size, dcol + s * cols, g, count * cols);
    });
  }
}

// Accumulates (beta = 1) the block's share of the cropped weight gradient into acc.
template <class T>
void backward_weight_block(const ConvArgs<T>& a, const ConvPlan& p, int64_t s0, int64_t count,
                           Scratch<T>& scratch, T* acc) {
  const Conv2dGeometry& g = p.g;
  const int64_t rows = g.col_rows(), cols = g.col_cols(), opg = g.out_per_group();
  for (int64_t gi = 0; gi < g.groups; ++gi) {
    const T* dyg = dy_rows(a, p, gi, s0, count, scratch);
    const T* b = columns(a.x, p, gi, s0, count, scratch);
    gemm(Gemm{false, true, opg, rows, count * cols}, dyg, b, T(1), acc + gi * opg * rows);
  }
}

// Copies the cropped taps out of a full [o, c/g, kh, kw] kernel (ToCrop), or writes a cropped
// kernel into the full one's taps (the others are left alone).
template <bool ToCrop, class T>
void move_taps(T* full, T* crop, const ConvPlan& p) {
  const Conv2dGeometry &f = p.full, &g = p.g;
  parallel_for(0, f.o * f.in_per_group(), 4096, [&](int64_t b, int64_t e) {
    for (int64_t plane = b; plane < e; ++plane) {
      for (int64_t i = 0; i < g.kh; ++i) {
        T* f_row = full + (plane * f.kh + p.ki0 + i) * f.kw + p.kj0;
        T* c_row = crop + (plane * g.kh + i) * g.kw;
        const T* from = ToCrop ? f_row : c_row;
        std::copy(from, from + g.kw, ToCrop ? c_row : f_row);
      }
    }
  });
}

// The kernel the gemms use: w itself, or its live taps.
Tensor gemm_kernel(const Tensor& w, const ConvPlan& p) {
  if (!p.cropped() || p.empty()) return w;
  Tensor crop = make_cpu_tensor({p.g.o, p.g.in_per_group(), p.g.kh, p.g.kw}, w.dtype());
  dispatch_dtype(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    move_taps<true>(const_cast<T*>(w.data_ptr<T>()), crop.data_ptr<T>(), p);
  });
  return crop;
}

template <class T>
void conv_forward(const ConvArgs<T>& a, const ConvPlan& p) {
  if (p.empty()) {
    bias_only(a.out, a.bias, p);
    return;
  }
  over_blocks<T>(p, [&](int64_t s0, int64_t count, Scratch<T>& scratch) {
    forward_block(a, p, s0, count, scratch);
  });
}

template <class T>
void conv_backward_input(const ConvArgs<T>& a, const ConvPlan& p) {
  std::fill_n(a.out, p.g.n * p.in_size(), T(0));
  if (p.empty()) return;
  over_blocks<T>(p, [&](int64_t s0, int64_t count, Scratch<T>& scratch) {
    backward_input_block(a, p, s0, count, scratch);
  });
}

// dw = the sum over blocks; each thread sums its own blocks' share first. Summed into out itself,
// or, for a cropped kernel, into the cropped gradient, whose taps then go into out's zeros.
template <class T>
void conv_backward_weight(const ConvArgs<T>& a, const ConvPlan& p) {
  std::fill_n(a.out, p.full.o * p.full.col_rows(), T(0));
  if (p.empty()) return;
  const int64_t size = p.g.o * p.g.col_rows();
  const Tensor crop = make_cpu_tensor({p.cropped() ? size : 0}, dtype_of<T>());
  T* dw = p.cropped() ? crop.data_ptr<T>() : a.out;
  if (p.cropped()) std::fill_n(dw, size, T(0));
  std::mutex mu;
  auto block = [&](int64_t s0, int64_t count, Scratch<T>& scratch) {
    if (!scratch.acc.defined()) {
      scratch.acc = make_cpu_tensor({size}, dtype_of<T>());
      std::fill_n(scratch.acc.template data_ptr<T>(), size, T(0));
    }
    backward_weight_block(a, p, s0, count, scratch, scratch.acc.template data_ptr<T>());
  };
  auto finish = [&](Scratch<T>& scratch) {
    if (!scratch.acc.defined()) return;
    const T* acc = scratch.acc.template data_ptr<T>();
    std::lock_guard<std::mutex> lock(mu);
    for (int64_t i = 0; i < size; ++i) dw[i] += acc[i];
  };
  over_blocks<T>(p, block, finish);
  if (p.cropped()) move_taps<false>(a.out, dw, p);
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
  dispatch_dtype(shape.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {  // refused by the shape rule
      const T* bp = has_bias ? b.data_ptr<T>() : nullptr;
      const Algorithm algorithm = choose<T>(g, ConvPass::Forward);
      if constexpr (std::is_floating_point_v<T>) {
        if (algorithm == Algorithm::Winograd) {
          winograd_forward(x.data_ptr<T>(), w.data_ptr<T>(), bp, out.data_ptr<T>(), g);
          return;
        }
      }
      if constexpr (std::is_same_v<T, float>) {
        if (algorithm == Algorithm::OneDnn) {
          onednn_conv(ConvPass::Forward, g, x.data_ptr<T>(), w.data_ptr<T>(), bp,
                      out.data_ptr<T>());
          return;
        }
      }
      const ConvPlan p = plan_conv(g, sizeof(T));
      const Tensor wk = gemm_kernel(w, p);
      conv_forward(ConvArgs<T>{x.data_ptr<T>(), wk.data_ptr<T>(), nullptr, bp, out.data_ptr<T>()},
                   p);
    }
  });
  return out;
}

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
  dispatch_dtype(shape.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const Algorithm algorithm = choose<T>(g, ConvPass::BackwardInput);
      if (algorithm == Algorithm::Winograd) {
        winograd_backward_input(dy.data_ptr<T>(), w.data_ptr<T>(), out.data_ptr<T>(), g);
        return;
      }
      if constexpr (std::is_same_v<T, float>) {
        if (algorithm == Algorithm::OneDnn) {
          onednn_conv(ConvPass::BackwardInput, g, dy.data_ptr<T>(), w.data_ptr<T>(), nullptr,
                      out.data_ptr<T>());
          return;
        }
      }
      const ConvPlan p = plan_conv(g, sizeof(T));
      const Tensor wk = gemm_kernel(w, p);
      conv_backward_input(
          ConvArgs<T>{nullptr, wk.data_ptr<T>(), dy.data_ptr<T>(), nullptr, out.data_ptr<T>()}, p);
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
      const Algorithm algorithm = choose<T>(g, ConvPass::BackwardWeight);
      if (algorithm == Algorithm::Winograd) {
        winograd_backward_weight(dy.data_ptr<T>(), x.data_ptr<T>(), out.data_ptr<T>(), g);
        return;
      }
      if constexpr (std::is_same_v<T, float>) {
        if (algorithm == Algorithm::OneDnn) {
          onednn_conv(ConvPass::BackwardWeight, g, dy.data_ptr<T>(), x.data_ptr<T>(), nullptr,
                      out.data_ptr<T>());
          return;
        }
      }
      conv_backward_weight(
          ConvArgs<T>{x.data_ptr<T>(), nullptr, dy.data_ptr<T>(), nullptr, out.data_ptr<T>()},
          plan_conv(g, sizeof(T)));
    }
  });
  return out;
}

}  // namespace lazygen::cpu
