// The strided iteration plan and block walks of strided_loop.h; conversions and copies are in
// strided_copy.cpp.
#include "core/tensor/strided_loop.h"

#include <algorithm>
#include <cstdlib>

#include "core/tensor/tensor_impl.h"
#include "lazygen/shape.h"

namespace lazygen::detail {
namespace {

void check_operand(const char* op, const Tensor& t, const char* role) {
  if (!t.defined()) throw ShapeError(op, std::string("undefined ") + role + " tensor");
  if (!t.device().is_cpu() || !t.impl()->has_storage()) {
    throw ShapeError(
        op, std::string("expected a cpu ") + role + " tensor, got one on " + t.device().str());
  }
}

[[noreturn]] void not_broadcastable(const char* op, const Tensor& in, const Tensor& out) {
  throw ShapeError(op, "input shape " + sizes_str(in.sizes()) +
                           " cannot be broadcast to output shape " + sizes_str(out.sizes()));
}

// Element strides of `in` viewed with out's sizes (0 along broadcast dims).
DimArray broadcast_strides(const char* op, const Tensor& in, const Tensor& out) {
  const auto& sizes = in.sizes();
  const auto& out_sizes = out.sizes();
  if (sizes.size() > out_sizes.size()) not_broadcastable(op, in, out);
  DimArray strides;
  const size_t lead = out_sizes.size() - sizes.size();
  std::fill(strides.begin(), strides.begin() + lead, 0);
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] != out_sizes[lead + i] && sizes[i] != 1) not_broadcastable(op, in, out);
    strides[lead + i] = sizes[i] == out_sizes[lead + i] ? in.strides()[i] : 0;
  }
  return strides;
}

// One past the last byte a layout touches, from its first byte.
const char* end_of(const char* data, const Tensor& out, const int64_t* strides, DType dtype) {
  int64_t last = 0;
  for (int64_t i = 0; i < out.dim(); ++i) last += (out.sizes()[i] - 1) * strides[i];
  return data + (last + 1) * static_cast<int64_t>(itemsize(dtype));
}

// True when reading `in` (with broadcast strides) while writing `out` could read an element
// after it was overwritten: they overlap in memory without being the very same elements.
bool partially_overlaps(const Tensor& out, const Tensor& in, const DimArray& strides) {
  if (in.impl()->storage() != out.impl()->storage() || in.numel() == 0) return false;
  const char* in_lo = static_cast<const char*>(in.raw_data());
  const char* out_lo = static_cast<const char*>(out.raw_data());
  const bool same_strides = std::equal(out.strides().begin(), out.strides().end(), strides.begin());
  if (in_lo == out_lo && same_strides && in.dtype() == out.dtype()) return false;
  return in_lo < end_of(out_lo, out, out.strides().data(), out.dtype()) &&
         out_lo < end_of(in_lo, out, strides.data(), in.dtype());
}

// `one_value`: the op reads no tensor (fill_, zero_), so every element gets the same value and,
// as PyTorch allows for those, elements may share memory.
void check_output(const char* op, const Tensor& out, bool one_value) {
  if (out.dim() > kMaxDims) {
    throw ShapeError(op, "elementwise ops support at most " + std::to_string(kMaxDims) +
                             " dims, got " + std::to_string(out.dim()));
  }
  if (one_value) return;
  for (int64_t d = 0; d < out.dim(); ++d) {
    if (out.strides()[d] == 0 && out.sizes()[d] > 1) {
      throw ShapeError(op,
                       "unsupported operation: more than one element of the written-to "
                       "tensor refers to a single memory location");
    }
  }
}

// Adds `t` with its element strides over the output's `rank` dims (converted to bytes).
void add_operand(StridedPlan& plan, const Tensor& t, const int64_t* elem_strides, int64_t rank) {
  const int k = plan.num_operands++;
  plan.data[k] = static_cast<char*>(t.raw_data());
  plan.dtypes[k] = t.dtype();
  const auto item = static_cast<int64_t>(itemsize(t.dtype()));
  for (int64_t d = 0; d < rank; ++d) plan.strides[k][d] = elem_strides[d] * item;
}

// Dims with more than one element, ordered by decreasing output stride (stable).
int sorted_dims(const StridedPlan& plan, const std::vector<int64_t>& sizes, int* order) {
  int n = 0;
  for (int d = 0; d < static_cast<int>(sizes.size()); ++d) {
    if (sizes[d] == 1) continue;
    int i = n++;
    for (; i > 0 && plan.strides[0][order[i - 1]] < plan.strides[0][d]; --i)
      order[i] = order[i - 1];
    order[i] = d;
  }
  return n;
}

// Drops size-1 dims, orders dims by decreasing output stride and merges contiguous neighbours.
void simplify(StridedPlan& plan, const std::vector<int64_t>& sizes) {
  int order[kMaxDims];
  const int n = sorted_dims(plan, sizes, order);
  std::array<DimArray, kMaxOperands> strides;
  DimArray out_sizes;
  int nd = 0;
  for (int i = 0; i < n; ++i) {
    const int d = order[i];
    bool merge = nd > 0;
    for (int k = 0; k < plan.num_operands && merge; ++k) {
      merge = strides[k][nd - 1] == plan.strides[k][d] * sizes[d];
    }
    if (!merge) out_sizes[nd++] = 1;
    out_sizes[nd - 1] *= sizes[d];
    for (int k = 0; k < plan.num_operands; ++k) strides[k][nd - 1] = plan.strides[k][d];
  }
  if (nd == 0) {  // a single element
    out_sizes[nd++] = 1;
    for (int k = 0; k < plan.num_operands; ++k) strides[k][0] = 0;
  }
  plan.ndim = nd;
  plan.sizes = out_sizes;
  plan.strides = strides;
}

bool is_dense(const StridedPlan& plan) {
  if (plan.ndim != 1) return false;
  for (int k = 0; k < plan.num_operands; ++k) {
    if (plan.strides[k][0] != static_cast<int64_t>(itemsize(plan.dtypes[k])) &&
        plan.sizes[0] != 1) {
      return false;
    }
  }
  return true;
}

// Tiles pay off when an input's innermost stride spans cache lines while its next one is smaller.
bool wants_tiles(const StridedPlan& plan) {
  constexpr int64_t kCacheLine = 64;
  const int nd = plan.ndim;
  if (nd < 2 || plan.sizes[nd - 1] < kTileCols || plan.sizes[nd - 2] < kTileRows) return false;
  for (int k = 1; k < plan.num_operands; ++k) {
    const int64_t inner = std::abs(plan.strides[k][nd - 1]),
                  outer = std::abs(plan.strides[k][nd - 2]);
    if (inner >= kCacheLine && outer < inner) return true;
  }
  return false;
}

}  // namespace

StridedPlan make_strided_plan(const char* op, const Tensor& out, std::span<const Tensor> inputs) {
  if (inputs.size() + 1 > static_cast<size_t>(kMaxOperands)) {
    throw ShapeError(op, "too many inputs for one elementwise loop");
  }
  check_operand(op, out, "output");
  check_output(op, out, inputs.empty());
  StridedPlan plan;
  plan.numel = out.numel();
  add_operand(plan, out, out.strides().data(), out.dim());
  for (const Tensor& given : inputs) {
    check_operand(op, given, "input");
    DimArray strides = broadcast_strides(op, given, out);
    if (!partially_overlaps(out, given, strides)) {
      add_operand(plan, given, strides.data(), out.dim());
      continue;
    }
    plan.temporaries.push_back(given.clone());
    strides = broadcast_strides(op, plan.temporaries.back(), out);
    add_operand(plan, plan.temporaries.back(), strides.data(), out.dim());
  }
  if (plan.numel == 0) return plan;
  simplify(plan, out.sizes());
  plan.dense = is_dense(plan);
  plan.tiled = wants_tiles(plan);
  return plan;
}

namespace {

// Pointers of every operand at the start of row `row` (all dims but the innermost).
void row_pointers(const StridedPlan& plan, int64_t row, std::array<char*, kMaxOperands>& out) {
  out = plan.data;
  for (int d = plan.ndim - 2; d >= 0; --d) {
    const int64_t i = row % plan.sizes[d];
    row /= plan.sizes[d];
    for (int k = 0; k < plan.num_operands; ++k) out[k] += i * plan.strides[k][d];
  }
}

// Blocks of at most `limit` elements covering [begin, end) row by row.
void walk_rows(const StridedPlan& plan, int64_t begin, int64_t end, int64_t limit, BlockFn fn,
               void* ctx) {
  const int64_t inner = plan.sizes[plan.ndim - 1];
  StridedBlock block;
  block.rows = 1;
  for (int k = 0; k < plan.num_operands; ++k) {
    block.strides[k] = plan.strides[k][plan.ndim - 1];
    block.row_strides[k] = 0;
  }
  std::array<char*, kMaxOperands> row;
  for (int64_t pos = begin; pos < end;) {
    const int64_t r = pos / inner, j = pos % inner;
    row_pointers(plan, r, row);
    const int64_t run = std::min(inner - j, end - pos);
    for (int64_t done = 0; done < run; done += limit) {
      block.n = std::min(limit, run - done);
      for (int k = 0; k < plan.num_operands; ++k)
        block.data[k] = row[k] + (j + done) * block.strides[k];
      fn(ctx, block);
    }
    pos += run;
  }
}

// Whole rows [row_begin, row_end) in tiles of at most kTileRows rows (of one 2-D slice) by
// kTileCols columns. Tiles go down the rows first, so a transposed input is read as kTileCols
// sequential streams and every output tile row fills whole cache lines.
void walk_tiles(const StridedPlan& plan, int64_t row_begin, int64_t row_end, BlockFn fn,
                void* ctx) {
  const int nd = plan.ndim;
  const int64_t inner = plan.sizes[nd - 1], slice_rows = plan.sizes[nd - 2];
  StridedBlock block;
  for (int k = 0; k < plan.num_operands; ++k) {
    block.strides[k] = plan.strides[k][nd - 1];
    block.row_strides[k] = plan.strides[k][nd - 2];
  }
  std::array<char*, kMaxOperands> first;
  for (int64_t j = 0; j < inner; j += kTileCols) {
    block.n = std::min(kTileCols, inner - j);
    for (int64_t r0 = row_begin; r0 < row_end;) {
      const int64_t r1 = std::min({row_end, r0 + kTileRows, (r0 / slice_rows + 1) * slice_rows});
      row_pointers(plan, r0, first);
      block.rows = r1 - r0;
      for (int k = 0; k < plan.num_operands; ++k) block.data[k] = first[k] + j * block.strides[k];
      fn(ctx, block);
      r0 = r1;
    }
  }
}

}  // namespace

void for_each_block(const StridedPlan& plan, int64_t begin, int64_t end, BlockFn fn, void* ctx) {
  if (plan.numel == 0 || begin >= end) return;
  if (!plan.tiled) return walk_rows(plan, begin, end, kBlockSize, fn, ctx);
  // Partial rows at the ends of the range are walked plainly, whole rows in tiles.
  const int64_t inner = plan.sizes[plan.ndim - 1];
  const int64_t first_row = (begin + inner - 1) / inner, last_row = end / inner;
  if (first_row > last_row) return walk_rows(plan, begin, end, kBlockSize, fn, ctx);
  walk_rows(plan, begin, first_row * inner, kBlockSize, fn, ctx);
  walk_tiles(plan, first_row, last_row, fn, ctx);
  walk_rows(plan, last_row * inner, end, kBlockSize, fn, ctx);
}

}  // namespace lazygen::detail
