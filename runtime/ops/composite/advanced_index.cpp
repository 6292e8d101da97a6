// Advanced indexing (lazygen/composite.h): x[idx] (PyTorch's index.Tensor) and x[idx] = v
// (index_put), over index_select and index_add.
//
// Note [Advanced indexing as one flat dim]
// The indexed dims (those given an index tensor; a bool mask stands for one index tensor per dim
// it spans, from its nonzero() coordinates, which sync) are moved to the front of self and
// flattened into one dim of their sizes' product. The index tensors, broadcast together to the
// batch shape B, give one flat index into it: each index wrapped when negative, times its dim's
// stride in the flattening, summed. x[idx] is then index_select along the flat dim, shaped
// B + the other dims; index_put is index_add there (accumulate), or otherwise a copy of the
// value of each position's last writer (a stable sort of the flat index finds it, as PyTorch's
// CPU kernel writes in order), so values are copied exactly. B's dims sit where PyTorch puts
// them: in place of the indexed dims when those are adjacent, else first.
// Note [Masked writes without nonzero]
// x[mask] = v, with one bool mask (after unindexed leading dims only) and a value that is the
// same for every masked position (its dim for those positions is 1 or absent: a scalar, or a row
// of the dims after the mask), writes each masked position once with one value, which is
// where(mask, v, x) (accumulate: x + where(mask, v, 0)). That needs no nonzero(), so no sync on
// the lazy device and no data-dependent size in the graph: PyTorch's own masked writes
// (cross_entropy's label smoothing with an ignore_index, its backward) take it. A value with
// one row per masked position takes the general path.
// An index outside its dim gives the flat index -1, which index_select and index_add refuse when
// they run (on the lazy device, when the graph executes: the values are not known before); on the
// cpu device each index is checked first, with PyTorch's message.
#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/add.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/clamp_min.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/ge.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/index_add.h"
#include "lazygen/generated/ops/index_select.h"
#include "lazygen/generated/ops/logical_and.h"
#include "lazygen/generated/ops/lt.h"
#include "lazygen/generated/ops/mul.h"
#include "lazygen/generated/ops/ne.h"
#include "lazygen/generated/ops/permute.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/select.h"
#include "lazygen/generated/ops/slice.h"
#include "lazygen/generated/ops/sort.h"
#include "lazygen/generated/ops/sub.h"
#include "lazygen/generated/ops/where.h"

namespace lazygen {
namespace {

// self's indexing as Note [Advanced indexing as one flat dim] lays it out.
struct FlatIndexing {
  std::vector<int64_t> dims;    // the indexed dims, in order
  std::vector<int64_t> rest;    // the other dims, in order
  std::vector<Tensor> indices;  // one int64 index per indexed dim
  std::vector<int64_t> batch;   // the indices' broadcast shape B
  int64_t flat_size = 1;        // the product of the indexed dims' sizes
  bool adjacent = true;         // the indexed dims are neighbours: B takes their place
};

// A bool mask indexing self from dim `at` on: PyTorch's checks and messages.
void check_mask(const char* op, const Tensor& self, const Tensor& mask, int64_t at) {
  if (mask.dim() == 0)
    throw ShapeError(op, "a 0-dim bool index is not supported; index with a 1-dim mask");
  for (int64_t j = 0; j < mask.dim(); ++j) {
    if (at + j >= self.dim() || mask.size(j) != self.size(at + j)) {
      throw ShapeError(op, "The shape of the mask " + sizes_str(mask.sizes()) + " at index " +
                               std::to_string(j) +
                               " does not match the shape of the indexed tensor " +
                               sizes_str(self.sizes()) + " at index " + std::to_string(at + j));
    }
  }
}

// One int64 index per dim of self (nullopt: not indexed), bool masks replaced by their
// coordinates; PyTorch's checks and messages.
std::vector<std::optional<Tensor>> per_dim_indices(
    const char* op, const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  std::vector<std::optional<Tensor>> out;
  for (const std::optional<Tensor>& index : indices) {
    if (!index || !index->defined()) {
      out.push_back(std::nullopt);
      continue;
    }
    if (index->dtype() == DType::Bool) {
      check_mask(op, self, *index, static_cast<int64_t>(out.size()));
      const Tensor coords = nonzero(*index);
      for (int64_t j = 0; j < index->dim(); ++j) out.push_back(select(coords, 1, j));
      continue;
    }
    if (index->dtype() != DType::Int64) {
      throw ShapeError(op, "tensors used as indices must be long, byte or bool tensors, got " +
                               std::string(dtype_name(index->dtype())));
    }
    out.push_back(*index);
  }
  if (static_cast<int64_t>(out.size()) > self.dim()) {
    throw ShapeError(op, "too many indices for tensor of dimension " + std::to_string(self.dim()));
  }
  return out;
}

// On the cpu device: every index inside its dim, else PyTorch's IndexError message.
void check_bounds(const char* op, const Tensor& index, int64_t dim, int64_t size) {
  if (!index.device().is_cpu()) return;
  const Tensor values = index.contiguous();
  const int64_t* v = values.data_ptr<int64_t>();
  for (int64_t i = 0; i < values.numel(); ++i) {
    if (v[i] < -size || v[i] >= size) {
      throw ShapeError(op, "index " + std::to_string(v[i]) + " is out of bounds for dimension " +
                               std::to_string(dim) + " with size " + std::to_string(size));
    }
  }
}

FlatIndexing flat_indexing(const char* op, const Tensor& self,
                           const std::vector<std::optional<Tensor>>& indices) {
  const std::vector<std::optional<Tensor>> per_dim = per_dim_indices(op, self, indices);
  FlatIndexing f;
  std::vector<std::vector<int64_t>> shapes;
  for (int64_t d = 0; d < self.dim(); ++d) {
    const auto k = static_cast<size_t>(d);
    if (k >= per_dim.size() || !per_dim[k]) {
      f.rest.push_back(d);
      continue;
    }
    check_bounds(op, *per_dim[k], d, self.size(d));
    f.dims.push_back(d);
    f.indices.push_back(*per_dim[k]);
    f.flat_size *= self.size(d);
    shapes.push_back(per_dim[k]->sizes());
  }
  for (size_t j = 0; j < shapes.size(); ++j) {
    try {
      f.batch = j == 0 ? shapes[0] : broadcast_sizes(op, f.batch, shapes[j]);
    } catch (const ShapeError&) {
      std::string all;
      for (const auto& s : shapes) all += (all.empty() ? "" : ", ") + sizes_str(s);
      throw ShapeError(
          op,
          "shape mismatch: indexing tensors could not be broadcast together with shapes " + all);
    }
  }
  f.adjacent =
      f.dims.empty() || f.dims.back() - f.dims.front() + 1 == static_cast<int64_t>(f.dims.size());
  return f;
}

// The flat index (shape B, int64): -1 where some index is outside its dim.
Tensor flat_index(const FlatIndexing& f, const Tensor& self) {
  Tensor flat, inside;
  int64_t stride = 1;
  for (size_t j = f.dims.size(); j-- > 0;) {
    const int64_t n = self.size(f.dims[j]);
    const Tensor& i = f.indices[j];
    const Tensor term = mul(where(lt(i, 0), add(i, n), i), stride);
    const Tensor ok = logical_and(ge(i, -n), lt(i, n));
    flat = flat.defined() ? add(flat, term) : term;
    inside = inside.defined() ? logical_and(inside, ok) : ok;
    stride *= n;
  }
  const Tensor none = full({}, -1, DType::Int64, self.device());
  return expand(where(inside, flat, none), f.batch);
}

// The permutation that undoes `perm`.
std::vector<int64_t> inverted(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return inverse;
}

// self's dims with the indexed ones first: the permutation flattened() applies.
std::vector<int64_t> indexed_first(const FlatIndexing& f) {
  std::vector<int64_t> order = f.dims;
  order.insert(order.end(), f.rest.begin(), f.rest.end());
  return order;
}

// self with the indexed dims first, flattened: [flat_size, rest sizes...].
Tensor flattened(const Tensor& self, const FlatIndexing& f) {
  std::vector<int64_t> shape = {f.flat_size};
  for (int64_t d : f.rest) shape.push_back(self.size(d));
  return reshape(permute(self, indexed_first(f)), shape);
}

// The permutation that takes [B..., rest...] to PyTorch's result layout (`to_result`) or back.
std::vector<int64_t> batch_placement(const FlatIndexing& f, bool to_result) {
  const auto nb = static_cast<int64_t>(f.batch.size()), nr = static_cast<int64_t>(f.rest.size());
  const int64_t before = f.adjacent && !f.dims.empty() ? f.dims.front() : 0;
  std::vector<int64_t> perm;  // result dim i takes [B, rest] dim perm[i]
  for (int64_t i = 0; i < before; ++i) perm.push_back(nb + i);
  for (int64_t i = 0; i < nb; ++i) perm.push_back(i);
  for (int64_t i = before; i < nr; ++i) perm.push_back(nb + i);
  return to_result ? perm : inverted(perm);
}

// [B..., rest...] sizes.
std::vector<int64_t> batch_first_sizes(const Tensor& self, const FlatIndexing& f) {
  std::vector<int64_t> sizes = f.batch;
  for (int64_t d : f.rest) sizes.push_back(self.size(d));
  return sizes;
}

// The sizes of self[indices] (PyTorch's layout).
std::vector<int64_t> result_sizes(const Tensor& self, const FlatIndexing& f) {
  const std::vector<int64_t> first = batch_first_sizes(self, f);
  std::vector<int64_t> out;
  for (int64_t p : batch_placement(f, true)) out.push_back(first[static_cast<size_t>(p)]);
  return out;
}

// For each flat position: 1 + the row of `flat` that writes it last, 0 where none does.
Tensor last_writers(const Tensor& flat, int64_t flat_size) {
  const int64_t m = flat.size(0);
  const auto [sorted, order] = sort(flat, 0, false);  // stable: equal positions keep row order
  const Tensor next = cat({slice(sorted, 0, 1), full({1}, -2, DType::Int64, flat.device())}, 0);
  const Tensor rows = add(order, 1);
  const Tensor last = where(ne(sorted, next), rows, zeros({m}, DType::Int64, flat.device()));
  return index_add(zeros({flat_size}, DType::Int64, flat.device()), 0, sorted, last);
}

// Whether `from` broadcasts to exactly `to`.
bool broadcasts_to(const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  if (from.size() > to.size()) return false;
  const size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] != 1 && from[i] != to[lead + i]) return false;
  }
  return true;
}

// `t` shaped [n] as [n, 1, ...] with `rank` dims in all.
Tensor column(const Tensor& t, size_t rank) {
  std::vector<int64_t> sizes(std::max<size_t>(rank, 1), 1);
  sizes[0] = t.size(0);
  return reshape(t, sizes);
}

// The one defined index of `indices` when it is a bool mask (its position in *at), else null.
const Tensor* sole_mask(const std::vector<std::optional<Tensor>>& indices, int64_t* at) {
  const Tensor* mask = nullptr;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (!indices[i] || !indices[i]->defined()) continue;
    if (mask != nullptr || indices[i]->dtype() != DType::Bool) return nullptr;
    mask = &*indices[i];
    *at = static_cast<int64_t>(i);
  }
  return mask;
}

// x[mask] = values as where() when values is one value for every masked position; nullopt
// otherwise. See Note [Masked writes without nonzero].
std::optional<Tensor> masked_write(const char* op, const Tensor& self,
                                   const std::vector<std::optional<Tensor>>& indices,
                                   const Tensor& values, bool accumulate) {
  int64_t at = 0;
  const Tensor* mask = sole_mask(indices, &at);
  if (mask == nullptr || (accumulate && self.dtype() == DType::Bool)) return std::nullopt;
  check_mask(op, self, *mask, at);
  // The result's layout: self's dims before the mask, the masked positions, the dims after it.
  const int64_t k = mask->dim(), rest = self.dim() - at - k, rank = at + 1 + rest;
  if (values.dim() > rank) return std::nullopt;
  std::vector<int64_t> aligned(static_cast<size_t>(rank - values.dim()), 1);
  for (int64_t s : values.sizes()) aligned.push_back(s);
  std::vector<int64_t> value_shape, mask_shape;  // both in self's layout
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = aligned[static_cast<size_t>(d)];
    if (d == at) {
      if (size != 1) return std::nullopt;  // a row per masked position
      value_shape.insert(value_shape.end(), static_cast<size_t>(k), 1);
      continue;
    }
    const int64_t own = self.size(d < at ? d : d + k - 1);
    if (size != 1 && size != own) return std::nullopt;  // the general path raises
    value_shape.push_back(size);
  }
  mask_shape.assign(static_cast<size_t>(at), 1);
  for (int64_t s : mask->sizes()) mask_shape.push_back(s);
  mask_shape.insert(mask_shape.end(), static_cast<size_t>(rest), 1);
  const Tensor where_mask = reshape(*mask, mask_shape), value = reshape(values, value_shape);
  if (!accumulate) return where(where_mask, value, self);
  return add(self, where(where_mask, value, full({}, 0, self.dtype(), self.device())));
}

}  // namespace

Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  const FlatIndexing f = flat_indexing("index.Tensor", self, indices);
  if (f.dims.empty()) return self.clone();
  const Tensor picked = index_select(flattened(self, f), 0, reshape(flat_index(f, self), {-1}));
  return permute(reshape(picked, batch_first_sizes(self, f)), batch_placement(f, true));
}

Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                 const Tensor& values, bool accumulate) {
  const char* op = "index_put";
  if (values.dtype() != self.dtype()) {
    throw ShapeError(op, "Index put requires the source and destination dtypes match, got " +
                             std::string(dtype_name(self.dtype())) + " for the destination and " +
                             std::string(dtype_name(values.dtype())) + " for the source.");
  }
  if (std::optional<Tensor> written = masked_write(op, self, indices, values, accumulate)) {
    return *written;
  }
  const FlatIndexing f = flat_indexing(op, self, indices);
  if (f.dims.empty()) return self.clone();
  const std::vector<int64_t> sizes = result_sizes(self, f);
  if (!broadcasts_to(values.sizes(), sizes)) {
    throw ShapeError(op, "shape mismatch: value tensor of shape " + sizes_str(values.sizes()) +
                             " cannot be broadcast to indexing result of shape " +
                             sizes_str(sizes));
  }
  const int64_t count =
      std::accumulate(f.batch.begin(), f.batch.end(), int64_t{1}, std::multiplies<>());
  if (count == 0) return self.clone();
  std::vector<int64_t> rows_shape = {count};
  for (int64_t d : f.rest) rows_shape.push_back(self.size(d));
  const Tensor rows =
      reshape(permute(expand(values, sizes), batch_placement(f, false)), rows_shape);
  const Tensor flat = reshape(flat_index(f, self), {-1});
  const Tensor target = flattened(self, f);
  Tensor written;
  if (accumulate) {
    written = index_add(target, 0, flat, rows);
  } else {
    const Tensor writer = last_writers(flat, f.flat_size);
    const Tensor copied = index_select(rows, 0, clamp_min(sub(writer, 1), 0));
    written = where(column(gt(writer, 0), rows_shape.size()), copied, target);
  }
  // Back to self's layout: [indexed sizes..., rest sizes...], then the dims' own order.
  const std::vector<int64_t> order = indexed_first(f);
  std::vector<int64_t> unflat;
  for (int64_t d : order) unflat.push_back(self.size(d));
  return permute(reshape(written, unflat), inverted(order));
}

}  // namespace lazygen
