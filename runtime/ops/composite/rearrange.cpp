// stack, repeat, flip, tril/triu, the copying views (as_strided_copy, diagonal_copy, unfold_copy)
// with their scatters and backward ops, scatter, index_fill, index_copy, take, put, masked_select,
// trace and mv (lazygen/composite.h), from cat, expand, reshape, where, index_select, index_add
// and scatter_add.
//
// Note [Strided copies as gathers]
// A lazy tensor is a value, not a storage: as_strided_copy, diagonal_copy and unfold_copy read
// the elements a strided view of self's contiguous layout would see. Their positions are known
// when the op is traced (sizes only), so each is one index_select of the flattened self with an
// index built on the host, and each scatter one index_add into it (positions a view reaches
// twice receive the sum). Autograd differentiates both through those ops.
#include <algorithm>
#include <string>

#include "core/tensor/tensor_impl.h"
#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/clamp_max.h"
#include "lazygen/generated/ops/clamp_min.h"
#include "lazygen/generated/ops/cumsum.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/ge.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/index_add.h"
#include "lazygen/generated/ops/index_select.h"
#include "lazygen/generated/ops/le.h"
#include "lazygen/generated/ops/lt.h"
#include "lazygen/generated/ops/mm.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/permute.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/scatter_add.h"
#include "lazygen/generated/ops/scatter_reduce.h"
#include "lazygen/generated/ops/slice_scatter.h"
#include "lazygen/generated/ops/squeeze.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

// An int64 index tensor on `device`.
Tensor index_on(const std::vector<int64_t>& positions, Device device) {
  return tensor(positions, std::nullopt, DType::Int64, device);
}

// The contiguous-layout positions of every element of a `sizes`/`strides` view starting at
// `offset`, in row-major order of the view (Note [Strided copies as gathers]).
std::vector<int64_t> strided_positions(const std::vector<int64_t>& sizes,
                                       const std::vector<int64_t>& strides, int64_t offset) {
  std::vector<int64_t> out{offset};
  for (size_t d = 0; d < sizes.size(); ++d) {
    std::vector<int64_t> next;
    next.reserve(out.size() * static_cast<size_t>(std::max<int64_t>(sizes[d], 0)));
    for (int64_t base : out) {
      for (int64_t i = 0; i < sizes[d]; ++i) next.push_back(base + i * strides[d]);
    }
    out = std::move(next);
  }
  return out;
}

// Checks an as_strided request against self's element count, as PyTorch checks it against the
// storage's, and returns the positions it reads.
std::vector<int64_t> checked_positions(const char* op, const Tensor& self,
                                       const std::vector<int64_t>& size,
                                       const std::vector<int64_t>& stride, int64_t offset) {
  if (size.size() != stride.size()) {
    throw ShapeError(op, "mismatch in length of strides and shape: " + sizes_str(size) + " and " +
                             sizes_str(stride));
  }
  int64_t last = offset;  // the highest position read
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] < 0 || stride[d] < 0) {
      throw ShapeError(op, "sizes and strides must be non-negative, got " + sizes_str(size) +
                               " and " + sizes_str(stride));
    }
    if (size[d] == 0) return {};
    last += (size[d] - 1) * stride[d];
  }
  if (offset < 0 || last >= self.numel()) {
    throw ShapeError(op, "sizes " + sizes_str(size) + ", strides " + sizes_str(stride) +
                             " and offset " + std::to_string(offset) + " reach element " +
                             std::to_string(last) + " of a tensor of shape " +
                             sizes_str(self.sizes()) + " (" + std::to_string(self.numel()) +
                             " elements)");
  }
  return strided_positions(size, stride, offset);
}

// diagonal's view of self: sizes, strides and offset (the other dims, then the diagonal).
struct DiagonalView {
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
};

DiagonalView diagonal_view(const char* op, const Tensor& self, int64_t offset, int64_t dim1,
                           int64_t dim2) {
  if (self.dim() < 2) {
    throw ShapeError(op,
                     "expected a tensor of at least 2 dims, got shape " + sizes_str(self.sizes()));
  }
  const int64_t d1 = wrap_dim(op, dim1, self.dim()), d2 = wrap_dim(op, dim2, self.dim());
  if (d1 == d2) {
    throw ShapeError(op, "diagonal dimensions cannot be identical " + std::to_string(dim1) + ", " +
                             std::to_string(dim2));
  }
  const std::vector<int64_t> strides = contiguous_strides(self.sizes());
  DiagonalView v;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d == d1 || d == d2) continue;
    v.sizes.push_back(self.size(d));
    v.strides.push_back(strides[static_cast<size_t>(d)]);
  }
  const int64_t rows = self.size(d1), cols = self.size(d2);
  const int64_t length =
      offset >= 0 ? std::min(rows, cols - offset) : std::min(rows + offset, cols);
  v.sizes.push_back(std::max<int64_t>(length, 0));
  v.strides.push_back(strides[static_cast<size_t>(d1)] + strides[static_cast<size_t>(d2)]);
  if (length > 0) {
    v.offset = offset >= 0 ? offset * strides[static_cast<size_t>(d2)]
                           : -offset * strides[static_cast<size_t>(d1)];
  }
  return v;
}

// A triangle mask [rows, cols]: true where col - row <= diagonal (lower) or >= diagonal (upper).
Tensor triangle(const char* op, const Tensor& self, int64_t diagonal, bool lower) {
  if (self.dim() < 2) {
    throw ShapeError(
        op, "input tensor must have at least 2 dimensions, got shape " + sizes_str(self.sizes()));
  }
  const Tensor rows = reshape(arange(self.size(-2), DType::Int64, self.device()), {-1, 1});
  const Tensor cols = arange(self.size(-1), DType::Int64, self.device());
  const Tensor offset = cols - rows;
  const Tensor keep = lower ? le(offset, diagonal) : ge(offset, diagonal);
  return where(keep, self, zeros({}, self.dtype(), self.device()));
}

}  // namespace

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  if (tensors.empty()) throw ShapeError("stack", "expects a non-empty list of tensors");
  const int64_t d = wrap_dim("stack", dim, tensors[0].dim() + 1);
  std::vector<Tensor> parts;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].sizes() != tensors[0].sizes()) {
      throw ShapeError("stack", "expects each tensor to be equal size, but got " +
                                    sizes_str(tensors[0].sizes()) + " at entry 0 and " +
                                    sizes_str(tensors[i].sizes()) + " at entry " +
                                    std::to_string(i));
    }
    parts.push_back(unsqueeze(tensors[i], d));
  }
  return cat(parts, d);
}

Tensor repeat(const Tensor& self, const std::vector<int64_t>& repeats) {
  const auto rank = static_cast<int64_t>(repeats.size());
  if (rank < self.dim()) {
    throw ShapeError("repeat", "number of dimensions of repeat dims " + sizes_str(repeats) +
                                   " can not be smaller than number of dimensions of tensor " +
                                   sizes_str(self.sizes()));
  }
  std::vector<int64_t> padded(static_cast<size_t>(rank - self.dim()), 1), spread, expanded, out;
  padded.insert(padded.end(), self.sizes().begin(), self.sizes().end());
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t r = repeats[static_cast<size_t>(d)], s = padded[static_cast<size_t>(d)];
    if (r < 0)
      throw ShapeError("repeat", "repeats must be non-negative, got " + sizes_str(repeats));
    spread.insert(spread.end(), {1, s});      // each dim of size s gets a size-1 dim before it ...
    expanded.insert(expanded.end(), {r, s});  // ... which is expanded to the repeat count
    out.push_back(r * s);
  }
  return reshape(expand(reshape(self, spread), expanded), out);
}

Tensor flip(const Tensor& self, const std::vector<int64_t>& dims) {
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(self.dim(), 1)), false);
  Tensor out = self;
  for (int64_t dim : dims) {
    const int64_t d = wrap_dim("flip", dim, self.dim());
    if (seen[static_cast<size_t>(d)]) {
      throw ShapeError("flip",
                       "dim " + std::to_string(d) + " appears multiple times in the list of dims");
    }
    seen[static_cast<size_t>(d)] = true;
    if (self.dim() == 0) continue;
    const int64_t n = self.size(d);
    out = index_select(out, d, arange(n - 1, -1, -1, DType::Int64, self.device()));
  }
  return dims.empty() || self.dim() == 0 ? self.clone() : out;
}

Tensor roll(const Tensor& self, const std::vector<int64_t>& shifts,
            const std::vector<int64_t>& dims) {
  if (shifts.empty()) throw ShapeError("roll", "`shifts` required");
  if (dims.empty() && shifts.size() == 1) {
    return reshape(roll(reshape(self, {-1}), shifts, {0}), self.sizes());
  }
  if (shifts.size() != dims.size()) {
    throw ShapeError("roll",
                     "shifts and dimensions must align. shifts: " + std::to_string(shifts.size()) +
                         ", dims:" + std::to_string(dims.size()));
  }
  Tensor out = self;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim("roll", dims[i], std::max<int64_t>(self.dim(), 1));
    const int64_t n = self.dim() == 0 ? 1 : self.size(d);
    const int64_t s = n == 0 ? 0 : (shifts[i] % n + n) % n;
    if (s == 0) continue;
    out = cat({narrow(out, d, n - s, s), narrow(out, d, 0, n - s)}, d);
  }
  return out.is_same(self) ? self.clone() : out;
}

namespace {

// PyTorch's checks of a pixel shuffle (or unshuffle) of self by r.
void check_pixel_shuffle(const char* op, const Tensor& self, int64_t r, bool shuffle) {
  const std::string name = shuffle ? "pixel_shuffle" : "pixel_unshuffle";
  const std::string factor = shuffle ? "upscale_factor" : "downscale_factor";
  if (self.dim() < 3) {
    throw ShapeError(op, name +
                             " expects input to have at least 3 dimensions, but got input with " +
                             std::to_string(self.dim()) + " dimension(s)");
  }
  if (r <= 0)
    throw ShapeError(op, name + " expects a positive " + factor + ", but got " + std::to_string(r));
  const int64_t n = self.dim();
  if (shuffle && self.size(n - 3) % (r * r) != 0) {
    throw ShapeError(
        op,
        "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
        "upscale_factor, but input.size(-3)=" +
            std::to_string(self.size(n - 3)) + " is not divisible by " + std::to_string(r * r));
  }
  if (!shuffle && (self.size(n - 2) % r != 0 || self.size(n - 1) % r != 0)) {
    throw ShapeError(
        op,
        "pixel_unshuffle expects height and width to be divisible by downscale_factor, but got " +
            sizes_str(self.sizes()) + " and " + std::to_string(r));
  }
}

}  // namespace

Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor) {
  const int64_t r = upscale_factor;
  check_pixel_shuffle("pixel_shuffle", self, r, true);
  std::vector<int64_t> lead(self.sizes().begin(), self.sizes().end() - 3);
  const auto k = static_cast<int64_t>(lead.size());
  const int64_t c = self.size(k) / (r * r), h = self.size(k + 1), w = self.size(k + 2);
  std::vector<int64_t> split = lead, order, out = lead;
  split.insert(split.end(), {c, r, r, h, w});
  for (int64_t i = 0; i < k; ++i) order.push_back(i);
  order.insert(order.end(), {k, k + 3, k + 1, k + 4, k + 2});  // C, H, r, W, r
  out.insert(out.end(), {c, h * r, w * r});
  return reshape(permute(reshape(self, split), order), out);
}

Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor) {
  const int64_t r = downscale_factor;
  check_pixel_shuffle("pixel_unshuffle", self, r, false);
  std::vector<int64_t> lead(self.sizes().begin(), self.sizes().end() - 3);
  const auto k = static_cast<int64_t>(lead.size());
  const int64_t c = self.size(k), h = self.size(k + 1) / r, w = self.size(k + 2) / r;
  std::vector<int64_t> split = lead, order, out = lead;
  split.insert(split.end(), {c, h, r, w, r});
  for (int64_t i = 0; i < k; ++i) order.push_back(i);
  order.insert(order.end(), {k, k + 2, k + 4, k + 1, k + 3});  // C, r, r, H, W
  out.insert(out.end(), {c * r * r, h, w});
  return reshape(permute(reshape(self, split), order), out);
}

Tensor tril(const Tensor& self, int64_t diagonal) {
  return triangle("tril", self, diagonal, true);
}
Tensor triu(const Tensor& self, int64_t diagonal) {
  return triangle("triu", self, diagonal, false);
}

Tensor as_strided_copy(const Tensor& self, const std::vector<int64_t>& size,
                       const std::vector<int64_t>& stride, std::optional<int64_t> storage_offset) {
  const std::vector<int64_t> positions =
      checked_positions("as_strided_copy", self, size, stride, storage_offset.value_or(0));
  if (positions.empty()) return zeros(size, self.dtype(), self.device());
  return reshape(index_select(reshape(self, {-1}), 0, index_on(positions, self.device())), size);
}

Tensor as_strided_scatter(const Tensor& self, const Tensor& src, const std::vector<int64_t>& size,
                          const std::vector<int64_t>& stride,
                          std::optional<int64_t> storage_offset) {
  const std::vector<int64_t> positions =
      checked_positions("as_strided_scatter", self, size, stride, storage_offset.value_or(0));
  if (src.sizes() != size) {
    throw ShapeError("as_strided_scatter",
                     "expected src to have a size equal to the slice of self: src " +
                         sizes_str(src.sizes()) + ", slice " + sizes_str(size));
  }
  if (positions.empty()) return self.clone();
  const Tensor index = index_on(positions, self.device());
  const Tensor flat = reshape(self, {-1});
  // Zero the positions written, then add src there: a scatter that autograd can differentiate.
  std::vector<bool> written(static_cast<size_t>(self.numel()), false);
  for (int64_t p : positions) written[static_cast<size_t>(p)] = true;
  const Tensor cleared = where(tensor(written, std::nullopt, DType::Bool, self.device()),
                               zeros({}, self.dtype(), self.device()), flat);
  return reshape(index_add(cleared, 0, index, reshape(src.to(self.dtype()), {-1})), self.sizes());
}

Tensor diagonal_copy(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const DiagonalView v = diagonal_view("diagonal_copy", self, offset, dim1, dim2);
  return as_strided_copy(self, v.sizes, v.strides, v.offset);
}

Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1,
                        int64_t dim2) {
  const DiagonalView v = diagonal_view("diagonal_scatter", self, offset, dim1, dim2);
  return as_strided_scatter(self, src, v.sizes, v.strides, v.offset);
}

Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  const int64_t d = wrap_dim("select_scatter", dim, self.dim());
  const int64_t n = self.size(d);
  if (index < -n || index >= n) {
    throw ShapeError("select_scatter", "index " + std::to_string(index) +
                                           " is out of range for dim " + std::to_string(d) +
                                           " of size " + std::to_string(n));
  }
  const int64_t i = index < 0 ? index + n : index;
  return slice_scatter(self, unsqueeze(src, d), d, i, i + 1);
}

Tensor unfold_copy(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  const int64_t d = wrap_dim("unfold_copy", dimension, self.dim());
  const int64_t n = self.dim() == 0 ? 1 : self.size(d);
  if (step <= 0)
    throw ShapeError("unfold_copy", "step is " + std::to_string(step) + " but must be > 0");
  if (size < 0 || size > n) {
    throw ShapeError("unfold_copy", "maximum size for tensor at dimension " + std::to_string(d) +
                                        " is " + std::to_string(n) + " but size is " +
                                        std::to_string(size));
  }
  if (self.dim() == 0) return reshape(self, {size});
  const std::vector<int64_t> strides = contiguous_strides(self.sizes());
  std::vector<int64_t> sizes = self.sizes(), view_strides = strides;
  sizes[static_cast<size_t>(d)] = (n - size) / step + 1;
  view_strides[static_cast<size_t>(d)] *= step;
  sizes.push_back(size);
  view_strides.push_back(strides[static_cast<size_t>(d)]);
  return as_strided_copy(self, sizes, view_strides, 0);
}

Tensor trace(const Tensor& self) {
  if (self.dim() != 2)
    throw ShapeError("trace", "expected a matrix, got shape " + sizes_str(self.sizes()));
  return sum(diagonal_copy(self));
}

Tensor mv(const Tensor& self, const Tensor& vec) {
  if (self.dim() != 2 || vec.dim() != 1) {
    throw ShapeError("mv", "vector + matrix @ vector expected, got shapes " +
                               sizes_str(self.sizes()) + " and " + sizes_str(vec.sizes()));
  }
  return squeeze(mm(self, unsqueeze(vec, 1)), 1);
}

Tensor unfold_backward(const Tensor& grad_in, const std::vector<int64_t>& input_sizes, int64_t dim,
                       int64_t size, int64_t step) {
  const Tensor like = zeros(input_sizes, grad_in.dtype(), grad_in.device());
  const int64_t d = wrap_dim("unfold_backward", dim, like.dim());
  if (like.dim() == 0) return reshape(grad_in, {});
  const std::vector<int64_t> strides = contiguous_strides(input_sizes);
  std::vector<int64_t> sizes = input_sizes, view_strides = strides;
  sizes[static_cast<size_t>(d)] = (input_sizes[static_cast<size_t>(d)] - size) / step + 1;
  view_strides[static_cast<size_t>(d)] *= step;
  sizes.push_back(size);
  view_strides.push_back(strides[static_cast<size_t>(d)]);
  const std::vector<int64_t> positions =
      checked_positions("unfold_backward", like, sizes, view_strides, 0);
  if (positions.empty()) return like;
  // Overlapping windows read an element more than once: its gradient is the sum (index_add).
  return reshape(
      index_add(reshape(like, {-1}), 0, index_on(positions, like.device()), reshape(grad_in, {-1})),
      input_sizes);
}

Tensor diagonal_backward(const Tensor& grad_output, const std::vector<int64_t>& input_sizes,
                         int64_t offset, int64_t dim1, int64_t dim2) {
  return diagonal_scatter(zeros(input_sizes, grad_output.dtype(), grad_output.device()),
                          grad_output, offset, dim1, dim2);
}

Tensor select_backward(const Tensor& grad_output, const std::vector<int64_t>& input_sizes,
                       int64_t dim, int64_t index) {
  return select_scatter(zeros(input_sizes, grad_output.dtype(), grad_output.device()), grad_output,
                        dim, index);
}

// Positions the index reaches take src's value, the last in index's row-major order where it
// reaches one twice (PyTorch leaves which unspecified; its CPU kernel writes in that order, so the
// last one stays); the rest keep self's. The winner is the largest source position scattered to
// each target (an amax), read from src's part that index covers.
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  if (index.numel() == 0) return self;
  const Tensor ids = reshape(arange(index.numel(), DType::Int64, index.device()), index.sizes());
  const Tensor winner = scatter_reduce(full(self.sizes(), Scalar(-1), DType::Int64, self.device()),
                                       dim, index, ids, "amax", true);
  Tensor covered = src;  // src may be larger than index along any dim
  for (int64_t d = 0; d < index.dim(); ++d) {
    if (covered.size(d) != index.size(d)) covered = narrow(covered, d, 0, index.size(d));
  }
  const Tensor picked = index_select(reshape(covered, {-1}), 0,
                                     reshape(clamp_min(winner, 0), {-1}));
  return where(ge(winner, 0), reshape(picked, self.sizes()).to(self.dtype()), self);
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  if (value.dim() != 0) {
    throw ShapeError("index_fill",
                     "only supports a 0-dimensional value tensor, but got tensor with " +
                         std::to_string(value.dim()) + " dimension(s)");
  }
  const int64_t d = wrap_dim("index_fill", dim, self.dim());
  const int64_t n = self.dim() == 0 ? 1 : self.size(d);
  const Tensor flat_index = reshape(index, {-1});
  const Tensor hits =
      index_add(zeros({n}, DType::Int64, self.device()), 0, flat_index, ones_like(flat_index));
  std::vector<int64_t> along(static_cast<size_t>(self.dim()), 1);  // [n] laid along dim d
  if (self.dim() > 0) along[static_cast<size_t>(d)] = n;
  return where(reshape(gt(hits, 0), along), value.to(self.dtype()), self);
}

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const int64_t d = wrap_dim("index_copy", dim, self.dim());
  if (index.dim() > 1) {
    throw ShapeError("index_copy", "index_copy_(): Index should have dimension 1 or 0 (got " +
                                       std::to_string(index.dim()) + ")");
  }
  if (index.dtype() != DType::Int64) {
    throw ShapeError("index_copy", "index_copy_(): Expected a long tensor for index, but got " +
                                       std::string(dtype_name(index.dtype())));
  }
  const int64_t k = index.numel();
  std::vector<int64_t> slices = self.sizes();  // what source must be
  if (self.dim() > 0) slices[static_cast<size_t>(d)] = k;
  if (source.sizes() != slices && !(self.dim() <= 1 && source.numel() == k)) {
    throw ShapeError("index_copy",
                     "index_copy_(): Source/destination tensor must have same slice "
                     "shapes; expected source " +
                         sizes_str(slices) + " for self " + sizes_str(self.sizes()) + " and " +
                         std::to_string(k) + " indices along dim " + std::to_string(d) + ", got " +
                         sizes_str(source.sizes()));
  }
  if (self.dim() == 0) {
    return where(eq(reshape(index, {}), 0), reshape(source, {}).to(self.dtype()), self);
  }
  std::vector<int64_t> along(static_cast<size_t>(self.dim()), 1);  // the indices laid along dim d
  along[static_cast<size_t>(d)] = k;
  return scatter(self, d, expand(reshape(index, along), slices), reshape(source, slices));
}

namespace {

// take's and put's index as positions in the flattened self, [index.numel()], negative ones
// counted from the end; an index that is not int64 is refused as PyTorch refuses it.
Tensor flat_positions(const char* op, const Tensor& index, int64_t numel) {
  if (index.dtype() != DType::Int64) {
    throw ShapeError(op, std::string(op) + "(): Expected a long tensor for index, but got " +
                             std::string(dtype_name(index.dtype())));
  }
  return reshape(where(lt(index, 0), index + numel, index), {-1});
}

}  // namespace

Tensor take(const Tensor& self, const Tensor& index) {
  const Tensor at = flat_positions("take", index, self.numel());
  return reshape(index_select(reshape(self, {-1}), 0, at), index.sizes());
}

Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  const Tensor at = flat_positions("put_", index, self.numel());
  if (source.numel() != index.numel()) {
    throw ShapeError("put_",
                     "put_(): Expected source and index to have the same number of "
                     "elements, but got source.numel() = " +
                         std::to_string(source.numel()) +
                         ", index.numel() = " + std::to_string(index.numel()));
  }
  const Tensor flat = reshape(self, {-1});
  const Tensor values = reshape(source, {-1}).to(self.dtype());
  const Tensor written = accumulate ? index_add(flat, 0, at, values) : scatter(flat, 0, at, values);
  return reshape(written, self.sizes());
}

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  if (mask.dtype() != DType::Bool)
    throw ShapeError("masked_select",
                     "expected a bool mask, got " + std::string(dtype_name(mask.dtype())));
  const std::vector<int64_t> sizes = broadcast_sizes("masked_select", self.sizes(), mask.sizes());
  const Tensor flat_mask = reshape(expand(mask, sizes), {-1});
  const Tensor positions =
      reshape(nonzero(flat_mask), {-1});  // a sync: the count depends on mask's values
  return index_select(reshape(expand(self, sizes), {-1}), 0, positions);
}

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  if (mask.dtype() != DType::Bool) {
    throw ShapeError("masked_scatter",
                     "expected a bool mask, got " + std::string(dtype_name(mask.dtype())));
  }
  const Tensor flat_mask = reshape(expand(mask, self.sizes()), {-1});
  // The k-th true position of mask takes source's k-th element: k = (running count of trues) - 1.
  const Tensor k = clamp_min(cumsum(flat_mask, 0) - 1, 0);
  const Tensor flat_source = reshape(source, {-1});
  if (flat_source.numel() < flat_mask.numel()) {
    // source may hold fewer elements than mask selects: count them (a sync on the lazy device).
    const auto selected = sum(flat_mask).item<int64_t>();
    if (selected > flat_source.numel()) {
      throw ShapeError("masked_scatter", "Number of elements of source < number of ones in mask: " +
                                             std::to_string(flat_source.numel()) + " < " +
                                             std::to_string(selected));
    }
    if (flat_source.numel() == 0) return self.clone();
  }
  const Tensor picked = index_select(flat_source, 0, clamp_max(k, flat_source.numel() - 1));
  return where(reshape(flat_mask, self.sizes()), reshape(picked, self.sizes()).to(self.dtype()),
               self);
}

Tensor constant_pad_nd(const Tensor& self, const std::vector<int64_t>& pad, const Scalar& value) {
  if (pad.size() % 2 != 0 || static_cast<int64_t>(pad.size() / 2) > self.dim()) {
    throw ShapeError("constant_pad_nd",
                     "padding length must be even and at most twice the input's rank, got " +
                         sizes_str(pad) + " for shape " + sizes_str(self.sizes()));
  }
  Tensor out = self;
  for (size_t i = 0; i < pad.size() / 2;
       ++i) {  // pad[2i], pad[2i + 1]: before and after dim -1 - i
    const int64_t d = self.dim() - 1 - static_cast<int64_t>(i);
    const int64_t before = pad[2 * i], after = pad[2 * i + 1];
    const int64_t size = out.size(d);
    if (size + before + after < 0 || (before < 0 && -before > size) ||
        (after < 0 && -after > size)) {
      throw ShapeError("constant_pad_nd", "the padding " + sizes_str(pad) +
                                              " removes more than the " + std::to_string(size) +
                                              " elements of dim " + std::to_string(d));
    }
    out = narrow(out, d, std::max<int64_t>(-before, 0),
                 size + std::min<int64_t>(before, 0) + std::min<int64_t>(after, 0));
    std::vector<Tensor> parts;
    auto block = [&](int64_t n) {
      std::vector<int64_t> sizes = out.sizes();
      sizes[static_cast<size_t>(d)] = n;
      return full(sizes, value, self.dtype(), self.device());
    };
    if (before > 0) parts.push_back(block(before));
    parts.push_back(out);
    if (after > 0) parts.push_back(block(after));
    if (parts.size() > 1) out = cat(parts, d);
  }
  return out;
}

}  // namespace lazygen
