// max_pool2d_with_indices, max_pool2d and their backward ops (training_kernels.h).
//
// Every kernel works plane by plane (n * c planes of [h, w], split over the cpu thread pool) and
// finds a window's maximum with window_argmax, so the forward ops and max_pool2d_backward (which
// finds the maxima again instead of keeping indices) agree on every tie and NaN.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "backend/cpu/thread_pool.h"
#include "core/tensor/tensor_impl.h"
#include "ops/cpu/training_kernels.h"
#include "ops/shape/training_shapes.h"

namespace lazygen::cpu {
namespace {

constexpr int64_t kPlaneGrain = 16;

// Index within the plane (iy * w + ix) of the maximum of output window (oy, ox): PyTorch's rule,
// the first largest element in row-major order or the last NaN; padding never wins.
template <class T>
int64_t window_argmax(const T* plane, const Pool2dGeometry& g, int64_t oy, int64_t ox) {
  int64_t y0 = oy * g.sh - g.ph, x0 = ox * g.sw - g.pw;
  const int64_t y1 = std::min(y0 + (g.kh - 1) * g.dh + 1, g.h);
  const int64_t x1 = std::min(x0 + (g.kw - 1) * g.dw + 1, g.w);
  while (y0 < 0) y0 += g.dh;
  while (x0 < 0) x0 += g.dw;
  int64_t best = y0 * g.w + x0;
  T max = -std::numeric_limits<T>::infinity();
  for (int64_t y = y0; y < y1; y += g.dh) {
    for (int64_t x = x0; x < x1; x += g.dw) {
      const T v = plane[y * g.w + x];
      if (v > max || std::isnan(v)) {
        max = v;
        best = y * g.w + x;
      }
    }
  }
  return best;
}

void check_index(const char* op, int64_t at, int64_t in_plane) {
  if (at < 0 || at >= in_plane) {
    throw std::out_of_range(std::string(op) + ": index " + std::to_string(at) +
                            " is outside an input plane of " + std::to_string(in_plane) +
                            " elements");
  }
}

Pool2dGeometry geometry(const char* op, const Tensor& self, const std::vector<int64_t>& kernel_size,
                        const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                        const std::vector<int64_t>& dilation, bool ceil_mode) {
  return pool2d_geometry(op, self.sizes(), kernel_size, stride, padding, dilation, ceil_mode);
}

// values (and, when `indices` is defined, indices) of self's windows.
void pool_forward(const Tensor& self, const Pool2dGeometry& g, const Tensor& values,
                  const Tensor& indices) {
  const Tensor x = self.contiguous();
  const int64_t in_plane = g.h * g.w, out_plane = g.oh * g.ow;
  dispatch_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T* in = x.data_ptr<T>();
      T* out = values.data_ptr<T>();
      int64_t* idx = indices.defined() ? indices.data_ptr<int64_t>() : nullptr;
      parallel_for(0, g.planes, kPlaneGrain, [&](int64_t b, int64_t e) {
        for (int64_t p = b; p < e; ++p) {
          const T* plane = in + p * in_plane;
          for (int64_t o = 0; o < out_plane; ++o) {
            const int64_t best = window_argmax(plane, g, o / g.ow, o % g.ow);
            out[p * out_plane + o] = plane[best];
            if (idx != nullptr) idx[p * out_plane + o] = best;
          }
        }
      });
    }
  });
}

// grad_input [planes, h, w] with each grad_output element added at its window's maximum: taken
// from `indices` when defined, else found again in self.
Tensor pool_backward(const char* op, const Tensor& grad_output, const Tensor& self,
                     const Pool2dGeometry& g, const Tensor& indices) {
  Tensor grad_input = make_cpu_tensor(self.sizes(), self.dtype());
  const Tensor dy = grad_output.contiguous();
  const Tensor x = indices.defined() ? Tensor() : self.contiguous();
  const Tensor idx = indices.defined() ? indices.contiguous() : Tensor();
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
          T* plane = gi + p * in_plane;
          std::fill_n(plane, in_plane, T(0));
          for (int64_t o = 0; o < out_plane; ++o) {
            const int64_t at = ip != nullptr
                                   ? ip[p * out_plane + o]
                                   : window_argmax(xp + p * in_plane, g, o / g.ow, o % g.ow);
            check_index(op, at, in_plane);
            plane[at] += go[p * out_plane + o];
          }
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
