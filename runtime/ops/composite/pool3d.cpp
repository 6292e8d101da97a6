// 3-d max pooling with indices and its backward (lazygen/composite.h), from index_select, max.dim,
// gather and scatter_add.
//
// Note [Pooling by gather]
// Which input elements each output's window covers depends on sizes and arguments only: a host
// table [outputs, window] of flat positions within a D*H*W plane (the plane's size, one past
// the end, where the window reaches padding) is built when the op is traced. Input, viewed as
// [N, C, D*H*W] with one -inf column appended, is gathered through the table, and max.dim over
// the window gives the values and (through the table again) PyTorch's flat indices: the first
// maximum in window order, NaN winning, as PyTorch's kernel. The backward adds grad_output at
// the indices (scatter_add).
#include <limits>
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/gather.h"
#include "lazygen/generated/ops/index_select.h"
#include "lazygen/generated/ops/max.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/scatter_add.h"
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

}  // namespace

std::tuple<Tensor, Tensor> max_pool3d_with_indices(
    const Tensor& self, const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& stride,
    const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, bool ceil_mode) {
  const Pool3d p =
      pool3d("max_pool3d_with_indices", self, kernel_size, stride, padding, dilation, ceil_mode);
  const std::vector<int64_t> sizes = output_sizes(self, p);
  if (self.numel() == 0)
    return {zeros(sizes, self.dtype(), self.device()), zeros(sizes, DType::Int64, self.device())};
  const int64_t rows = self.numel() / p.plane();  // N * C
  const Tensor flat = reshape(self, {rows, p.plane()});
  const Tensor padded = cat({flat, full({rows, 1}, -std::numeric_limits<double>::infinity(),
                                        self.dtype(), self.device())},
                            1);
  const Tensor table =
      tensor(window_positions(p), IntList{p.outputs(), p.window()}, DType::Int64, self.device());
  const Tensor windows =
      reshape(index_select(padded, 1, reshape(table, {-1})), {rows, p.outputs(), p.window()});
  const auto [values, arg] = max(windows, 2, true);  // [rows, outputs, 1]
  const Tensor indices =
      gather(expand(unsqueeze(table, 0), {rows, p.outputs(), p.window()}), 2, arg);
  return {reshape(values, sizes), reshape(indices, sizes)};
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
  if (self.numel() == 0) return zeros(self.sizes(), grad_output.dtype(), grad_output.device());
  const int64_t rows = self.numel() / p.plane();
  const Tensor grad =
      scatter_add(zeros({rows, p.plane()}, grad_output.dtype(), grad_output.device()), 1,
                  reshape(indices, {rows, -1}), reshape(grad_output, {rows, -1}));
  return reshape(grad, self.sizes());
}

}  // namespace lazygen
