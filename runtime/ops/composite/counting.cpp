// Counting and finding values (lazygen/composite.h): bincount, unique, unique_consecutive,
// repeat_interleave and isin.
//
// Note [Counting by sorting]
// How many distinct values a tensor holds depends on the values, so each of these reads
// something on the host, once (on the lazy device, one sync), and computes the rest as ops:
//   - bincount reads self's extremes (the bins are 0..max), then adds ones, or the weights, into
//     the bins with one scatter_add.
//   - unique sorts (stably), marks where a run of equal values starts (the first element, and
//     each that differs from the one before: NaN differs from itself, so each NaN is a value of
//     its own), and reads those marks: the run starts are the result's positions and the
//     differences between them its counts, both known on the host. The inverse is each sorted
//     element's run (a running count of the starts) scattered back to where the sort took it
//     from. unique along a dim does the same for slices, flattened to rows and sorted
//     lexicographically by one stable sort per column, the last column first (radix order), so
//     it costs a sort per element of a slice: fine for the rows it is used on (labels, pairs,
//     small feature vectors), slow for wide ones.
//   - unique_consecutive is unique without the sort.
//   - repeat_interleave reads its repeats and builds the indices on the host.
//
// Note [Membership by sorting]
// isin needs no sync: the tests and then the elements, concatenated and sorted stably, put each
// run of equal values in order tests first, so an element equals some test exactly when the
// last test at or before it in the sorted order (a running maximum of the tests' positions)
// holds its value. That is one sort of n + m values and a log2(n + m)-pass scan, instead of the
// n * m comparisons of each element with each test; the answers go back to the elements' order
// through the sort's permutation.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/clamp_min.h"
#include "lazygen/generated/ops/cumsum.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/ge.h"
#include "lazygen/generated/ops/index_select.h"
#include "lazygen/generated/ops/logical_and.h"
#include "lazygen/generated/ops/logical_not.h"
#include "lazygen/generated/ops/lt.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/ne.h"
#include "lazygen/generated/ops/permute.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/scatter_add.h"
#include "lazygen/generated/ops/sort.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"
#include "ops/composite/host_extremes.h"

namespace lazygen {
namespace {

// The empty int64 tensor PyTorch returns for an inverse or counts not asked for.
Tensor not_asked(Device device) {
  return zeros({0}, DType::Int64, device);
}

// The positions of `mask`'s true elements (a 1-d bool tensor), read on the host: a sync on the
// lazy device.
std::vector<int64_t> true_positions(const Tensor& mask) {
  const Tensor flags = mask.cpu().contiguous();
  const bool* f = flags.data_ptr<bool>();
  std::vector<int64_t> at;
  for (int64_t i = 0; i < flags.numel(); ++i) {
    if (f[i]) at.push_back(i);
  }
  return at;
}

Tensor int64_tensor(const std::vector<int64_t>& values, Device device) {
  return tensor(values, IntList{static_cast<int64_t>(values.size())}, DType::Int64, device);
}

// Column c of rows [n, k], as [n].
Tensor column(const Tensor& rows, int64_t c) {
  return reshape(narrow(rows, 1, c, 1), {rows.size(0)});
}

// The order (int64 [n]) that sorts rows [n, k] (n, k >= 1) lexicographically, ties kept in
// order: a stable sort per column, the last column first (See Note [Counting by sorting]).
Tensor lexicographic_order(const Tensor& rows) {
  const int64_t k = rows.size(1);
  Tensor order = std::get<1>(sort(column(rows, k - 1), 0));
  for (int64_t c = k - 1; c-- > 0;) {
    order = index_select(order, 0, std::get<1>(sort(index_select(column(rows, c), 0, order), 0)));
  }
  return order;
}

// Where each of rows [n, k] (n >= 1) starts a run of equal rows: the first row, and each that
// differs from the row before in some column.
Tensor run_starts(const Tensor& rows) {
  const int64_t n = rows.size(0);
  const Tensor differs = any(ne(narrow(rows, 0, 1, n - 1), narrow(rows, 0, 0, n - 1)), 1);
  return cat({ones({1}, DType::Bool, rows.device()), differs});
}

// The runs of equal rows of `rows` [n, k] (n >= 1, in the order the runs are wanted): the first
// row of each, the inverse (for each row of the unsorted input, its run; `order` took sorted row
// i from input row order[i], none when rows are the input's) and the runs' lengths; an inverse or
// counts not asked for is not_asked().
std::tuple<Tensor, Tensor, Tensor> runs(const Tensor& rows, const std::optional<Tensor>& order,
                                        bool return_inverse, bool return_counts) {
  const int64_t n = rows.size(0);
  const Tensor starts_run = run_starts(rows);
  const std::vector<int64_t> starts = true_positions(starts_run);
  const Tensor values = index_select(rows, 0, int64_tensor(starts, rows.device()));
  Tensor inverse = not_asked(rows.device()), counts = not_asked(rows.device());
  if (return_inverse) {
    const Tensor run = cumsum(starts_run, 0, DType::Int64) - 1;
    inverse = order ? scatter(zeros({n}, DType::Int64, rows.device()), 0, *order, run) : run;
  }
  if (return_counts) {
    std::vector<int64_t> lengths(starts.size());
    for (size_t i = 0; i < starts.size(); ++i) {
      lengths[i] = (i + 1 < starts.size() ? starts[i + 1] : n) - starts[i];
    }
    counts = int64_tensor(lengths, rows.device());
  }
  return {values, inverse, counts};
}

// unique or unique_consecutive (`sort`) over every element.
std::tuple<Tensor, Tensor, Tensor> distinct_elements(const Tensor& self, bool sort_first,
                                                     bool return_inverse, bool return_counts) {
  const Tensor flat = reshape(self, {-1});
  const int64_t n = flat.numel();
  if (n == 0) {
    const Tensor inverse = zeros(self.sizes(), DType::Int64, self.device());  // empty like self
    return {flat, return_inverse ? inverse : not_asked(self.device()), not_asked(self.device())};
  }
  std::optional<Tensor> order;
  Tensor values = flat;
  if (sort_first) std::tie(values, order) = sort(flat, 0);
  auto [first, inverse, counts] =
      runs(reshape(values, {n, 1}), order, return_inverse, return_counts);
  if (return_inverse) inverse = reshape(inverse, self.sizes());
  return {reshape(first, {-1}), inverse, counts};
}

// PyTorch's checks of unique's dim: self has dims, and any zero-size dim is the one chosen.
int64_t checked_unique_dim(const char* op, const Tensor& self, int64_t dim) {
  if (self.dim() == 0) {
    throw ShapeError(
        op, "Dimension specified as " + std::to_string(dim) + " but tensor has no dimensions");
  }
  const int64_t d = wrap_dim(op, dim, self.dim());
  const std::vector<int64_t>& sizes = self.sizes();
  const auto empty_dims = std::count(sizes.begin(), sizes.end(), 0);
  if (empty_dims > 1) {
    throw ShapeError(op,
                     "Number of zero sized dimensions is more than one, so unique cannot be "
                     "applied (input " +
                         sizes_str(sizes) + ")");
  }
  if (empty_dims == 1 && sizes[static_cast<size_t>(d)] != 0) {
    throw ShapeError(op,
                     "There are 0 sized dimensions, and they aren't selected, so unique "
                     "cannot be applied (input " +
                         sizes_str(sizes) + ", dim " + std::to_string(d) + ")");
  }
  return d;
}

// unique or unique_consecutive (`sort_first`) of the slices along dim.
std::tuple<Tensor, Tensor, Tensor> distinct_slices(const char* op, const Tensor& self, int64_t dim,
                                                   bool sort_first, bool return_inverse,
                                                   bool return_counts) {
  const int64_t d = checked_unique_dim(op, self, dim);
  const int64_t n = self.size(d);
  if (n == 0) {
    return {self, not_asked(self.device()), not_asked(self.device())};  // no slice to count
  }
  std::vector<int64_t> to_front(static_cast<size_t>(self.dim()));
  std::iota(to_front.begin(), to_front.end(), 0);
  std::rotate(to_front.begin(), to_front.begin() + d, to_front.begin() + d + 1);
  const Tensor moved = permute(self, to_front);
  const Tensor flat = reshape(moved, {n, -1});
  std::optional<Tensor> order;
  Tensor rows = flat;
  if (sort_first) {
    order = lexicographic_order(flat);
    rows = index_select(flat, 0, *order);
  }
  auto [first, inverse, counts] = runs(rows, order, return_inverse, return_counts);
  std::vector<int64_t> sizes = moved.sizes();
  sizes[0] = first.size(0);
  std::vector<int64_t> back(to_front.size());
  for (size_t i = 0; i < to_front.size(); ++i) {
    back[static_cast<size_t>(to_front[i])] = static_cast<int64_t>(i);
  }
  return {permute(reshape(first, sizes), back), inverse, counts};
}

}  // namespace

Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  if (!is_integral(self.dtype())) {
    throw ShapeError("bincount", "bincount only supports 1-d non-negative integral inputs. (got " +
                                     std::string(dtype_name(self.dtype())) + ")");
  }
  if (minlength < 0) throw ShapeError("bincount", "minlength should be >= 0");
  if (weights && weights->device() != self.device()) {
    throw ShapeError("bincount", "expected weights on the input's device, got " +
                                     weights->device().str() + " and " + self.device().str());
  }
  if (self.dim() == 1 && self.numel() == 0) return zeros({minlength}, DType::Int64, self.device());
  if (self.dim() != 1) {
    throw ShapeError("bincount", "bincount only supports 1-d non-negative integral inputs. (got " +
                                     sizes_str(self.sizes()) + ")");
  }
  const auto [smallest, largest] = host_extremes<int64_t>(self);
  if (smallest < 0) {
    throw ShapeError("bincount",
                     "bincount only supports 1-d non-negative integral inputs. (its "
                     "smallest value is " +
                         std::to_string(smallest) + ")");
  }
  if (weights && (weights->dim() != 1 || weights->size(0) != self.size(0))) {
    throw ShapeError("bincount", "weights should be 1-d and have the same length as input (got " +
                                     sizes_str(weights->sizes()) + " for input " +
                                     sizes_str(self.sizes()) + ")");
  }
  const int64_t bins = std::max(largest + 1, minlength);
  const DType t = !weights                             ? DType::Int64
                  : weights->dtype() == DType::Float32 ? DType::Float32
                                                       : DType::Float64;
  const Tensor added = weights ? weights->to(t) : ones(self.sizes(), t, self.device());
  return scatter_add(zeros({bins}, t, self.device()), 0, self.to(DType::Int64), added);
}

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& self, bool /*sorted: it always sorts*/,
                                          bool return_inverse, bool return_counts,
                                          std::optional<int64_t> dim) {
  if (dim) return distinct_slices("unique", self, *dim, true, return_inverse, return_counts);
  return distinct_elements(self, true, return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse,
                                                      bool return_counts,
                                                      std::optional<int64_t> dim) {
  if (dim) {
    return distinct_slices("unique_consecutive", self, *dim, false, return_inverse, return_counts);
  }
  return distinct_elements(self, false, return_inverse, return_counts);
}

Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  if (repeats.dim() != 1) {
    throw ShapeError("repeat_interleave",
                     "repeat_interleave only accept 1D vector as repeat (got " +
                         sizes_str(repeats.sizes()) + ")");
  }
  if (!is_integral(repeats.dtype())) {
    throw ShapeError("repeat_interleave",
                     "repeats must be integers, got " + std::string(dtype_name(repeats.dtype())));
  }
  const Tensor counts = repeats.to(DType::Int64).cpu().contiguous();  // the sync
  const int64_t* r = counts.data_ptr<int64_t>();
  std::vector<int64_t> indices;
  for (int64_t i = 0; i < counts.numel(); ++i) {
    if (r[i] < 0) throw ShapeError("repeat_interleave", "repeats can not be negative");
    indices.insert(indices.end(), static_cast<size_t>(r[i]), i);
  }
  const auto total = static_cast<int64_t>(indices.size());
  if (output_size && *output_size != total) {
    throw ShapeError("repeat_interleave", "allocated size does not match required size (" +
                                              std::to_string(*output_size) + " for " +
                                              std::to_string(total) + " repeats)");
  }
  return int64_tensor(indices, repeats.device());
}

// See Note [Membership by sorting].
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool invert) {
  const DType t = promote_types(elements.dtype(), test_elements.dtype());
  const int64_t n = elements.numel(), m = test_elements.numel();
  const Device device = elements.device();
  if (n == 0 || m == 0) return full(elements.sizes(), Scalar(invert), DType::Bool, device);
  const Tensor both = cat({reshape(test_elements, {-1}).to(t), reshape(elements, {-1}).to(t)});
  auto [sorted, order] = sort(both, 0);
  const Tensor pos = arange(n + m, DType::Int64, device);
  const Tensor last_test =
      std::get<0>(cummax(where(lt(order, m), pos, full({}, Scalar(-1), DType::Int64, device)), 0));
  const Tensor matched =
      logical_and(ge(last_test, 0), eq(index_select(sorted, 0, clamp_min(last_test, 0)), sorted));
  const Tensor by_position =
      scatter(zeros({n + m}, DType::Int64, device), 0, order, matched.to(DType::Int64));
  const Tensor found = reshape(ne(narrow(by_position, 0, m, n), 0), elements.sizes());
  return invert ? logical_not(found) : found;
}

}  // namespace lazygen
