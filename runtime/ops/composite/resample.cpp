// Average pooling, adaptive average pooling and nearest / bilinear / bicubic upsampling of
// [N, C, H, W] (lazygen/composite.h) and their backward ops; linear and nearest upsampling of
// [N, C, L], trilinear and nearest upsampling and adaptive average pooling of [N, C, D, H, W],
// one axis after another.
//
// Note [Separable resampling]
// Each of these maps every row and every column independently: output = Mh @ x @ Mw^T for two
// weight matrices [out, in] that depend on sizes and arguments only (an average pool's window
// weights, an interpolation's two or four taps). They are built on the host when the op is
// traced and applied as two matrix products over the last two dims (N-D @ 2-D folds into one mm
// each), so the lazy device fuses and caches them like any product, and autograd differentiates
// them. The backward ops apply the transposed matrices. A dense matrix does in*out multiply-adds
// per row where a window needs k: cheap for the pooling ResNets end with and 2x upsampling, not
// the fastest path for large images. The 1-d and 3-d forms apply the same per-axis weights one
// axis at a time (apply_along), which is exact because each resampling is a product of per-axis
// maps.
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/floor.h"
#include "lazygen/generated/ops/max.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/generated/ops/transpose.h"
#include "lazygen/operators.h"
#include "ops/composite/spatial_args.h"

namespace lazygen {
namespace {

// A row-major [rows, cols] weight matrix built on the host.
struct Weights {
  int64_t rows = 0, cols = 0;
  std::vector<double> w;
  Weights(int64_t r, int64_t c) : rows(r), cols(c), w(static_cast<size_t>(r * c), 0.0) {}
  double& at(int64_t r, int64_t c) { return w[static_cast<size_t>(r * cols + c)]; }
  Tensor on(const Tensor& like) const {
    return tensor(w, IntList{rows, cols}, like.dtype(), like.device());
  }
};

// Mh @ x @ Mw^T over x's last two dims (Note [Separable resampling]); backward: Mh^T @ x @ Mw.
Tensor apply(const Tensor& x, const Weights& h, const Weights& w, bool backward) {
  const Tensor mh = h.on(x), mw = w.on(x);
  const Tensor rows_done = x.matmul(backward ? mw : t(mw));  // [.., H, W']
  const Tensor cols_done =
      transpose(rows_done, -1, -2).matmul(backward ? mh : t(mh));  // [.., W', H']
  return transpose(cols_done, -1, -2);
}

void check_floating(const char* op, const Tensor& self) {
  if (!is_floating(self.dtype())) {
    throw ShapeError(op, std::string("takes float32 and float64 tensors, got ") +
                             std::string(dtype_name(self.dtype())));
  }
}

void check_rank(const char* op, const Tensor& self, bool allow_3d) {
  if (self.dim() != 4 && !(allow_3d && self.dim() == 3)) {
    throw ShapeError(op, std::string("expected ") + (allow_3d ? "3D or " : "") +
                             "4D input, got shape " + sizes_str(self.sizes()));
  }
}

// One axis of an average pool: the window weights and, for count_include_pad or
// divisor_override, a per-axis window size (the divisor is their product: separable).
struct PoolAxis {
  int64_t in = 0, kernel = 0, stride = 0, pad = 0;
  bool ceil_mode = false;
  int64_t out() const {
    const int64_t span = in + 2 * pad - kernel;
    int64_t n = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
    if (ceil_mode && (n - 1) * stride >= in + pad) --n;  // the last window must start inside
    return n;
  }
  // Each output's window: 1 / its size when `divide`, else 1 (divisor_override divides outside).
  Weights weights(bool count_include_pad, bool divide) const {
    Weights m(out(), in);
    for (int64_t i = 0; i < m.rows; ++i) {
      const int64_t start = i * stride - pad, end = std::min(start + kernel, in + pad);
      const int64_t lo = std::max<int64_t>(start, 0), hi = std::min(end, in);
      const double size = static_cast<double>(count_include_pad ? end - start : hi - lo);
      for (int64_t j = lo; j < hi; ++j) m.at(i, j) = divide ? 1.0 / size : 1.0;
    }
    return m;
  }
};

struct AvgPool {
  PoolAxis h, w;
  bool count_include_pad = true;
  std::optional<int64_t> divisor_override;
};

AvgPool avg_pool(const char* op, const Tensor& self, const std::vector<int64_t>& kernel_size,
                 const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                 bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  check_rank(op, self, true);
  check_floating(op, self);
  AvgPool p;
  PoolAxis* axes[2] = {&p.h, &p.w};
  for (size_t i = 0; i < 2; ++i) {
    PoolAxis& a = *axes[i];
    a.in = self.size(static_cast<int64_t>(i) - 2);
    a.kernel = spatial_arg(op, "kernel_size", kernel_size, i, 2);
    a.stride = stride.empty() ? a.kernel : spatial_arg(op, "stride", stride, i, 2);
    a.pad = spatial_arg(op, "padding", padding, i, 2);
    a.ceil_mode = ceil_mode;
    if (a.kernel <= 0 || a.stride <= 0) {
      throw ShapeError(op, "kernel size and stride must be greater than zero, got kernel_size " +
                               sizes_str(kernel_size) + ", stride " + sizes_str(stride));
    }
    if (a.pad < 0 || a.pad > a.kernel / 2) {
      throw ShapeError(
          op, "pad should be at most half of kernel size, but got pad=" + std::to_string(a.pad) +
                  " and kernel_size=" + std::to_string(a.kernel));
    }
    if (a.out() < 1) {
      throw ShapeError(op, "given input of shape " + sizes_str(self.sizes()) +
                               ", the calculated output size is too small (kernel_size " +
                               sizes_str(kernel_size) + ", padding " + sizes_str(padding) + ")");
    }
  }
  if (divisor_override && *divisor_override == 0) throw ShapeError(op, "divisor must be not zero");
  p.count_include_pad = count_include_pad;
  p.divisor_override = divisor_override;
  return p;
}

Tensor run_avg_pool(const Tensor& x, const AvgPool& p, bool backward) {
  const bool divide = !p.divisor_override;
  const Tensor out = apply(x, p.h.weights(p.count_include_pad, divide),
                           p.w.weights(p.count_include_pad, divide), backward);
  return divide ? out : out / static_cast<double>(*p.divisor_override);
}

// Adaptive average pooling along one axis: output i averages [floor(i*in/out), ceil((i+1)*in/out)).
Weights adaptive_weights(int64_t in, int64_t out) {
  Weights m(out, in);
  for (int64_t i = 0; i < out; ++i) {
    const int64_t lo = (i * in) / out, hi = ((i + 1) * in + out - 1) / out;
    for (int64_t j = lo; j < hi; ++j) m.at(i, j) = 1.0 / static_cast<double>(hi - lo);
  }
  return m;
}

// PyTorch's source-index scale: 1 / scale when given (and positive), else in / out.
float index_scale(int64_t in, int64_t out, std::optional<double> scale) {
  if (scale && *scale > 0) return static_cast<float>(1.0 / *scale);
  return static_cast<float>(in) / static_cast<float>(out);
}

Weights nearest_weights(int64_t in, int64_t out, std::optional<double> scale) {
  Weights m(out, in);
  const float s = index_scale(in, out, scale);
  for (int64_t i = 0; i < out; ++i) {
    const auto src = std::min(static_cast<int64_t>(std::floor(static_cast<float>(i) * s)), in - 1);
    m.at(i, src) = 1.0;
  }
  return m;
}

// Source positions per output position (PyTorch's area_pixel_compute_scale), in Opmath.
template <class Opmath>
Opmath source_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) {
    return out > 1 ? static_cast<Opmath>(in - 1) / static_cast<Opmath>(out - 1) : Opmath(0);
  }
  return scale && *scale > 0 ? static_cast<Opmath>(1.0 / *scale)
                             : static_cast<Opmath>(in) / static_cast<Opmath>(out);
}

// Interpolation weights computed in Opmath, the type PyTorch's kernel computes source indices
// in for the tensor's dtype (float for float32, double for float64).
template <class Opmath>
Weights bilinear_weights_in(int64_t in, int64_t out, bool align_corners,
                            std::optional<double> scale) {
  Weights m(out, in);
  const Opmath s = source_scale<Opmath>(in, out, align_corners, scale);
  for (int64_t i = 0; i < out; ++i) {
    const auto dst = static_cast<Opmath>(i);
    const Opmath src =
        align_corners ? s * dst : std::max(s * (dst + Opmath(0.5)) - Opmath(0.5), Opmath(0));
    const auto lo = std::min(static_cast<int64_t>(src), in - 1);
    const int64_t hi = lo + (lo < in - 1 ? 1 : 0);
    const Opmath lambda = std::min(src - static_cast<Opmath>(lo), Opmath(1));
    m.at(i, lo) += static_cast<double>(Opmath(1) - lambda);
    m.at(i, hi) += static_cast<double>(lambda);
  }
  return m;
}

// PyTorch's cubic convolution (Keys, A = -0.75) over the four taps around each source position,
// which may lie outside [0, in - 1] (not clamped, unlike bilinear's); taps outside read the
// border, so their weights add to it.
template <class Opmath>
Weights bicubic_weights_in(int64_t in, int64_t out, bool align_corners,
                           std::optional<double> scale) {
  Weights m(out, in);
  const Opmath s = source_scale<Opmath>(in, out, align_corners, scale);
  const Opmath a = -0.75;
  // The kernel's two pieces: near taps (|x| <= 1) and far ones (1 < |x| < 2).
  const auto near = [a](Opmath x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  const auto far = [a](Opmath x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
  for (int64_t i = 0; i < out; ++i) {
    const auto dst = static_cast<Opmath>(i);
    const Opmath src = align_corners ? s * dst : s * (dst + Opmath(0.5)) - Opmath(0.5);
    const auto base = static_cast<int64_t>(std::floor(src));
    const Opmath t = src - static_cast<Opmath>(base);
    const Opmath taps[4] = {far(t + 1), near(t), near(1 - t), far(2 - t)};
    for (int64_t k = 0; k < 4; ++k) {
      const int64_t at = std::clamp<int64_t>(base - 1 + k, 0, in - 1);
      m.at(i, at) += static_cast<double>(taps[k]);
    }
  }
  return m;
}

enum class Interpolation { kBilinear, kBicubic };

// The interpolation's weights, computed as PyTorch's kernel for `like`'s dtype computes them.
Weights interpolation_weights(const Tensor& like, int64_t in, int64_t out, bool align_corners,
                              std::optional<double> scale, Interpolation kind) {
  const bool f64 = like.dtype() == DType::Float64;
  if (kind == Interpolation::kBicubic) {
    return f64 ? bicubic_weights_in<double>(in, out, align_corners, scale)
               : bicubic_weights_in<float>(in, out, align_corners, scale);
  }
  return f64 ? bilinear_weights_in<double>(in, out, align_corners, scale)
             : bilinear_weights_in<float>(in, out, align_corners, scale);
}

// The output size of upsampling `self` (checked), as [out_h, out_w].
std::pair<int64_t, int64_t> upsample_size(const char* op, const std::vector<int64_t>& input_sizes,
                                          const std::vector<int64_t>& output_size) {
  if (output_size.size() != 2) {
    throw ShapeError(op, "expected output_size of 2 elements, got " + sizes_str(output_size));
  }
  if (input_sizes.size() != 4)
    throw ShapeError(op, "expected 4D input, got shape " + sizes_str(input_sizes));
  if (input_sizes[2] <= 0 || input_sizes[3] <= 0 || output_size[0] <= 0 || output_size[1] <= 0) {
    throw ShapeError(op, "input and output sizes should be greater than 0, but got input (H: " +
                             std::to_string(input_sizes[2]) +
                             ", W: " + std::to_string(input_sizes[3]) +
                             ") output (H: " + std::to_string(output_size[0]) +
                             ", W: " + std::to_string(output_size[1]) + ")");
  }
  return {output_size[0], output_size[1]};
}

void check_grad_sizes(const char* op, const Tensor& grad_output, const std::vector<int64_t>& want) {
  if (grad_output.sizes() != want) {
    throw ShapeError(op, "expected grad_output of shape " + sizes_str(want) + ", got " +
                             sizes_str(grad_output.sizes()));
  }
}

std::vector<int64_t> with_last_two(std::vector<int64_t> sizes, int64_t h, int64_t w) {
  sizes[sizes.size() - 2] = h;
  sizes[sizes.size() - 1] = w;
  return sizes;
}

// Bilinear or bicubic upsampling of `self` [N, C, H, W] to output_size, and its backward.
Tensor interpolate(const char* op, const Tensor& self, const std::vector<int64_t>& output_size,
                   bool align_corners, std::optional<double> scales_h,
                   std::optional<double> scales_w, Interpolation kind) {
  check_floating(op, self);
  const auto [oh, ow] = upsample_size(op, self.sizes(), output_size);
  return apply(self, interpolation_weights(self, self.size(2), oh, align_corners, scales_h, kind),
               interpolation_weights(self, self.size(3), ow, align_corners, scales_w, kind), false);
}

Tensor interpolate_backward(const char* op, const Tensor& grad_output,
                            const std::vector<int64_t>& output_size,
                            const std::vector<int64_t>& input_size, bool align_corners,
                            std::optional<double> scales_h, std::optional<double> scales_w,
                            Interpolation kind) {
  check_floating(op, grad_output);
  const auto [oh, ow] = upsample_size(op, input_size, output_size);
  check_grad_sizes(op, grad_output, with_last_two(input_size, oh, ow));
  return apply(grad_output,
               interpolation_weights(grad_output, input_size[2], oh, align_corners, scales_h, kind),
               interpolation_weights(grad_output, input_size[3], ow, align_corners, scales_w, kind),
               true);
}

// ---- 1-d and 3-d forms: the same weights, one axis at a time.

// M @ x along dim d (M^T @ x for backward): d moved last, one matrix product, moved back.
Tensor apply_along(const Tensor& x, int64_t d, const Weights& m, bool backward) {
  const Tensor w = m.on(x);
  return transpose(transpose(x, d, -1).matmul(backward ? w : t(w)), d, -1);
}

// An axis's weights given its input size, output size and position among the resampled axes.
using AxisWeights = std::function<Weights(int64_t in, int64_t out, size_t axis)>;

// x [N, C, *input spatial] resampled to output_size along its last output_size.size() dims, or
// (backward) x the gradient at output_size, taken back to input_size; sizes checked.
Tensor resample(const char* op, const Tensor& x, const std::vector<int64_t>& input_size,
                const std::vector<int64_t>& output_size, const AxisWeights& weights,
                bool backward) {
  check_floating(op, x);
  const size_t k = output_size.size();
  if (input_size.size() != k + 2) {
    throw ShapeError(op, "expected " + std::to_string(k + 2) + "D input, got shape " +
                             sizes_str(input_size));
  }
  std::vector<int64_t> out_sizes = input_size;
  for (size_t a = 0; a < k; ++a) {
    if (input_size[a + 2] <= 0 || output_size[a] <= 0) {
      throw ShapeError(op, "input and output sizes should be greater than 0, but got input " +
                               sizes_str(input_size) + " and output_size " +
                               sizes_str(output_size));
    }
    out_sizes[a + 2] = output_size[a];
  }
  if (backward) check_grad_sizes(op, x, out_sizes);
  Tensor y = x;
  for (size_t a = 0; a < k; ++a) {
    const auto d = static_cast<int64_t>(a + 2);
    y = apply_along(y, d, weights(input_size[a + 2], output_size[a], a), backward);
  }
  return y;
}

void check_output_rank(const char* op, const std::vector<int64_t>& output_size, size_t k) {
  if (output_size.size() != k) {
    throw ShapeError(op, "expected output_size of " + std::to_string(k) + " elements, got " +
                             sizes_str(output_size));
  }
}

AxisWeights linear_axes(const Tensor& like, bool align_corners,
                        std::vector<std::optional<double>> scales) {
  return [&like, align_corners, scales](int64_t in, int64_t out, size_t a) {
    return interpolation_weights(like, in, out, align_corners, scales[a],
                                 Interpolation::kBilinear);
  };
}

AxisWeights adaptive_axes() {
  return [](int64_t in, int64_t out, size_t) { return adaptive_weights(in, out); };
}

AxisWeights nearest_axes(std::vector<std::optional<double>> scales) {
  return [scales](int64_t in, int64_t out, size_t a) { return nearest_weights(in, out, scales[a]); };
}

// _adaptive_avg_pool3d's input [C, D, H, W] or [N, C, D, H, W] as [B, C', D, H, W] sizes
// (resample's layout: two leading dims), after PyTorch's checks.
std::vector<int64_t> adaptive_3d_sizes(const char* op, const Tensor& self) {
  if (self.dim() != 4 && self.dim() != 5) {
    throw ShapeError(op, "expected 4D or 5D input, got shape " + sizes_str(self.sizes()));
  }
  for (int64_t d = self.dim() - 4; d < self.dim(); ++d) {
    if (self.size(d) == 0) {
      throw ShapeError(op, "expected input to have non-zero size for non-batch dimensions, but "
                           "input has shape " + sizes_str(self.sizes()));
    }
  }
  std::vector<int64_t> sizes = self.sizes();
  if (self.dim() == 4) sizes.insert(sizes.begin(), 1);
  return sizes;
}

}  // namespace

Tensor upsample_linear1d(const Tensor& self, const std::vector<int64_t>& output_size,
                         bool align_corners, std::optional<double> scales) {
  check_output_rank("upsample_linear1d", output_size, 1);
  return resample("upsample_linear1d", self, self.sizes(), output_size,
                  linear_axes(self, align_corners, {scales}), false);
}

Tensor upsample_linear1d_backward(const Tensor& grad_output,
                                  const std::vector<int64_t>& output_size,
                                  const std::vector<int64_t>& input_size, bool align_corners,
                                  std::optional<double> scales) {
  check_output_rank("upsample_linear1d_backward", output_size, 1);
  return resample("upsample_linear1d_backward", grad_output, input_size, output_size,
                  linear_axes(grad_output, align_corners, {scales}), true);
}

Tensor upsample_nearest1d(const Tensor& self, const std::vector<int64_t>& output_size,
                          std::optional<double> scales) {
  check_output_rank("upsample_nearest1d", output_size, 1);
  return resample("upsample_nearest1d", self, self.sizes(), output_size, nearest_axes({scales}),
                  false);
}

Tensor upsample_nearest1d_backward(const Tensor& grad_output,
                                   const std::vector<int64_t>& output_size,
                                   const std::vector<int64_t>& input_size,
                                   std::optional<double> scales) {
  check_output_rank("upsample_nearest1d_backward", output_size, 1);
  return resample("upsample_nearest1d_backward", grad_output, input_size, output_size,
                  nearest_axes({scales}), true);
}

Tensor upsample_trilinear3d(const Tensor& self, const std::vector<int64_t>& output_size,
                            bool align_corners, std::optional<double> scales_d,
                            std::optional<double> scales_h, std::optional<double> scales_w) {
  check_output_rank("upsample_trilinear3d", output_size, 3);
  return resample("upsample_trilinear3d", self, self.sizes(), output_size,
                  linear_axes(self, align_corners, {scales_d, scales_h, scales_w}), false);
}

Tensor upsample_trilinear3d_backward(const Tensor& grad_output,
                                     const std::vector<int64_t>& output_size,
                                     const std::vector<int64_t>& input_size, bool align_corners,
                                     std::optional<double> scales_d,
                                     std::optional<double> scales_h,
                                     std::optional<double> scales_w) {
  check_output_rank("upsample_trilinear3d_backward", output_size, 3);
  return resample("upsample_trilinear3d_backward", grad_output, input_size, output_size,
                  linear_axes(grad_output, align_corners, {scales_d, scales_h, scales_w}), true);
}

Tensor upsample_nearest3d(const Tensor& self, const std::vector<int64_t>& output_size,
                          std::optional<double> scales_d, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  check_output_rank("upsample_nearest3d", output_size, 3);
  return resample("upsample_nearest3d", self, self.sizes(), output_size,
                  nearest_axes({scales_d, scales_h, scales_w}), false);
}

Tensor upsample_nearest3d_backward(const Tensor& grad_output,
                                   const std::vector<int64_t>& output_size,
                                   const std::vector<int64_t>& input_size,
                                   std::optional<double> scales_d, std::optional<double> scales_h,
                                   std::optional<double> scales_w) {
  check_output_rank("upsample_nearest3d_backward", output_size, 3);
  return resample("upsample_nearest3d_backward", grad_output, input_size, output_size,
                  nearest_axes({scales_d, scales_h, scales_w}), true);
}

Tensor _adaptive_avg_pool3d(const Tensor& self, const std::vector<int64_t>& output_size) {
  const char* op = "_adaptive_avg_pool3d";
  check_output_rank(op, output_size, 3);
  for (int64_t s : output_size) {
    if (s < 0) throw ShapeError(op, "output_size must be non-negative, got " + sizes_str(output_size));
  }
  const std::vector<int64_t> sizes = adaptive_3d_sizes(op, self);
  std::vector<int64_t> out_sizes = self.sizes();
  std::copy(output_size.begin(), output_size.end(), out_sizes.end() - 3);
  if (std::count(output_size.begin(), output_size.end(), 0) > 0) {
    return zeros(out_sizes, self.dtype(), self.device());
  }
  return reshape(resample(op, reshape(self, sizes), sizes, output_size, adaptive_axes(), false),
                 out_sizes);
}

Tensor _adaptive_avg_pool3d_backward(const Tensor& grad_output, const Tensor& self) {
  const char* op = "_adaptive_avg_pool3d_backward";
  const std::vector<int64_t> sizes = adaptive_3d_sizes(op, self);
  if (grad_output.dim() != self.dim()) {
    throw ShapeError(op, "grad_output of shape " + sizes_str(grad_output.sizes()) +
                             " does not match input of shape " + sizes_str(self.sizes()));
  }
  const std::vector<int64_t> out(grad_output.sizes().end() - 3, grad_output.sizes().end());
  std::vector<int64_t> grad_sizes = sizes;
  std::copy(out.begin(), out.end(), grad_sizes.end() - 3);
  return reshape(resample(op, reshape(grad_output, grad_sizes), sizes, out, adaptive_axes(), true),
                 self.sizes());
}

Tensor avg_pool2d(const Tensor& self, const std::vector<int64_t>& kernel_size,
                  const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  const AvgPool p = avg_pool("avg_pool2d", self, kernel_size, stride, padding, ceil_mode,
                             count_include_pad, divisor_override);
  return run_avg_pool(self, p, false);
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self,
                           const std::vector<int64_t>& kernel_size,
                           const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                           bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  const AvgPool p = avg_pool("avg_pool2d_backward", self, kernel_size, stride, padding, ceil_mode,
                             count_include_pad, divisor_override);
  check_grad_sizes("avg_pool2d_backward", grad_output,
                   with_last_two(self.sizes(), p.h.out(), p.w.out()));
  return run_avg_pool(grad_output, p, true);
}

Tensor _adaptive_avg_pool2d(const Tensor& self, const std::vector<int64_t>& output_size) {
  check_rank("_adaptive_avg_pool2d", self, true);
  check_floating("_adaptive_avg_pool2d", self);
  if (output_size.size() != 2 || output_size[0] < 0 || output_size[1] < 0) {
    throw ShapeError("_adaptive_avg_pool2d",
                     "output_size must be 2 non-negative sizes, got " + sizes_str(output_size));
  }
  for (int64_t d = 1; d < self.dim(); ++d) {
    if (self.size(d) == 0) {
      throw ShapeError("_adaptive_avg_pool2d",
                       "expected input to have non-zero size for non-batch dimensions, "
                       "but input has shape " +
                           sizes_str(self.sizes()));
    }
  }
  return apply(self, adaptive_weights(self.size(-2), output_size[0]),
               adaptive_weights(self.size(-1), output_size[1]), false);
}

Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self) {
  check_rank("_adaptive_avg_pool2d_backward", self, true);
  check_floating("_adaptive_avg_pool2d_backward", self);
  if (grad_output.dim() != self.dim()) {
    throw ShapeError("_adaptive_avg_pool2d_backward",
                     "grad_output of shape " + sizes_str(grad_output.sizes()) +
                         " does not match input of shape " + sizes_str(self.sizes()));
  }
  return apply(grad_output, adaptive_weights(self.size(-2), grad_output.size(-2)),
               adaptive_weights(self.size(-1), grad_output.size(-1)), true);
}

Tensor upsample_nearest2d(const Tensor& self, const std::vector<int64_t>& output_size,
                          std::optional<double> scales_h, std::optional<double> scales_w) {
  check_floating("upsample_nearest2d", self);
  const auto [oh, ow] = upsample_size("upsample_nearest2d", self.sizes(), output_size);
  return apply(self, nearest_weights(self.size(2), oh, scales_h),
               nearest_weights(self.size(3), ow, scales_w), false);
}

Tensor upsample_nearest2d_backward(const Tensor& grad_output,
                                   const std::vector<int64_t>& output_size,
                                   const std::vector<int64_t>& input_size,
                                   std::optional<double> scales_h, std::optional<double> scales_w) {
  check_floating("upsample_nearest2d_backward", grad_output);
  const auto [oh, ow] = upsample_size("upsample_nearest2d_backward", input_size, output_size);
  check_grad_sizes("upsample_nearest2d_backward", grad_output, with_last_two(input_size, oh, ow));
  return apply(grad_output, nearest_weights(input_size[2], oh, scales_h),
               nearest_weights(input_size[3], ow, scales_w), true);
}

Tensor upsample_bilinear2d(const Tensor& self, const std::vector<int64_t>& output_size,
                           bool align_corners, std::optional<double> scales_h,
                           std::optional<double> scales_w) {
  return interpolate("upsample_bilinear2d", self, output_size, align_corners, scales_h, scales_w,
                     Interpolation::kBilinear);
}

Tensor upsample_bilinear2d_backward(const Tensor& grad_output,
                                    const std::vector<int64_t>& output_size,
                                    const std::vector<int64_t>& input_size, bool align_corners,
                                    std::optional<double> scales_h,
                                    std::optional<double> scales_w) {
  return interpolate_backward("upsample_bilinear2d_backward", grad_output, output_size, input_size,
                              align_corners, scales_h, scales_w, Interpolation::kBilinear);
}

Tensor upsample_bicubic2d(const Tensor& self, const std::vector<int64_t>& output_size,
                          bool align_corners, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  return interpolate("upsample_bicubic2d", self, output_size, align_corners, scales_h, scales_w,
                     Interpolation::kBicubic);
}

Tensor upsample_bicubic2d_backward(const Tensor& grad_output,
                                   const std::vector<int64_t>& output_size,
                                   const std::vector<int64_t>& input_size, bool align_corners,
                                   std::optional<double> scales_h, std::optional<double> scales_w) {
  return interpolate_backward("upsample_bicubic2d_backward", grad_output, output_size, input_size,
                              align_corners, scales_h, scales_w, Interpolation::kBicubic);
}

}  // namespace lazygen
