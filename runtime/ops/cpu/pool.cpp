// max_pool2d_with_indices, max_pool2d and their backward ops (training_kernels.h).
//
// Every kernel works plane by plane (n * c planes of [h, w], split over the cpu thread pool) and
// row of outputs by row: scan_row visits each window's taps in row-major order, but tap-major
// across the row (for each tap, every output whose window holds it), so the inner loop is a
// branch-light sweep along the row. The forward ops and max_pool2d_backward (which finds the
// maxima again instead of keeping indices) share scan_row, so they agree on every tie and NaN.
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/tensor/tensor_impl.h"
#include "core/thread_pool.h"
#include "ops/cpu/training_kernels.h"
#include "ops/shape/training_shapes.h"

namespace lazygen::cpu {
namespace {

constexpr int64_t kPlaneGrain = 16;

// The outputs [lo, hi) along one dim whose kernel tap `k` lands inside [0, in), and the first
// input position of each output's window (on the dilation grid, inside the input).
struct Axis {
  std::vector<int64_t> lo, hi;  // per tap
  std::vector<int64_t> first;   // per output
};

Axis make_axis(int64_t out, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  Axis a;
  for (int64_t t = 0; t < k; ++t) {
    const TapRange r = tap_range(out, in, s, t * d - p);
    a.lo.push_back(r.lo);
    a.hi.push_back(r.hi);
  }
  for (int64_t o = 0; o < out; ++o) {
    int64_t x = o * s - p;
    while (x < 0) x += d;
    a.first.push_back(x);
  }
  return a;
}

struct Axes {
  Axis y, x;
  bool two_by_two = false;  // 2x2 windows, stride 2, no padding or dilation, all inside
};

// scan_row for two_by_two windows: the four taps in row-major order per output, the same rule.
// One pass along the row instead of four tap sweeps, and no window start table.
template <bool WithIndex, class T>
void scan_row_2x2(const T* plane, const Pool2dGeometry& g, int64_t oy, T* __restrict best,
                  int32_t* __restrict at) {
  const T* r0 = plane + 2 * oy * g.w;
  const T* r1 = r0 + g.w;
  const auto top = static_cast<int32_t>(2 * oy * g.w), w = static_cast<int32_t>(g.w);
  for (int64_t ox = 0; ox < g.ow; ++ox) {
    const auto x = static_cast<int32_t>(2 * ox);
    T b = r0[x];  // the first tap: -inf would lose to it, a NaN takes it
    int32_t i = top + x;
    auto tap = [&](T v, int32_t k) {
      const bool take = (v > b) | (v != v);
      b = take ? v : b;
      i = take ? k : i;
    };
    tap(r0[x + 1], top + x + 1);
    tap(r1[x], top + w + x);
    tap(r1[x + 1], top + w + x + 1);
    best[ox] = b;
    if constexpr (WithIndex) at[ox] = i;
  }
}

// The maxima of output row oy of one plane: values into best, plane indices into at (when
// WithIndex). PyTorch's rule: the first largest element in row-major window order, or the last
// NaN; padding never wins.
template <bool WithIndex, class T>
void scan_row(const T* plane, const Pool2dGeometry& g, const Axes& a, int64_t oy,
              T* __restrict best, int32_t* __restrict at) {
  if (a.two_by_two) {
    scan_row_2x2<WithIndex>(plane, g, oy, best, at);
    return;
  }
  std::fill_n(best, g.ow, -std::numeric_limits<T>::infinity());
  if constexpr (WithIndex) {
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      at[ox] = static_cast<int32_t>(a.y.first[oy] * g.w + a.x.first[ox]);
    }
  }
  for (int64_t ky = 0; ky < g.kh; ++ky) {
    if (oy < a.y.lo[ky] || oy >= a.y.hi[ky]) continue;
    const int64_t y = oy * g.sh - g.ph + ky * g.dh;
    const T* row = plane + y * g.w;
    for (int64_t kx = 0; kx < g.kw; ++kx) {
      const int64_t x0 = kx * g.dw - g.pw;
      const int64_t lo = a.x.lo[kx], hi = a.x.hi[kx], sw = g.sw;
      const auto base = static_cast<int32_t>(y * g.w + x0), step = static_cast<int32_t>(sw);
      const T* __restrict in = row + x0;
      // Written to vectorize (selects, not branches: on real activations the comparison is a
      // coin flip, so a branch mispredicts half the time).
      for (int64_t ox = lo; ox < hi; ++ox) {
        const T v = in[ox * sw], b = best[ox];
        const bool take = (v > b) | (v != v);
        best[ox] = take ? v : b;
        if constexpr (WithIndex) at[ox] = take ? base + static_cast<int32_t>(ox) * step : at[ox];
      }
    }
  }
}

Pool2dGeometry geometry(const char* op, const Tensor& self, const std::vector<int64_t>& kernel_size,
                        const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                        const std::vector<int64_t>& dilation, bool ceil_mode) {
  return pool2d_geometry(op, self.sizes(), kernel_size, stride, padding, dilation, ceil_mode);
}

Axes axes(const Pool2dGeometry& g) {
  Axes a{make_axis(g.oh, g.h, g.kh, g.sh, g.ph, g.dh), make_axis(g.ow, g.w, g.kw, g.sw, g.pw, g.dw)};
  a.two_by_two = g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.ph == 0 && g.pw == 0 &&
                 g.dh == 1 && g.dw == 1 && 2 * g.oh <= g.h && 2 * g.ow <= g.w;
  return a;
}

// values (and, when `indices` is defined, indices) of self's windows.
void pool_forward(const Tensor& self, const Pool2dGeometry& g, const Tensor& values,
                  const Tensor& indices) {
  const Tensor x = self.contiguous();
  const Axes a = axes(g);
  const int64_t in_plane = g.h * g.w, out_plane = g.oh * g.ow;
  dispatch_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T* in = x.data_ptr<T>();
      T* out = values.data_ptr<T>();
      int64_t* idx = indices.defined() ? indices.data_ptr<int64_t>() : nullptr;
      parallel_for(0, g.planes, kPlaneGrain, [&](int64_t b, int64_t e) {
        std::vector<int32_t> at(static_cast<size_t>(g.ow));
        for (int64_t p = b; p < e; ++p) {
          for (int64_t oy = 0; oy < g.oh; ++oy) {
            const int64_t o = p * out_plane + oy * g.ow;
            if (idx == nullptr) {
              scan_row<false, T>(in + p * in_plane, g, a, oy, out + o, nullptr);
              continue;
            }
            scan_row<true>(in + p * in_plane, g, a, oy, out + o, at.data());
            std::copy(at.begin(), at.end(), idx + o);
          }
        }
      });
    }
  });
}

void check_index(const char* op, int64_t at, int64_t in_plane) {
  if (at < 0 || at >= in_plane) {
    throw std::out_of_range(std::string(op) + ": index " + std::to_string(at) +
                            " is outside an input plane of " + std::to_string(in_plane) +
                            " elements");
  }
}

// Adds one plane's grad_output into grad_input at the maxima: from `idx` when given, else
// found again in the plane of self `x`.
template <class T>
void scatter_plane(const char* op, const T* go, const T* x, const int64_t* idx, T* gi,
                   const Pool2dGeometry& g, const Axes& a) {
  const int64_t in_plane = g.h * g.w, out_plane = g.oh * g.ow;
  std::fill_n(gi, in_plane, T(0));
  if (idx != nullptr) {
    for (int64_t o = 0; o < out_plane; ++o) {
      check_index(op, idx[o], in_plane);
      gi[idx[o]] += go[o];
    }
    return;
  }
  std::vector<T> best(static_cast<size_t>(g.ow));
  std::vector<int32_t> at(static_cast<size_t>(g.ow));
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    scan_row<true>(x, g, a, oy, best.data(), at.data());
    for (int64_t ox = 0; ox < g.ow; ++ox) gi[at[ox]] += go[oy * g.ow + ox];
  }
}

// grad_input [planes, h, w] with each grad_output element added at its window's maximum: taken
// from `indices` when defined, else found again in self.
Tensor pool_backward(const char* op, const Tensor& grad_output, const Tensor& self,
                     const Pool2dGeometry& g, const Tensor& indices) {
  Tensor grad_input = make_cpu_tensor(self.sizes(), self.dtype());
  const Tensor dy = grad_output.contiguous();
  const Tensor x = indices.defined() ? Tensor() : self.contiguous();
  const Tensor idx = indices.defined() ? indices.contiguous() : Tensor();
  const Axes a = axes(g);
  const int64_t in_plane = g.h * g.w, out_plane = g.oh * g.ow;
  dispatch_dtype(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const int64_t* ip = idx.defined() ? idx.data_ptr<int64_t>() : nullptr;
      const T* xp = x.defined() ? x.data_ptr<T>() : nullptr;
      const T* go = dy.data_ptr<T>();
      T* gi = grad_input.data_ptr<T>();
      parallel_for(0, g.planes, kPlaneGrain, [&](int64_t b, int64_t e) {
        for (int64_t p = b; p < e; ++p) {
          scatter_plane(op, go + p * out_plane, xp ? xp + p * in_plane : nullptr,
                        ip ? ip + p * out_plane : nullptr, gi + p * in_plane, g, a);
        }
      });
    }
  });
  return grad_input;
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices(
    const Tensor& self, const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& stride,
    const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, bool ceil_mode) {
  constexpr const char* kOp = "max_pool2d_with_indices";
  const std::vector<Shape> shapes = compute_shape_max_pool2d_with_indices(
      self.shape(), kernel_size, stride, padding, dilation, ceil_mode);
  const Pool2dGeometry g = geometry(kOp, self, kernel_size, stride, padding, dilation, ceil_mode);
  Tensor values = make_cpu_tensor(shapes[0].sizes, shapes[0].dtype);
  Tensor indices = make_cpu_tensor(shapes[1].sizes, shapes[1].dtype);
  pool_forward(self, g, values, indices);
  return {values, indices};
}

Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& self,
                                        const std::vector<int64_t>& kernel_size,
                                        const std::vector<int64_t>& stride,
                                        const std::vector<int64_t>& padding,
                                        const std::vector<int64_t>& dilation, bool ceil_mode,
                                        const Tensor& indices) {
  constexpr const char* kOp = "max_pool2d_with_indices_backward";
  compute_shape_max_pool2d_with_indices_backward(grad_output.shape(), self.shape(), kernel_size,
                                                 stride, padding, dilation, ceil_mode,
                                                 indices.shape());
  const Pool2dGeometry g = geometry(kOp, self, kernel_size, stride, padding, dilation, ceil_mode);
  return pool_backward(kOp, grad_output, self, g, indices);
}

Tensor max_pool2d(const Tensor& self, const std::vector<int64_t>& kernel_size,
                  const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                  const std::vector<int64_t>& dilation, bool ceil_mode) {
  const Shape shape =
      compute_shape_max_pool2d(self.shape(), kernel_size, stride, padding, dilation, ceil_mode)[0];
  const Pool2dGeometry g =
      geometry("max_pool2d", self, kernel_size, stride, padding, dilation, ceil_mode);
  Tensor values = make_cpu_tensor(shape.sizes, shape.dtype);
  pool_forward(self, g, values, Tensor());
  return values;
}

Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& self,
                           const std::vector<int64_t>& kernel_size,
                           const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                           const std::vector<int64_t>& dilation, bool ceil_mode) {
  constexpr const char* kOp = "max_pool2d_backward";
  compute_shape_max_pool2d_backward(grad_output.shape(), self.shape(), kernel_size, stride, padding,
                                    dilation, ceil_mode);
  const Pool2dGeometry g = geometry(kOp, self, kernel_size, stride, padding, dilation, ceil_mode);
  return pool_backward(kOp, grad_output, self, g, Tensor());
}

}  // namespace lazygen::cpu
