// Bags of embeddings (lazygen/composite.h): PyTorch's _embedding_bag in its sum and mean modes,
// its dense backward and its per-sample weights' backward, from index_select, index_add and
// cumsum.
//
// Note [Bags by index_add]
// offsets hold each bag's first position in indices. Marking each start with index_add (an empty
// bag marks the position of the next bag's start too) and a running sum of the marks gives each
// index its bag (offset2bag); the bags are then index_add of the selected weight rows at their
// bags, each row scaled by its per-sample weight. An index equal to padding_idx (when >= 0)
// adds nothing and is not counted in a mean's bag size. With include_last_offset the last offset
// ends the last bag instead of starting one. The backward reads offset2bag and bag sizes as the
// forward returned them. The shapes follow PyTorch's; the checks that need offsets' values
// (offsets[0] == 0, non-decreasing) would sync the lazy device and are left to index_add's range
// check when the graph runs.
#include <string>
#include <tuple>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/clamp_min.h"
#include "lazygen/generated/ops/cumsum.h"
#include "lazygen/generated/ops/index_add.h"
#include "lazygen/generated/ops/index_select.h"
#include "lazygen/generated/ops/ne.h"
#include "lazygen/generated/ops/slice.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

constexpr int64_t kSum = 0, kMean = 1;

void check_bags(const char* op, const Tensor& weight, const Tensor& indices, const Tensor& offsets,
                int64_t mode, const std::optional<Tensor>& per_sample_weights) {
  if (weight.dim() != 2) {
    throw ShapeError(op, "weight must be 2-D, got shape " + sizes_str(weight.sizes()));
  }
  if (indices.dim() != 1 || offsets.dim() != 1) {
    throw ShapeError(op, "input has to be a 1D or 2D Tensor, but got indices " +
                             sizes_str(indices.sizes()) + " and offsets " +
                             sizes_str(offsets.sizes()));
  }
  if (indices.dtype() != DType::Int64 || offsets.dtype() != DType::Int64) {
    throw ShapeError(op, "indices and offsets must be int64");
  }
  if (mode != kSum && mode != kMean) {
    throw ShapeError(op, "mode " + std::to_string(mode) + " is not 0 (sum) or 1 (mean)");
  }
  if (per_sample_weights) {
    if (mode != kSum) {
      throw ShapeError(op,
                       "embedding_bag: per_sample_weights was not None. per_sample_weights is "
                       "only supported for mode='sum'");
    }
    if (per_sample_weights->dtype() != weight.dtype()) {
      throw ShapeError(op, "per_sample_weights of dtype " +
                               std::string(dtype_name(per_sample_weights->dtype())) +
                               " must have weight's dtype " +
                               std::string(dtype_name(weight.dtype())));
    }
    if (per_sample_weights->sizes() != indices.sizes()) {
      throw ShapeError(op, "per_sample_weights " + sizes_str(per_sample_weights->sizes()) +
                               " must have the shape of indices " + sizes_str(indices.sizes()));
    }
  }
}

// Whether each index counts (false where it is padding_idx), as a [N] bool tensor; nullopt when
// every index counts.
std::optional<Tensor> counted(const Tensor& indices, int64_t padding_idx) {
  if (padding_idx < 0) return std::nullopt;
  return ne(indices, padding_idx);
}

// [N, D] rows with the uncounted ones zeroed (not multiplied: their values may be inf or NaN).
Tensor only_counted(const Tensor& rows, const std::optional<Tensor>& keep) {
  if (!keep) return rows;
  return where(unsqueeze(*keep, 1), rows, zeros({}, rows.dtype(), rows.device()));
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, int64_t mode,
    const std::optional<Tensor>& per_sample_weights, bool include_last_offset,
    int64_t padding_idx) {
  const char* op = "_embedding_bag";
  check_bags(op, weight, indices, offsets, mode, per_sample_weights);
  const int64_t n = indices.numel(), width = weight.size(1);
  const int64_t bags =
      include_last_offset ? std::max<int64_t>(offsets.numel() - 1, 0) : offsets.numel();
  const Device device = weight.device();
  const Tensor starts = include_last_offset ? slice(offsets, 0, 0, bags) : offsets;
  const Tensor marks = index_add(zeros({n + 1}, DType::Int64, device), 0, starts,
                                 ones({bags}, DType::Int64, device));
  const Tensor offset2bag = slice(cumsum(marks, 0), 0, 0, n) - 1;
  const std::optional<Tensor> keep = counted(indices, padding_idx);
  Tensor rows = only_counted(index_select(weight, 0, indices), keep);
  if (per_sample_weights) rows = rows * unsqueeze(*per_sample_weights, 1);
  Tensor output = index_add(zeros({bags, width}, weight.dtype(), device), 0, offset2bag, rows);
  const Tensor each = keep ? keep->to(DType::Int64) : ones({n}, DType::Int64, device);
  const Tensor bag_size = index_add(zeros({bags}, DType::Int64, device), 0, offset2bag, each);
  if (mode == kMean) output = output / unsqueeze(clamp_min(bag_size, 1), 1).to(weight.dtype());
  // PyTorch returns the bag sizes as max_indices too outside max mode, and zeros in sum mode.
  const Tensor sizes = mode == kMean ? bag_size : zeros({bags}, DType::Int64, device);
  return {output, offset2bag, sizes, sizes};
}

Tensor embedding_bag_dense_backward(const Tensor& grad, const Tensor& indices,
                                    const Tensor& offset2bag, const Tensor& bag_size,
                                    int64_t num_weights, bool scale_grad_by_freq, int64_t mode,
                                    const std::optional<Tensor>& per_sample_weights,
                                    int64_t padding_idx) {
  const char* op = "_embedding_bag_dense_backward";
  if (grad.dim() != 2 || indices.dim() != 1 || offset2bag.sizes() != indices.sizes()) {
    throw ShapeError(op, "expected grad [bags, D], indices [N] and offset2bag [N], got " +
                             sizes_str(grad.sizes()) + ", " + sizes_str(indices.sizes()) + " and " +
                             sizes_str(offset2bag.sizes()));
  }
  const Device device = grad.device();
  Tensor rows = only_counted(index_select(grad, 0, offset2bag), counted(indices, padding_idx));
  if (mode == kMean) {
    const Tensor size = index_select(clamp_min(bag_size, 1), 0, offset2bag).to(grad.dtype());
    rows = rows / unsqueeze(size, 1);
  }
  if (per_sample_weights) rows = rows * unsqueeze(*per_sample_weights, 1);
  if (scale_grad_by_freq) {
    const Tensor seen = index_add(zeros({num_weights}, DType::Int64, device), 0, indices,
                                  ones({indices.numel()}, DType::Int64, device));
    rows = rows / unsqueeze(index_select(seen, 0, indices).to(grad.dtype()), 1);
  }
  return index_add(zeros({num_weights, grad.size(1)}, grad.dtype(), device), 0, indices, rows);
}

Tensor embedding_bag_per_sample_weights_backward(const Tensor& grad, const Tensor& weight,
                                                 const Tensor& indices, const Tensor& offset2bag,
                                                 int64_t padding_idx) {
  const Tensor products = index_select(grad, 0, offset2bag) * index_select(weight, 0, indices);
  return sum(only_counted(products, counted(indices, padding_idx)), std::vector<int64_t>{1});
}

}  // namespace lazygen
