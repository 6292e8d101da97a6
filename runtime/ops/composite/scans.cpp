// Products, cumulative scans and order statistics (lazygen/composite.h): prod, cumprod,
// logcumsumexp, cummax, cummin, kthvalue, median, nanmedian, mode, searchsorted and bucketize,
// from narrow, pad, sort and pointwise ops.
//
// Note [Scans by doubling]
// A product over n elements pads them with 1s to the next power of two and multiplies halves,
// ceil(log2(n)) rounds of one pointwise op each. A cumulative scan doubles its reach
// (Hillis-Steele): after round r each element has combined the 2^r elements ending at it, by
// combining its value with the value 2^(r-1) places before it (the data shifted along the dim,
// padded where nothing precedes; logcumsumexp combines with logaddexp). Each round is one
// fusable pointwise group over the whole tensor, so the scan costs log2(n) passes instead of a
// kernel per op, and autograd differentiates through the rounds exactly (a zero factor included,
// where a division-based product gradient fails). cummax and cummin scan (value, index) pairs: a
// later segment's pair wins when its value is NaN or at least as large (small) as the earlier
// one's and that one is not NaN, which is PyTorch's sequential rule (NaN sticks, ties take the
// later index) applied to segments.
// The rounds depend on n only through ceil(log2(n)) (the product pads once, not at each odd
// round), so with dynamic shapes (Note [Dynamic shapes] in backend/graph.h) every n between two
// powers of two is one graph structure: a new length compiles only when it crosses a power of
// two (an exact power, which needs no padding, is a structure of its own).
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/argmax.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/floor.h"
#include "lazygen/generated/ops/gather.h"
#include "lazygen/generated/ops/ge.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/isnan.h"
#include "lazygen/generated/ops/le.h"
#include "lazygen/generated/ops/logaddexp.h"
#include "lazygen/generated/ops/logical_and.h"
#include "lazygen/generated/ops/logical_not.h"
#include "lazygen/generated/ops/logical_or.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/ne.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/sort.h"
#include "lazygen/generated/ops/squeeze.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

// A 0-d tensor as one element along dim 0 (PyTorch's reductions and scans take dim 0 or -1 of
// a 0-d tensor); others unchanged.
Tensor at_least_1d(const Tensor& self) {
  return self.dim() == 0 ? reshape(self, {1}) : self;
}

// Back to 0-d when `self` was.
Tensor like_rank(const Tensor& result, const Tensor& self) {
  return self.dim() == 0 ? reshape(result, {}) : result;
}

// constant_pad_nd's pad list for `before` elements ahead of dim d and `after` behind it.
std::vector<int64_t> pad_along(int64_t rank, int64_t d, int64_t before, int64_t after) {
  std::vector<int64_t> pad(static_cast<size_t>(2 * (rank - d)), 0);
  pad[pad.size() - 2] = before;
  pad[pad.size() - 1] = after;
  return pad;
}

// `x` shifted k places later along d, `fill` in the k places the shift opens.
Tensor shifted(const Tensor& x, int64_t d, int64_t k, const Scalar& fill) {
  return constant_pad_nd(narrow(x, d, 0, x.size(d) - k), pad_along(x.dim(), d, k, 0), fill);
}

// 0, 1, ..., size(d) - 1 along dim d, size 1 along x's other dims.
Tensor positions(const Tensor& x, int64_t d) {
  std::vector<int64_t> sizes(static_cast<size_t>(x.dim()), 1);
  sizes[static_cast<size_t>(d)] = x.size(d);
  return reshape(arange(x.size(d), DType::Int64, x.device()), sizes);
}

// The dtype a product or cumulative product of `self` accumulates in: `dtype` when given, else
// int64 for integers and bools (as PyTorch), else self's.
DType product_dtype(const Tensor& self, const std::optional<DType>& dtype) {
  if (dtype) return *dtype;
  return is_floating(self.dtype()) ? self.dtype() : DType::Int64;
}

// The product along d, which keeps size 1 (See Note [Scans by doubling]).
Tensor product_along(Tensor x, int64_t d) {
  if (x.size(d) == 0) {
    std::vector<int64_t> sizes = x.sizes();
    sizes[static_cast<size_t>(d)] = 1;
    return ones(sizes, x.dtype(), x.device());
  }
  int64_t padded = 1;
  while (padded < x.size(d)) padded *= 2;
  if (padded > x.size(d)) x = constant_pad_nd(x, pad_along(x.dim(), d, 0, padded - x.size(d)), 1);
  for (int64_t half = padded / 2; half >= 1; half /= 2) {
    x = narrow(x, d, 0, half) * narrow(x, d, half, half);
  }
  return x;
}

std::tuple<Tensor, Tensor> cumulative_extreme(const char* op, const Tensor& self, int64_t dim,
                                              bool largest) {
  Tensor v = at_least_1d(self);
  const int64_t d = wrap_dim(op, dim, v.dim());
  const Tensor pos = positions(v, d);
  Tensor i = pos + zeros(v.sizes(), DType::Int64, v.device());
  const bool floating = is_floating(v.dtype());
  for (int64_t k = 1; k < v.size(d); k *= 2) {
    const Tensor earlier = shifted(v, d, k, 0), earlier_i = shifted(i, d, k, 0);
    Tensor own = largest ? ge(v, earlier) : le(v, earlier);
    if (floating) own = logical_or(isnan(v), logical_and(logical_not(isnan(earlier)), own));
    const Tensor take_earlier = logical_and(ge(pos, k), logical_not(own));
    v = where(take_earlier, earlier, v);
    i = where(take_earlier, earlier_i, i);
  }
  return {like_rank(v, self), like_rank(i, self)};
}

// The values along d at the 0-based sorted positions `k` (int64, size 1 along d: one position
// per row), with their indices; keepdim as PyTorch's reductions.
std::tuple<Tensor, Tensor> sorted_at(const Tensor& x, int64_t d, const Tensor& k, bool keepdim) {
  auto [sorted, order] = sort(x, d);
  Tensor v = gather(sorted, d, k), i = gather(order, d, k);
  if (!keepdim) {
    v = squeeze(v, d);
    i = squeeze(i, d);
  }
  return {v, i};
}

// k (0-based) as the index tensor sorted_at takes: one value for every row.
Tensor row_index(const Tensor& x, int64_t d, int64_t k) {
  std::vector<int64_t> sizes = x.sizes();
  sizes[static_cast<size_t>(d)] = 1;
  return full(sizes, k, DType::Int64, x.device());
}

// A statistic over every element: `by_dim` of self flattened, NaN for an empty tensor.
template <class ByDim>
Tensor over_all(const Tensor& self, ByDim by_dim) {
  if (self.numel() == 0) {
    return full({}, std::numeric_limits<double>::quiet_NaN(), self.dtype(), self.device());
  }
  return std::get<0>(by_dim(reshape(self, {-1}), 0, false));
}

// PyTorch's order statistics and searches take numbers, not bools.
void check_not_bool(const char* op, const Tensor& x) {
  if (x.dtype() == DType::Bool) throw ShapeError(op, "takes numbers, not a bool tensor");
}

void check_reducible(const char* op, const Tensor& x, int64_t d) {
  if (x.size(d) == 0) {
    throw ShapeError(op, "expected dim " + std::to_string(d) + " of " + sizes_str(x.sizes()) +
                             " to have a non-zero size");
  }
}

}  // namespace

Tensor prod(const Tensor& self, std::optional<int64_t> dim, bool keepdim,
            std::optional<DType> dtype) {
  const Tensor x = at_least_1d(self).to(product_dtype(self, dtype));
  if (!dim) return reshape(product_along(reshape(x, {-1}), 0), {});
  const int64_t d = wrap_dim("prod", *dim, x.dim());
  const Tensor p = product_along(x, d);
  return like_rank(keepdim ? p : squeeze(p, d), self);
}

Tensor cumprod(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  Tensor x = at_least_1d(self).to(product_dtype(self, dtype));
  const int64_t d = wrap_dim("cumprod", dim, x.dim());
  for (int64_t k = 1; k < x.size(d); k *= 2) x = x * shifted(x, d, k, 1);
  return like_rank(x, self);
}

Tensor logcumsumexp(const Tensor& self, int64_t dim) {
  if (!is_floating(self.dtype())) {
    throw ShapeError("logcumsumexp",
                     "expected a floating tensor, got " + std::string(dtype_name(self.dtype())));
  }
  Tensor x = at_least_1d(self);
  const int64_t d = wrap_dim("logcumsumexp", dim, x.dim());
  for (int64_t k = 1; k < x.size(d); k *= 2) {
    x = logaddexp(x, shifted(x, d, k, -std::numeric_limits<double>::infinity()));
  }
  return like_rank(x, self);
}

std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) {
  return cumulative_extreme("cummax", self, dim, true);
}

std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) {
  return cumulative_extreme("cummin", self, dim, false);
}

std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  check_not_bool("kthvalue", self);
  const Tensor x = at_least_1d(self);
  const int64_t d = wrap_dim("kthvalue", dim, x.dim());
  if (k < 1 || k > x.size(d)) {
    throw ShapeError("kthvalue", "k = " + std::to_string(k) + " is out of range for dim " +
                                     std::to_string(d) + " of " + sizes_str(self.sizes()) +
                                     "; expected 1 <= k <= " + std::to_string(x.size(d)));
  }
  auto [v, i] = sorted_at(x, d, row_index(x, d, k - 1), keepdim || self.dim() == 0);
  return {like_rank(v, self), like_rank(i, self)};
}

std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim) {
  check_not_bool("median", self);
  const Tensor x = at_least_1d(self);
  const int64_t d = wrap_dim("median", dim, x.dim());
  check_reducible("median", x, d);
  auto [v, i] = sorted_at(x, d, row_index(x, d, (x.size(d) - 1) / 2), true);
  if (is_floating(x.dtype())) {  // any NaN: NaN at the first NaN's index
    const Tensor nan = isnan(x);
    const Tensor has_nan = any(nan, d, true);
    v = where(has_nan, full({}, std::numeric_limits<double>::quiet_NaN(), x.dtype(), x.device()),
              v);
    i = where(has_nan, argmax(nan.to(DType::Int32), d, true), i);
  }
  if (!keepdim && self.dim() != 0) {
    v = squeeze(v, d);
    i = squeeze(i, d);
  }
  return {like_rank(v, self), like_rank(i, self)};
}

// Note [Mode by runs]
// Sorted (stably) along dim, equal values form runs, and the elements of a run sit in the order
// of their indices. Each element's distance from the start of its run (the running maximum of
// the positions where a run starts) peaks at the last element of the longest runs, and argmax
// takes the first of those: the smallest of the most frequent values, at its last index, which
// is what PyTorch's CPU kernel returns. A NaN differs from every value, itself included, so each
// NaN is a run of one, as there.
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) {
  const Tensor x = at_least_1d(self);
  const int64_t d = wrap_dim("mode", dim, x.dim());
  if (x.size(d) == 0) {
    throw ShapeError("mode", "mode(): Expected reduction dim " + std::to_string(d) +
                                 " to have non-zero size. (input " + sizes_str(self.sizes()) + ")");
  }
  auto [sorted, order] = sort(x, d);
  const Tensor pos = positions(x, d);
  const Tensor starts_run = logical_or(eq(pos, 0), ne(sorted, shifted(sorted, d, 1, 0)));
  const Tensor start =
      std::get<0>(cummax(where(starts_run, pos, zeros({}, DType::Int64, x.device())), d));
  const Tensor best = argmax(pos - start, d, true);
  Tensor v = gather(sorted, d, best), i = gather(order, d, best);
  if (!keepdim && self.dim() != 0) {
    v = squeeze(v, d);
    i = squeeze(i, d);
  }
  return {like_rank(v, self), like_rank(i, self)};
}

Tensor median(const Tensor& self) {
  return over_all(self, [](const Tensor& x, int64_t d, bool k) { return median(x, d, k); });
}

std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim) {
  check_not_bool("nanmedian", self);
  if (!is_floating(self.dtype())) return median(self, dim, keepdim);
  const Tensor x = at_least_1d(self);
  const int64_t d = wrap_dim("nanmedian", dim, x.dim());
  check_reducible("nanmedian", x, d);
  // NaNs sort last: the lower median of the numbers sits at (count - 1) / 2, 0 for a row of NaNs.
  const Tensor count = sum(logical_not(isnan(x)), std::vector<int64_t>{d}, true, DType::Float64);
  const Tensor k =
      where(gt(count, 0), floor((count - 1.0) * 0.5), zeros({}, DType::Float64, x.device()));
  auto [v, i] = sorted_at(x, d, k.to(DType::Int64), keepdim || self.dim() == 0);
  return {like_rank(v, self), like_rank(i, self)};
}

Tensor nanmedian(const Tensor& self) {
  return over_all(self, [](const Tensor& x, int64_t d, bool k) { return nanmedian(x, d, k); });
}

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right) {
  const Tensor& seq = sorted_sequence;
  check_not_bool("searchsorted", seq);
  check_not_bool("searchsorted", self);
  if (seq.dim() == 0)
    throw ShapeError("searchsorted",
                     "expected a sorted sequence of at least 1 dim, got a 0-d tensor");
  if (seq.dim() > 1) {
    const std::vector<int64_t> lead(seq.sizes().begin(), seq.sizes().end() - 1);
    const std::vector<int64_t> self_sizes = self.sizes();
    if (self.dim() != seq.dim() || !std::equal(lead.begin(), lead.end(), self_sizes.begin())) {
      throw ShapeError("searchsorted", "expected the sorted sequence " + sizes_str(seq.sizes()) +
                                           " and the values " + sizes_str(self_sizes) +
                                           " to have the same sizes but the last");
    }
  }
  // [..., k, m]: whether each boundary lies below each value (PyTorch's test, NaN included); a
  // 1-d sequence serves every value.
  const Tensor s = seq.dim() == 1 ? seq : unsqueeze(seq, -2), v = unsqueeze(self, -1);
  const Tensor below = logical_not(right ? gt(s, v) : ge(s, v));
  return sum(below, std::vector<int64_t>{-1}, false, out_int32 ? DType::Int32 : DType::Int64);
}

Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  if (boundaries.dim() != 1) {
    throw ShapeError("bucketize", "expected 1-d boundaries, got " + sizes_str(boundaries.sizes()));
  }
  return searchsorted(boundaries, self, out_int32, right);
}

}  // namespace lazygen
