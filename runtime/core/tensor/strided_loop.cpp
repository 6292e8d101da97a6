// The strided iteration plan, block walk, dtype conversion and copy of strided_loop.h.
#include "core/tensor/strided_loop.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/tensor/tensor_impl.h"
#include "lazygen/shape.h"

namespace lazygen::detail {
namespace {

void check_operand(const char* op, const Tensor& t, const char* role) {
  if (!t.defined()) throw ShapeError(op, std::string("undefined ") + role + " tensor");
  if (!t.device().is_cpu() || !t.impl()->has_storage()) {
    throw ShapeError(op, std::string("expected a cpu ") + role + " tensor, got one on " +
                             t.device().str());
  }
}

// Element strides of `in` viewed with `out_sizes` (0 along broadcast dims).
std::vector<int64_t> broadcast_strides(const char* op, const Tensor& in,
                                       const std::vector<int64_t>& out_sizes) {
  const auto& sizes = in.sizes();
  const size_t rank = out_sizes.size();
  if (sizes.size() > rank) {
    throw ShapeError(op, "input shape " + sizes_str(sizes) +
                             " cannot be broadcast to output shape " + sizes_str(out_sizes));
  }
  std::vector<int64_t> strides(rank, 0);
  const size_t lead = rank - sizes.size();
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == out_sizes[lead + i]) {
      strides[lead + i] = in.strides()[i];
    } else if (sizes[i] != 1) {
      throw ShapeError(op, "input shape " + sizes_str(sizes) +
                               " cannot be broadcast to output shape " + sizes_str(out_sizes));
    }
  }
  return strides;
}

// [first byte, one past the last byte] touched by a tensor with these sizes and strides.
std::pair<const char*, const char*> byte_range(const char* data, const std::vector<int64_t>& sizes,
                                               const std::vector<int64_t>& strides, DType dtype) {
  int64_t last = 0;
  for (size_t i = 0; i < sizes.size(); ++i) last += (sizes[i] - 1) * strides[i];
  return {data, data + (last + 1) * static_cast<int64_t>(itemsize(dtype))};
}

// True when reading `in` (with broadcast strides) while writing `out` could read an element
// after it was overwritten: they overlap in memory without being the very same elements.
bool partially_overlaps(const Tensor& out, const Tensor& in, const std::vector<int64_t>& strides) {
  if (in.impl()->storage() != out.impl()->storage() || in.numel() == 0) return false;
  const char* in_data = static_cast<const char*>(in.raw_data());
  const char* out_data = static_cast<const char*>(out.raw_data());
  if (in_data == out_data && strides == out.strides() && in.dtype() == out.dtype()) return false;
  auto [in_lo, in_hi] = byte_range(in_data, out.sizes(), strides, in.dtype());
  auto [out_lo, out_hi] = byte_range(out_data, out.sizes(), out.strides(), out.dtype());
  return in_lo < out_hi && out_lo < in_hi;
}

void check_output_overlap(const char* op, const Tensor& out) {
  for (int64_t d = 0; d < out.dim(); ++d) {
    if (out.strides()[d] == 0 && out.sizes()[d] > 1) {
      throw ShapeError(op, "unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location");
    }
  }
}

// Drops size-1 dims, orders dims by decreasing output stride and merges contiguous neighbours.
void simplify(StridedPlan& plan, std::vector<int64_t> sizes) {
  const int n = plan.num_operands;
  std::vector<size_t> order;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] != 1) order.push_back(d);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return plan.strides[0][a] > plan.strides[0][b];
  });
  std::vector<int64_t> out_sizes;
  std::array<std::vector<int64_t>, kMaxOperands> out_strides;
  for (size_t d : order) {
    bool merge = !out_sizes.empty();
    for (int k = 0; k < n && merge; ++k) {
      merge = out_strides[k].back() == plan.strides[k][d] * sizes[d];
    }
    if (merge) {
      out_sizes.back() *= sizes[d];
      for (int k = 0; k < n; ++k) out_strides[k].back() = plan.strides[k][d];
      continue;
    }
    out_sizes.push_back(sizes[d]);
    for (int k = 0; k < n; ++k) out_strides[k].push_back(plan.strides[k][d]);
  }
  if (out_sizes.empty()) {  // a single element
    out_sizes.push_back(1);
    for (int k = 0; k < n; ++k) out_strides[k].push_back(0);
  }
  plan.sizes = std::move(out_sizes);
  plan.strides = std::move(out_strides);
}

bool is_dense(const StridedPlan& plan) {
  if (plan.sizes.size() != 1) return false;
  for (int k = 0; k < plan.num_operands; ++k) {
    if (plan.strides[k][0] != static_cast<int64_t>(itemsize(plan.dtypes[k])) &&
        plan.sizes[0] != 1) {
      return false;
    }
  }
  return true;
}

// The multi-index of linear element `linear` in a row-major iteration over `sizes`.
std::vector<int64_t> unravel(const std::vector<int64_t>& sizes, int64_t linear) {
  std::vector<int64_t> index(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    index[d] = linear % sizes[d];
    linear /= sizes[d];
  }
  return index;
}

void add_operand(StridedPlan& plan, const Tensor& t, const std::vector<int64_t>& elem_strides) {
  const int k = plan.num_operands++;
  plan.data[k] = static_cast<char*>(t.raw_data());
  plan.dtypes[k] = t.dtype();
  const auto item = static_cast<int64_t>(itemsize(t.dtype()));
  plan.strides[k].clear();
  for (int64_t s : elem_strides) plan.strides[k].push_back(s * item);
}

}  // namespace

StridedPlan make_strided_plan(const char* op, const Tensor& out, std::span<const Tensor> inputs) {
  if (inputs.size() + 1 > static_cast<size_t>(kMaxOperands)) {
    throw ShapeError(op, "too many inputs for one elementwise loop");
  }
  check_operand(op, out, "output");
  check_output_overlap(op, out);
  StridedPlan plan;
  plan.numel = out.numel();
  add_operand(plan, out, out.strides());
  for (const Tensor& given : inputs) {
    check_operand(op, given, "input");
    Tensor in = given;
    auto strides = broadcast_strides(op, in, out.sizes());
    if (partially_overlaps(out, in, strides)) {
      in = in.clone();
      strides = broadcast_strides(op, in, out.sizes());
      plan.temporaries.push_back(in);
    }
    add_operand(plan, in, strides);
  }
  if (plan.numel == 0) return plan;
  simplify(plan, out.sizes());
  plan.dense = is_dense(plan);
  return plan;
}

void for_each_block(const StridedPlan& plan, int64_t begin, int64_t end, BlockFn fn, void* ctx) {
  if (plan.numel == 0 || begin >= end) return;
  const size_t ndim = plan.sizes.size();
  const int64_t inner = plan.sizes.back();
  std::vector<int64_t> index = unravel(plan.sizes, begin);
  StridedBlock block;
  for (int k = 0; k < plan.num_operands; ++k) block.strides[k] = plan.strides[k].back();
  for (int64_t pos = begin; pos < end;) {
    std::array<char*, kMaxOperands> row{};
    for (int k = 0; k < plan.num_operands; ++k) {
      int64_t offset = 0;
      for (size_t d = 0; d < ndim; ++d) offset += index[d] * plan.strides[k][d];
      row[k] = plan.data[k] + offset;
    }
    const int64_t run = std::min(inner - index.back(), end - pos);
    for (int64_t done = 0; done < run; done += kBlockSize) {
      block.n = std::min(kBlockSize, run - done);
      for (int k = 0; k < plan.num_operands; ++k) block.data[k] = row[k] + done * block.strides[k];
      fn(ctx, block);
    }
    pos += run;
    index.back() += run;
    for (size_t d = ndim - 1; d > 0 && index[d] == plan.sizes[d]; --d) {
      index[d] = 0;
      ++index[d - 1];
    }
  }
}

namespace {

template <class S, class D>
void convert_typed(const char* src, int64_t src_stride, char* dst, int64_t dst_stride, int64_t n) {
  if (src_stride == sizeof(S) && dst_stride == sizeof(D)) {
    // The common dense case: a loop the compiler vectorizes.
    const S* s = reinterpret_cast<const S*>(src);
    D* d = reinterpret_cast<D*>(dst);
    for (int64_t i = 0; i < n; ++i) d[i] = static_cast<D>(s[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<D*>(dst + i * dst_stride) =
        static_cast<D>(*reinterpret_cast<const S*>(src + i * src_stride));
  }
}

}  // namespace

void convert_elements(DType from, const char* src, int64_t src_stride, DType to, char* dst,
                      int64_t dst_stride, int64_t n) {
  const auto item = static_cast<int64_t>(itemsize(from));
  if (from == to && src_stride == item && dst_stride == item) {
    std::memmove(dst, src, static_cast<size_t>(n * item));
    return;
  }
  dispatch_dtype(from, [&](auto s) {
    dispatch_dtype(to, [&](auto d) {
      convert_typed<decltype(s), decltype(d)>(src, src_stride, dst, dst_stride, n);
    });
  });
}

void copy_into(const char* op, const Tensor& dst, const Tensor& src) {
  const Tensor inputs[] = {src};
  StridedPlan plan = make_strided_plan(op, dst, inputs);
  auto copy_block = [&](const StridedBlock& b) {
    convert_elements(plan.dtypes[1], b.data[1], b.strides[1], plan.dtypes[0], b.data[0],
                     b.strides[0], b.n);
  };
  if (plan.dense) {  // one call over everything: memmove or a single conversion loop
    convert_elements(plan.dtypes[1], plan.data[1], plan.strides[1][0], plan.dtypes[0],
                     plan.data[0], plan.strides[0][0], plan.numel);
    return;
  }
  for_each_block(plan, 0, plan.numel, copy_block);
}

}  // namespace lazygen::detail
