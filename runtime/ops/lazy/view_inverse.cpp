// The view ops' inverses (declared in the generated lazy_ops.h): `base` with `mutated_view`, a
// new value of the view, written back through the view. Each returns the new value of `base` as
// a lazy tensor, built from lazy ops so that the write-back is traced into the same graph.
// Arguments were validated when the view was traced. See Note [Lazy views].
#include <algorithm>
#include <optional>
#include <stdexcept>

#include "core/lazy/lazy_tensor.h"
#include "lazygen/generated/ir/slice_scatter.h"
#include "lazygen/generated/lazy/expand.h"
#include "lazygen/generated/lazy/flatten_using_ints.h"
#include "lazygen/generated/lazy/narrow.h"
#include "lazygen/generated/lazy/permute.h"
#include "lazygen/generated/lazy/reshape.h"
#include "lazygen/generated/lazy/select_int.h"
#include "lazygen/generated/lazy/slice_scatter.h"
#include "lazygen/generated/lazy/slice_tensor.h"
#include "lazygen/generated/lazy/squeeze_dim.h"
#include "lazygen/generated/lazy/t.h"
#include "lazygen/generated/lazy/transpose_int.h"
#include "lazygen/generated/lazy/unsqueeze.h"
#include "lazygen/generated/lazy/view.h"
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

// What a write through a view of an expanded tensor can leave in the expanded value
// (See expand below): the written part comes from fill_ or zero_ (one value for every element,
// which PyTorch lets even elements sharing memory take), possibly placed by the inverses of
// select or slice (slice_scatter) and rearranged by those of the views that keep every element
// (a rearrangement of one value is one value).
const ir::Node& written_node(const ir::Node& node) {
  switch (node.op()) {
    case ir::op_kind("slice_scatter"):
      return written_node(*node.operands()[1].node);
    case ir::op_kind("unsqueeze"):
    case ir::op_kind("squeeze.dim"):
    case ir::op_kind("view"):
    case ir::op_kind("reshape"):
    case ir::op_kind("flatten.using_ints"):
    case ir::op_kind("permute"):
    case ir::op_kind("transpose.int"):
    case ir::op_kind("t"):
      return written_node(*node.operands()[0].node);
    default:
      return node;
  }
}

bool one_value(const Tensor& mutated_view) {
  const ir::OpKind k = written_node(*lazy::ir_value(mutated_view).node).op();
  return k == ir::op_kind("fill_.Scalar") || k == ir::op_kind("zero_");
}

// The single index along dim `d` that the expanded value's last write covered, when it is a
// slice_scatter of one index along d (the inverse of select, or of a one-wide slice).
std::optional<int64_t> written_index(const Tensor& mutated_view, int64_t d) {
  const ir::Node& node = *lazy::ir_value(mutated_view).node;
  if (node.op() != ir::op_kind("slice_scatter")) return std::nullopt;
  const auto& scatter = static_cast<const ir::SliceScatter&>(node);
  const int64_t size = mutated_view.size(d);
  if (wrap_dim("slice_scatter", scatter.dim, mutated_view.dim()) != d) return std::nullopt;
  int64_t first = scatter.start.value_or(0), last = scatter.end.value_or(size);
  if (first < 0) first += size;
  if (last < 0) last += size;
  last = std::min(last, size);
  if (first < 0 || first >= last || first + scatter.step < last) return std::nullopt;
  return first;
}

// Writing to an expanded tensor is refused only where the write puts different values into
// elements that share memory, as PyTorch refuses it. Along each dim the expand enlarged, one
// element stands for the base's: the one index a select or one-wide slice wrote, or any (the
// first) when every written element has one value (fill_, zero_); a zero-size result writes
// nothing, and one that enlarges no dim holds base's elements once each.
Tensor expand(const Tensor& base, const Tensor& mutated_view, const std::vector<int64_t>&, bool) {
  if (mutated_view.numel() == 0) return base;
  const int64_t added = mutated_view.dim() - base.dim();
  Tensor first = mutated_view;
  std::vector<int64_t> shared;  // enlarged dims no single write explains
  for (int64_t d = 0; d < mutated_view.dim(); ++d) {
    const int64_t from = d < added ? 1 : base.size(d - added);
    if (from != 1 || mutated_view.size(d) <= 1) continue;
    if (std::optional<int64_t> i = written_index(mutated_view, d)) {
      first = lazy::narrow(first, d, *i, 1);
    } else {
      shared.push_back(d);
    }
  }
  if (shared.empty() || one_value(mutated_view)) {
    for (int64_t d : shared) first = lazy::narrow(first, d, 0, 1);
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
