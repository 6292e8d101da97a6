// 3-d max and average pooling, 2-d adaptive max pooling with indices, and their backward ops
// (lazygen/composite.h), from index_select, max.dim, sum, gather and scatter_add.
//
// Note [Pooling by gather]
// Which input elements each output's window covers depends on sizes and arguments only: a host
// table [outputs, window] of flat positions within a D*H*W plane (the plane's size, one past
// the end, where the window reaches padding) is built when the op is traced. Input, viewed as
// [N, C, D*H*W] with one -inf column appended, is gathered through the table, and max.dim over
// the window gives the values and (through the table again) PyTorch's flat indices: the first
// maximum in window order, NaN winning, as PyTorch's kernel. The backward adds grad_output at
// the indices (scatter_add). Average pooling sums the window instead (padding reads 0) and
// divides by each output's divisor, a host table too; its backward spreads each output's share
// over its window's positions (scatter_add).
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/div.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/gather.h"
#include "lazygen/generated/ops/index_select.h"
#include "lazygen/generated/ops/max.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/scatter_add.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/operators.h"
#include "ops/composite/spatial_args.h"

namespace lazygen {
namespace {

struct PoolAxis3 {
  int64_t in = 0, kernel = 0, stride = 0, pad = 0, dilation = 1, out = 0;
};

struct Pool3d {
  PoolAxis3 axes[3];       // d, h, w
  int64_t batch_dims = 0;  // dims before D (2 for [N, C, D, H, W], 1 for [C, D, H, W])
  int64_t outputs() const { return axes[0].out * axes[1].out * axes[2].out; }
  int64_t window() const { return axes[0].kernel * axes[1].kernel * axes[2].kernel; }
  int64_t plane() const { return axes[0].in * axes[1].in * axes[2].in; }
};

Pool3d pool3d(const char* op, const Tensor& self, const std::vector<int64_t>& kernel_size,
              const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
              const std::vector<int64_t>& dilation, bool ceil_mode) {
  if (self.dim() != 4 && self.dim() != 5) {
    throw ShapeError(op, "expected 4D or 5D input, got shape " + sizes_str(self.sizes()));
  }
  if (!is_floating(self.dtype())) throw ShapeError(op, "takes float32 and float64 tensors");
  Pool3d p;
  p.batch_dims = self.dim() - 3;
  for (size_t i = 0; i < 3; ++i) {
    PoolAxis3& a = p.axes[i];
    a.in = self.size(p.batch_dims + static_cast<int64_t>(i));
    a.kernel = spatial_arg(op, "kernel_size", kernel_size, i, 3);
    a.stride = stride.empty() ? a.kernel : spatial_arg(op, "stride", stride, i, 3);
    a.pad = spatial_arg(op, "padding", padding, i, 3);
    a.dilation = spatial_arg(op, "dilation", dilation, i, 3);
    if (a.kernel <= 0 || a.stride <= 0 || a.dilation <= 0) {
      throw ShapeError(op, "kernel_size, stride and dilation must be greater than zero");
    }
    if (a.pad < 0 || a.pad > a.kernel / 2) {
      throw ShapeError(
          op, "pad should be at most half of kernel size, but got pad=" + std::to_string(a.pad) +
                  " and kernel_size=" + std::to_string(a.kernel));
    }
    const int64_t span = a.in + 2 * a.pad - a.dilation * (a.kernel - 1) - 1;
    a.out = (ceil_mode ? (span + a.stride - 1) / a.stride : span / a.stride) + 1;
    if (ceil_mode && (a.out - 1) * a.stride >= a.in + a.pad) --a.out;
    if (span < 0 || a.out < 1) {
      throw ShapeError(
          op, "given input of shape " + sizes_str(self.sizes()) + ", the output size is too small");
    }
  }
  return p;
}

// The flat position of each window element of each output (plane() where it is padding).
std::vector<int64_t> window_positions(const Pool3d& p) {
  std::vector<int64_t> table;
  table.reserve(static_cast<size_t>(p.outputs() * p.window()));
  const PoolAxis3 &d = p.axes[0], &h = p.axes[1], &w = p.axes[2];
  for (int64_t od = 0; od < d.out; ++od)
    for (int64_t oh = 0; oh < h.out; ++oh)
      for (int64_t ow = 0; ow < w.out; ++ow)
        for (int64_t kd = 0; kd < d.kernel; ++kd)
          for (int64_t kh = 0; kh < h.kernel; ++kh)
            for (int64_t kw = 0; kw < w.kernel; ++kw) {
              const int64_t z = od * d.stride - d.pad + kd * d.dilation;
              const int64_t y = oh * h.stride - h.pad + kh * h.dilation;
              const int64_t x = ow * w.stride - w.pad + kw * w.dilation;
              const bool inside = z >= 0 && z < d.in && y >= 0 && y < h.in && x >= 0 && x < w.in;
              table.push_back(inside ? (z * h.in + y) * w.in + x : p.plane());
            }
  return table;
}

std::vector<int64_t> output_sizes(const Tensor& self, const Pool3d& p) {
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().begin() + p.batch_dims);
  for (const PoolAxis3& a : p.axes) sizes.push_back(a.out);
  return sizes;
}

// Adaptive pooling of [..., H, W] to out: output o of a dim of `in` covers
// [floor(o * in / out), ceil((o + 1) * in / out)), so windows differ in size.
struct AdaptivePool2d {
  int64_t in[2] = {0, 0}, out[2] = {0, 0};
  static int64_t start(int64_t o, int64_t in, int64_t out) { return o * in / out; }
  static int64_t end(int64_t o, int64_t in, int64_t out) { return ((o + 1) * in + out - 1) / out; }
  // The widest window of a dim (the table's width; narrower ones are padded).
  int64_t widest(size_t i) const {
    int64_t w = 0;
    for (int64_t o = 0; o < out[i]; ++o)
      w = std::max(w, end(o, in[i], out[i]) - start(o, in[i], out[i]));
    return w;
  }
  int64_t window() const { return widest(0) * widest(1); }
};

AdaptivePool2d adaptive_pool2d(const char* op, const Tensor& self,
                               const std::vector<int64_t>& output_size) {
  if (self.dim() != 3 && self.dim() != 4) {
    throw ShapeError(op, "Expected 3D or 4D tensor, but got: " + sizes_str(self.sizes()));
  }
  if (output_size.size() != 2) {
    throw ShapeError(op, "internal error: output_size.size() must be 2");
  }
  if (!is_floating(self.dtype())) throw ShapeError(op, "takes float32 and float64 tensors");
  for (int64_t d = 1; d < self.dim(); ++d) {
    if (self.size(d) == 0) {
      throw ShapeError(op,
                       "Expected input to have non-zero size for non-batch dimensions, but "
                       "input has sizes " +
                           sizes_str(self.sizes()) + " with dimension " + std::to_string(d) +
                           " being empty");
    }
  }
  AdaptivePool2d p;
  for (size_t i = 0; i < 2; ++i) {
    p.in[i] = self.size(self.dim() - 2 + static_cast<int64_t>(i));
    p.out[i] = output_size[i];
    if (p.out[i] < 0) throw ShapeError(op, "output_size must not be negative");
  }
  return p;
}

// Row-major positions within an H*W plane per output, each window padded to p.window() with
// the plane's size (the -inf column).
std::vector<int64_t> window_positions(const AdaptivePool2d& p) {
  const int64_t wh = p.widest(0), ww = p.widest(1), plane = p.in[0] * p.in[1];
  std::vector<int64_t> table;
  table.reserve(static_cast<size_t>(p.out[0] * p.out[1] * wh * ww));
  for (int64_t oh = 0; oh < p.out[0]; ++oh)
    for (int64_t ow = 0; ow < p.out[1]; ++ow) {
      const int64_t h0 = AdaptivePool2d::start(oh, p.in[0], p.out[0]);
      const int64_t h1 = AdaptivePool2d::end(oh, p.in[0], p.out[0]);
      const int64_t w0 = AdaptivePool2d::start(ow, p.in[1], p.out[1]);
      const int64_t w1 = AdaptivePool2d::end(ow, p.in[1], p.out[1]);
      for (int64_t kh = 0; kh < wh; ++kh)
        for (int64_t kw = 0; kw < ww; ++kw) {
          const bool inside = h0 + kh < h1 && w0 + kw < w1;
          table.push_back(inside ? (h0 + kh) * p.in[1] + w0 + kw : plane);
        }
    }
  return table;
}

// self's planes (`plane` elements each) gathered through `table` [outputs * window] of flat
// positions (plane: padding, read as `fill`): [rows, outputs, window], rows = self.numel() /
// plane.
Tensor gathered_windows(const Tensor& self, int64_t plane, const std::vector<int64_t>& table,
                        int64_t window, double fill) {
  const int64_t rows = self.numel() / plane;
  const auto outputs = static_cast<int64_t>(table.size()) / window;
  const Tensor padded =
      cat({reshape(self, {rows, plane}), full({rows, 1}, fill, self.dtype(), self.device())}, 1);
  const Tensor positions = tensor(table, IntList{outputs * window}, DType::Int64, self.device());
  return reshape(index_select(padded, 1, positions), {rows, outputs, window});
}

// Max over each output's window of self's planes through `table` (padding read as -inf): values
// and flat indices, shaped `sizes`. See Note [Pooling by gather].
std::tuple<Tensor, Tensor> max_over_windows(const Tensor& self, int64_t plane,
                                            const std::vector<int64_t>& table, int64_t window,
                                            const std::vector<int64_t>& sizes) {
  const Tensor windows =
      gathered_windows(self, plane, table, window, -std::numeric_limits<double>::infinity());
  const int64_t rows = windows.size(0), outputs = windows.size(1);
  const auto [values, arg] = max(windows, 2, true);  // [rows, outputs, 1]
  const Tensor positions = tensor(table, IntList{outputs, window}, DType::Int64, self.device());
  const Tensor indices = gather(expand(unsqueeze(positions, 0), {rows, outputs, window}), 2, arg);
  return {reshape(values, sizes), reshape(indices, sizes)};
}

// The gradient of a max over windows: grad_output added at the flat indices of self's planes.
Tensor add_at_indices(const Tensor& grad_output, const Tensor& self, int64_t plane,
                      const Tensor& indices) {
  if (self.numel() == 0) return zeros(self.sizes(), grad_output.dtype(), grad_output.device());
  const int64_t rows = self.numel() / plane;
  const Tensor grad =
      scatter_add(zeros({rows, plane}, grad_output.dtype(), grad_output.device()), 1,
                  reshape(indices, {rows, -1}), reshape(grad_output, {rows, -1}));
  return reshape(grad, self.sizes());
}

// avg_pool3d's windows: a Pool3d without dilation, with PyTorch's checks.
Pool3d avg_pool3d_plan(const char* op, const Tensor& self, const std::vector<int64_t>& kernel_size,
                       const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                       bool ceil_mode, std::optional<int64_t> divisor_override) {
  if (divisor_override && *divisor_override == 0) throw ShapeError(op, "divisor must be not zero");
  return pool3d(op, self, kernel_size, stride, padding, {1}, ceil_mode);
}

// Each output's divisor, as PyTorch's kernel takes it: divisor_override, else the size of its
// window within the padded input (count_include_pad) or within the input.
std::vector<double> window_divisors(const Pool3d& p, bool count_include_pad,
                                    std::optional<int64_t> divisor_override) {
  std::vector<double> divisors;
  divisors.reserve(static_cast<size_t>(p.outputs()));
  const auto extent = [](const PoolAxis3& a, int64_t o, bool padded) {
    const int64_t start = o * a.stride - a.pad, end = std::min(start + a.kernel, a.in + a.pad);
    return padded ? end - start : std::min(end, a.in) - std::max<int64_t>(start, 0);
  };
  const PoolAxis3 &d = p.axes[0], &h = p.axes[1], &w = p.axes[2];
  for (int64_t od = 0; od < d.out; ++od)
    for (int64_t oh = 0; oh < h.out; ++oh)
      for (int64_t ow = 0; ow < w.out; ++ow) {
        const int64_t size = extent(d, od, count_include_pad) * extent(h, oh, count_include_pad) *
                             extent(w, ow, count_include_pad);
        divisors.push_back(static_cast<double>(divisor_override.value_or(size)));
      }
  return divisors;
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool3d_with_indices(
    const Tensor& self, const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& stride,
    const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, bool ceil_mode) {
  const Pool3d p =
      pool3d("max_pool3d_with_indices", self, kernel_size, stride, padding, dilation, ceil_mode);
  const std::vector<int64_t> sizes = output_sizes(self, p);
  if (self.numel() == 0)
    return {zeros(sizes, self.dtype(), self.device()), zeros(sizes, DType::Int64, self.device())};
  return max_over_windows(self, p.plane(), window_positions(p), p.window(), sizes);
}

Tensor max_pool3d_with_indices_backward(const Tensor& grad_output, const Tensor& self,
                                        const std::vector<int64_t>& kernel_size,
                                        const std::vector<int64_t>& stride,
                                        const std::vector<int64_t>& padding,
                                        const std::vector<int64_t>& dilation, bool ceil_mode,
                                        const Tensor& indices) {
  const Pool3d p = pool3d("max_pool3d_with_indices_backward", self, kernel_size, stride, padding,
                          dilation, ceil_mode);
  if (grad_output.sizes() != output_sizes(self, p) || indices.sizes() != grad_output.sizes()) {
    throw ShapeError("max_pool3d_with_indices_backward",
                     "expected grad_output and indices of shape " +
                         sizes_str(output_sizes(self, p)) + ", got " +
                         sizes_str(grad_output.sizes()) + " and " + sizes_str(indices.sizes()));
  }
  return add_at_indices(grad_output, self, p.plane(), indices);
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self,
                                               const std::vector<int64_t>& output_size) {
  const AdaptivePool2d p = adaptive_pool2d("adaptive_max_pool2d", self, output_size);
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end() - 2);
  sizes.push_back(p.out[0]);
  sizes.push_back(p.out[1]);
  if (self.numel() == 0 || p.out[0] * p.out[1] == 0)
    return {zeros(sizes, self.dtype(), self.device()), zeros(sizes, DType::Int64, self.device())};
  return max_over_windows(self, p.in[0] * p.in[1], window_positions(p), p.window(), sizes);
}

Tensor adaptive_max_pool2d_backward(const Tensor& grad_output, const Tensor& self,
                                    const Tensor& indices) {
  const char* op = "adaptive_max_pool2d_backward";
  if (self.dim() != 3 && self.dim() != 4) {
    throw ShapeError(op, "expected 3D or 4D input, got shape " + sizes_str(self.sizes()));
  }
  if (grad_output.dim() != self.dim() || indices.sizes() != grad_output.sizes() ||
      !std::equal(self.sizes().begin(), self.sizes().end() - 2, grad_output.sizes().begin())) {
    throw ShapeError(op, "expected grad_output and indices of input " + sizes_str(self.sizes()) +
                             "'s batch and channels, got " + sizes_str(grad_output.sizes()) +
                             " and " + sizes_str(indices.sizes()));
  }
  return add_at_indices(grad_output, self, self.size(-2) * self.size(-1), indices);
}

Tensor avg_pool3d(const Tensor& self, const std::vector<int64_t>& kernel_size,
                  const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  const Pool3d p = avg_pool3d_plan("avg_pool3d", self, kernel_size, stride, padding, ceil_mode,
                                   divisor_override);
  const std::vector<int64_t> sizes = output_sizes(self, p);
  if (self.numel() == 0) return zeros(sizes, self.dtype(), self.device());
  const Tensor sums = sum(gathered_windows(self, p.plane(), window_positions(p), p.window(), 0.0),
                          std::vector<int64_t>{2});  // [rows, outputs]
  const Tensor divisors = tensor(window_divisors(p, count_include_pad, divisor_override),
                                 IntList{p.outputs()}, self.dtype(), self.device());
  return reshape(div(sums, divisors), sizes);
}

Tensor avg_pool3d_backward(const Tensor& grad_output, const Tensor& self,
                           const std::vector<int64_t>& kernel_size,
                           const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                           bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool3d_backward";
  const Pool3d p =
      avg_pool3d_plan(op, self, kernel_size, stride, padding, ceil_mode, divisor_override);
  if (grad_output.sizes() != output_sizes(self, p)) {
    throw ShapeError(op, "expected grad_output of shape " + sizes_str(output_sizes(self, p)) +
                             ", got " + sizes_str(grad_output.sizes()));
  }
  if (self.numel() == 0) return zeros(self.sizes(), grad_output.dtype(), grad_output.device());
  const int64_t rows = self.numel() / p.plane(), outputs = p.outputs(), window = p.window();
  const Tensor divisors = tensor(window_divisors(p, count_include_pad, divisor_override),
                                 IntList{outputs, 1}, grad_output.dtype(), grad_output.device());
  const Tensor shares = div(reshape(grad_output, {rows, outputs, 1}), divisors);
  const Tensor positions =
      tensor(window_positions(p), IntList{1, outputs * window}, DType::Int64, self.device());
  // One column past the plane collects what padding positions receive, then is dropped.
  const Tensor grad =
      scatter_add(zeros({rows, p.plane() + 1}, grad_output.dtype(), grad_output.device()), 1,
                  expand(positions, {rows, outputs * window}),
                  reshape(expand(shares, {rows, outputs, window}), {rows, outputs * window}));
  return reshape(narrow(grad, 1, 0, p.plane()), self.sizes());
}

}  // namespace lazygen
