// im2col and col2im (lazygen/composite.h; torch.nn.functional.unfold and fold), from padding,
// strided slices and their adjoints.
//
// Note [Patches by strided slices]
// Patch element (i, j) of every sliding block is one strided slice of the padded input: rows
// i * dilation_h + k * stride_h and columns j * dilation_w + l * stride_w over the block
// positions (k, l). im2col stacks the kh * kw slices [N, C, oh, ow] into [N, C, kh * kw, oh, ow]
// and flattens that to [N, C * kh * kw, L], PyTorch's layout. col2im is its adjoint: each slice's
// values go back to their positions (slice_backward, zeros elsewhere), the kh * kw placements
// add up (blocks that overlap share positions) and the padding is cut off. kh * kw slices: a
// graph of a few dozen nodes for the usual kernels, and autograd differentiates through both.
#include <string>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/slice.h"
#include "lazygen/generated/ops/slice_backward.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

struct Window {
  int64_t kh, kw, dh, dw, ph, pw, sh, sw;
};

// PyTorch's im2col and col2im take floating tensors only.
void check_floating(const char* op, const Tensor& self) {
  if (!is_floating(self.dtype())) {
    throw ShapeError(op,
                     "expected a floating tensor, got " + std::string(dtype_name(self.dtype())));
  }
}

Window window_of(const char* op, const std::vector<int64_t>& kernel_size,
                 const std::vector<int64_t>& dilation, const std::vector<int64_t>& padding,
                 const std::vector<int64_t>& stride) {
  for (const auto* v : {&kernel_size, &dilation, &padding, &stride}) {
    if (v->size() != 2)
      throw ShapeError(op, "expected kernel_size, dilation, padding and stride of 2 values each");
  }
  const Window w{kernel_size[0], kernel_size[1], dilation[0], dilation[1],
                 padding[0],     padding[1],     stride[0],   stride[1]};
  if (w.kh <= 0 || w.kw <= 0 || w.dh <= 0 || w.dw <= 0 || w.sh <= 0 || w.sw <= 0 || w.ph < 0 ||
      w.pw < 0) {
    throw ShapeError(op, "expected positive kernel_size " + sizes_str(kernel_size) + ", dilation " +
                             sizes_str(dilation) + " and stride " + sizes_str(stride) +
                             " and non-negative padding " + sizes_str(padding));
  }
  return w;
}

// Block positions along one dim of `size` (padded by `pad` on both sides); throws unless >= 1.
int64_t blocks(const char* op, int64_t size, int64_t k, int64_t d, int64_t pad, int64_t s) {
  const int64_t n = (size + 2 * pad - d * (k - 1) - 1) / s + 1;
  if (n < 1 || size + 2 * pad < d * (k - 1) + 1) {
    throw ShapeError(op, "a kernel of " + std::to_string(k) + " with dilation " +
                             std::to_string(d) + " does not fit a dim of " + std::to_string(size) +
                             " padded by " + std::to_string(pad));
  }
  return n;
}

}  // namespace

Tensor im2col(const Tensor& self, const std::vector<int64_t>& kernel_size,
              const std::vector<int64_t>& dilation, const std::vector<int64_t>& padding,
              const std::vector<int64_t>& stride) {
  check_floating("im2col", self);
  const Window w = window_of("im2col", kernel_size, dilation, padding, stride);
  if (self.dim() != 3 && self.dim() != 4) {
    throw ShapeError("im2col",
                     "expected a [C, H, W] or [N, C, H, W] input, got " + sizes_str(self.sizes()));
  }
  const Tensor x = self.dim() == 3 ? unsqueeze(self, 0) : self;
  const int64_t n = x.size(0), c = x.size(1);
  const int64_t oh = blocks("im2col", x.size(2), w.kh, w.dh, w.ph, w.sh);
  const int64_t ow = blocks("im2col", x.size(3), w.kw, w.dw, w.pw, w.sw);
  const Tensor padded = constant_pad_nd(x, {w.pw, w.pw, w.ph, w.ph});
  std::vector<Tensor> patches;
  for (int64_t i = 0; i < w.kh; ++i) {
    for (int64_t j = 0; j < w.kw; ++j) {
      const Tensor rows = slice(padded, 2, i * w.dh, i * w.dh + (oh - 1) * w.sh + 1, w.sh);
      patches.push_back(slice(rows, 3, j * w.dw, j * w.dw + (ow - 1) * w.sw + 1, w.sw));
    }
  }
  const Tensor cols = reshape(stack(patches, 2), {n, c * w.kh * w.kw, oh * ow});
  return self.dim() == 3 ? reshape(cols, {c * w.kh * w.kw, oh * ow}) : cols;
}

Tensor col2im(const Tensor& self, const std::vector<int64_t>& output_size,
              const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& dilation,
              const std::vector<int64_t>& padding, const std::vector<int64_t>& stride) {
  check_floating("col2im", self);
  const Window w = window_of("col2im", kernel_size, dilation, padding, stride);
  if (output_size.size() != 2 || (self.dim() != 2 && self.dim() != 3)) {
    throw ShapeError(
        "col2im",
        "expected a [C * kh * kw, L] or [N, C * kh * kw, L] input and 2 output sizes, got " +
            sizes_str(self.sizes()) + " and " + sizes_str(output_size));
  }
  const Tensor x = self.dim() == 2 ? unsqueeze(self, 0) : self;
  const int64_t oh = blocks("col2im", output_size[0], w.kh, w.dh, w.ph, w.sh);
  const int64_t ow = blocks("col2im", output_size[1], w.kw, w.dw, w.pw, w.sw);
  if (x.size(1) % (w.kh * w.kw) != 0 || x.size(2) != oh * ow) {
    throw ShapeError("col2im", "expected " + sizes_str(self.sizes()) + " to hold a multiple of " +
                                   std::to_string(w.kh * w.kw) + " rows and " +
                                   std::to_string(oh * ow) + " blocks for output " +
                                   sizes_str(output_size));
  }
  const int64_t n = x.size(0), c = x.size(1) / (w.kh * w.kw);
  const int64_t hp = output_size[0] + 2 * w.ph, wp = output_size[1] + 2 * w.pw;
  const Tensor parts = reshape(x, {n, c, w.kh * w.kw, oh, ow});
  Tensor out;
  for (int64_t i = 0; i < w.kh; ++i) {
    for (int64_t j = 0; j < w.kw; ++j) {
      const Tensor part = narrow(parts, 2, i * w.kw + j, 1);
      const Tensor in_cols = slice_backward(part, {n, c, 1, oh, wp}, 4, j * w.dw,
                                            j * w.dw + (ow - 1) * w.sw + 1, w.sw);
      const Tensor placed = slice_backward(in_cols, {n, c, 1, hp, wp}, 3, i * w.dh,
                                           i * w.dh + (oh - 1) * w.sh + 1, w.sh);
      out = out.defined() ? out + placed : placed;
    }
  }
  const Tensor image = narrow(narrow(reshape(out, {n, c, hp, wp}), 2, w.ph, output_size[0]), 3,
                              w.pw, output_size[1]);
  return self.dim() == 2 ? reshape(image, {c, output_size[0], output_size[1]}) : image;
}

}  // namespace lazygen
