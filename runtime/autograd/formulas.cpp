// Formula helpers (autograd/formulas.h).
#include "autograd/formulas.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/lazy/lazy_tensor.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/_polygamma.h"
#include "lazygen/generated/ops/cumsum.h"
#include "lazygen/generated/ops/div.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/lt.h"
#include "lazygen/generated/ops/max.h"
#include "lazygen/generated/ops/mm.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/neg.h"
#include "lazygen/generated/ops/permute.h"
#include "lazygen/generated/ops/scatter_add.h"
#include "lazygen/generated/ops/slice_backward.h"
#include "lazygen/generated/ops/sort.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"
#include "lazygen/shape.h"

namespace lazygen::autograd {
namespace {

// True when m (2-D) is stored transposed: its value is a t() node on the lazy device, which
// backends read through an index map; column-major strides elsewhere.
bool is_transposed_matrix(const Tensor& m) {
  if (m.device().is_lazy()) {
    const ir::Value& v = lazy::ir_value(m);
    return v.node && v.node->op() == ir::op_kind("t");
  }
  return m.stride(0) == 1 && m.stride(1) == m.size(0) && m.size(0) > 1;
}

// The reduced dims, wrapped and sorted (all of them for nullopt or empty).
std::vector<int64_t> reduced(const std::vector<int64_t>& sizes,
                             const std::optional<std::vector<int64_t>>& dims) {
  const auto rank = static_cast<int64_t>(sizes.size());
  std::vector<int64_t> out;
  if (!dims || dims->empty()) {
    for (int64_t d = 0; d < rank; ++d) out.push_back(d);
    return out;
  }
  for (int64_t d : *dims) out.push_back(wrap_dim("backward", d, std::max<int64_t>(rank, 1)));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// A reduction's output with the reduced dims back as size 1.
Tensor with_kept_dims(const Tensor& t, const std::vector<int64_t>& sizes,
                      const std::optional<std::vector<int64_t>>& dims, bool keepdim) {
  if (keepdim || sizes.empty()) return t;
  Tensor out = t;
  for (int64_t d : reduced(sizes, dims)) out = unsqueeze(out, d);
  return out;
}

}  // namespace

Tensor sum_backward(const Tensor& grad, const std::vector<int64_t>& sizes,
                    const std::optional<std::vector<int64_t>>& dims, bool keepdim) {
  return with_kept_dims(grad, sizes, dims, keepdim).expand(sizes);
}

Tensor mean_backward(const Tensor& grad, const std::vector<int64_t>& sizes,
                     const std::optional<std::vector<int64_t>>& dims, bool keepdim) {
  int64_t count = 1;
  for (int64_t d : reduced(sizes, dims)) count *= sizes[static_cast<size_t>(d)];
  return div(sum_backward(grad, sizes, dims, keepdim), Scalar(count));
}

Tensor reduced_extremum_backward(const Tensor& grad, const Tensor& self, const Tensor& result,
                     const std::vector<int64_t>& dims, bool keepdim) {
  const Tensor at_max = eq(self, with_kept_dims(result, self.sizes(), dims, keepdim));
  const std::vector<int64_t> all = reduced(self.sizes(), dims);
  const Tensor count = sum(at_max, std::optional<std::vector<int64_t>>(all), true);
  const Tensor share = div(with_kept_dims(grad, self.sizes(), dims, keepdim), count);
  return where(at_max, share, zeros_like(share));
}

Tensor value_selecting_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                        const std::vector<int64_t>& sizes, bool keepdim) {
  if (sizes.empty()) return grad;
  const std::optional<std::vector<int64_t>> dims = std::vector<int64_t>{dim};
  return scatter_add(zeros(sizes, grad.dtype(), grad.device()), dim,
                     with_kept_dims(indices, sizes, dims, keepdim),
                     with_kept_dims(grad, sizes, dims, keepdim));
}

Tensor cumsum_backward(const Tensor& grad, int64_t dim, const Tensor& self) {
  if (grad.dim() == 0) return grad.to(self.dtype());
  // Each input reaches every later output: the reversed running sum, total - cumsum + grad.
  const Tensor g = grad.to(self.dtype());
  return sum(g, std::vector<int64_t>{dim}, true) - cumsum(g, dim) + g;
}

Tensor permute_backward(const Tensor& grad, const std::vector<int64_t>& dims) {
  const auto rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> inverse(dims.size());
  for (int64_t i = 0; i < rank; ++i) {
    inverse[static_cast<size_t>(wrap_dim("permute", dims[static_cast<size_t>(i)], rank))] = i;
  }
  return permute(grad, inverse);
}

Tensor squeeze_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t dim) {
  if (sizes.empty()) return grad;
  const int64_t d = wrap_dim("squeeze", dim, static_cast<int64_t>(sizes.size()));
  return sizes[static_cast<size_t>(d)] == 1 ? unsqueeze(grad, d) : grad;
}

Tensor select_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t dim,
                       int64_t index) {
  const int64_t d = wrap_dim("select", dim, static_cast<int64_t>(sizes.size()));
  const int64_t size = sizes[static_cast<size_t>(d)];
  const int64_t i = index < 0 ? index + size : index;
  return slice_backward(unsqueeze(grad, d), sizes, d, i, i + 1, 1);
}

Tensor slice_view_backward(const Tensor& grad, const std::vector<int64_t>& sizes, int64_t dim,
                           std::optional<int64_t> start, std::optional<int64_t> end,
                           int64_t step) {
  return slice_backward(grad, sizes, dim, start.value_or(0),
                        end.value_or(std::numeric_limits<int64_t>::max()), step);
}

std::vector<Tensor> cat_backward(const Tensor& grad, const std::vector<Tensor>& tensors,
                                 int64_t dim) {
  std::vector<Tensor> out;
  int64_t offset = 0;
  const int64_t d = wrap_dim("cat", dim, std::max<int64_t>(grad.dim(), 1));
  for (const Tensor& t : tensors) {
    if (t.dim() == 1 && t.size(0) == 0 && grad.dim() != 1) {  // skipped by cat
      out.push_back(zeros_like(t));
      continue;
    }
    const int64_t n = t.size(d);
    out.push_back(narrow(grad, d, offset, n));
    offset += n;
  }
  return out;
}

Tensor abs_backward(const Tensor& grad, const Tensor& self) {
  const Tensor zero = zeros_like(grad);
  return where(gt(self, 0), grad, where(lt(self, zeros_like(self)), neg(grad), zero));
}

Tensor extremum_backward(const Tensor& grad, const Tensor& self, const Tensor& other, bool max) {
  const Tensor wins = max ? gt(self, other) : lt(self, other);
  return where(wins, grad, where(eq(self, other), div(grad, Scalar(2)), zeros_like(grad)));
}

Tensor polygamma_backward(const Tensor& grad, const Tensor& self, const Scalar& n) {
  return grad * _polygamma(self, Scalar(n.to<int64_t>() + 1));
}

Tensor maybe_multiply(const Tensor& t, const Scalar& s) {
  const bool one = (s.is_integral() && s.to<int64_t>() == 1) ||
                   (s.is_floating() && s.to<double>() == 1.0);
  return one ? t : t * s;
}

Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, const Tensor& mat2,
                        const Scalar& alpha) {
  if (is_transposed_matrix(mat2)) return maybe_multiply(mm(grad.t(), mat1), alpha).t();
  return maybe_multiply(mm(mat1.t(), grad), alpha);
}

}  // namespace lazygen::autograd
