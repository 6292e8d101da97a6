// The view ops' inverses (declared in the generated lazy_ops.h): `base` with `mutated_view`, a
// new value of the view, written back through the view. Each returns the new value of `base` as
// a lazy tensor, built from lazy ops so that the write-back is traced into the same graph.
// Arguments were validated when the view was traced. See Note [Lazy views].
#include <stdexcept>

#include "core/lazy/lazy_tensor.h"
#include "lazygen/generated/lazy_ops.h"
#include "lazygen/shape.h"

namespace lazygen::lazy::view_inverse {

Tensor view(const Tensor& base, const Tensor& mutated_view, const std::vector<int64_t>&) {
  return lazy::view(mutated_view, base.sizes());
}

Tensor reshape(const Tensor& base, const Tensor& mutated_view, const std::vector<int64_t>&) {
  return lazy::reshape(mutated_view, base.sizes());
}

Tensor flatten_using_ints(const Tensor& base, const Tensor& mutated_view, int64_t, int64_t) {
  return lazy::reshape(mutated_view, base.sizes());
}

Tensor squeeze_dim(const Tensor& base, const Tensor& mutated_view, int64_t) {
  return lazy::reshape(mutated_view, base.sizes());
}

Tensor unsqueeze(const Tensor& base, const Tensor& mutated_view, int64_t) {
  return lazy::reshape(mutated_view, base.sizes());
}

Tensor permute(const Tensor& base, const Tensor& mutated_view, const std::vector<int64_t>& dims) {
  std::vector<int64_t> inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    inverse[static_cast<size_t>(wrap_dim("permute", dims[i], base.dim()))] =
        static_cast<int64_t>(i);
  }
  return lazy::permute(mutated_view, inverse);
}

Tensor transpose_int(const Tensor&, const Tensor& mutated_view, int64_t dim0, int64_t dim1) {
  return lazy::transpose_int(mutated_view, dim0, dim1);
}

Tensor t(const Tensor&, const Tensor& mutated_view) {
  return lazy::t(mutated_view);
}

// Whether the view's new value is fill_'s or zero_'s: one value for every element, which
// PyTorch lets even a tensor whose elements share memory take.
bool one_value(const Tensor& mutated_view) {
  const ir::OpKind k = lazy::ir_value(mutated_view).node->op();
  return k == ir::OpKind::fill_inplace_scalar || k == ir::OpKind::zero_inplace;
}

// Writing to an expanded tensor is refused only where elements share memory and the write is
// not fill_ or zero_, as PyTorch does: a zero-size result writes nothing, one that enlarges no
// dim (only adds or keeps dims of size 1) holds base's elements once each, and after a fill_
// the first element along each enlarged dim stands for all of them.
Tensor expand(const Tensor& base, const Tensor& mutated_view, const std::vector<int64_t>&, bool) {
  if (mutated_view.numel() == 0) return base;
  const int64_t added = mutated_view.dim() - base.dim();
  std::vector<int64_t> enlarged;
  for (int64_t d = 0; d < mutated_view.dim(); ++d) {
    const int64_t from = d < added ? 1 : base.size(d - added);
    if (from == 1 && mutated_view.size(d) > 1) enlarged.push_back(d);
  }
  if (enlarged.empty() || one_value(mutated_view)) {
    Tensor first = mutated_view;
    for (int64_t d : enlarged) first = lazy::narrow(first, d, 0, 1);
    return lazy::view(first, base.sizes());
  }
  throw std::invalid_argument(
      "in-place update of a tensor expanded from " + base.shape().str() + " to " +
      mutated_view.shape().str() +
      ": several of its elements share one memory location (unsupported, as in PyTorch); "
      "clone() the expanded tensor before writing to it");
}

Tensor slice_tensor(const Tensor& base, const Tensor& mutated_view, int64_t dim,
                    std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  return lazy::slice_scatter(base, mutated_view, dim, start, end, step);
}

Tensor narrow(const Tensor& base, const Tensor& mutated_view, int64_t dim, int64_t start,
              int64_t length) {
  const int64_t d = wrap_dim("narrow", dim, base.dim());
  if (start < 0) start += base.size(d);
  return lazy::slice_scatter(base, mutated_view, d, start, start + length, 1);
}

Tensor select_int(const Tensor& base, const Tensor& mutated_view, int64_t dim, int64_t index) {
  const int64_t d = wrap_dim("select.int", dim, base.dim());
  if (index < 0) index += base.size(d);
  return lazy::slice_scatter(base, lazy::unsqueeze(mutated_view, d), d, index, index + 1, 1);
}

}  // namespace lazygen::lazy::view_inverse
