// Elementwise iteration over an output tensor and inputs broadcast to its sizes: the shared
// machinery of copies (here) and of the cpu pointwise engine (backend/cpu/pointwise.h).
//
// make_strided_plan validates the operands (cpu, broadcastable to the output, no output element
// written twice), breaks partial memory overlap between an input and the output by copying the
// input, and simplifies the iteration space: size-1 dims dropped, dims ordered by the output's
// strides, adjacent dims merged when every operand allows. for_each_block then walks any linear
// sub-range of the output in blocks of at most kBlockSize elements along the innermost dim, each
// block one pointer and one byte stride per operand, so threads can split the range freely.
// Exact aliasing (out is an input, as in-place ops do) is allowed: element i reads its inputs
// before writing element i.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "lazygen/dtype.h"
#include "lazygen/tensor.h"

namespace lazygen::detail {

inline constexpr int kMaxOperands = 5;  // the output and up to 4 inputs
inline constexpr int64_t kBlockSize = 512;

struct StridedPlan {
  int num_operands = 0;  // operand 0 is the output, then the inputs in order
  std::array<char*, kMaxOperands> data{};
  std::array<DType, kMaxOperands> dtypes{};
  std::vector<int64_t> sizes;  // simplified iteration sizes, outermost first; empty if numel 0
  std::array<std::vector<int64_t>, kMaxOperands> strides;  // bytes, one per entry of sizes
  int64_t numel = 0;
  bool dense = false;  // a single dim where every operand's stride is its itemsize
  std::vector<Tensor> temporaries;  // input copies that break overlap with the output
};

// A run of `n` consecutive elements (n <= kBlockSize) along the innermost iteration dim.
struct StridedBlock {
  std::array<char*, kMaxOperands> data;
  std::array<int64_t, kMaxOperands> strides;  // bytes
  int64_t n;
};
using BlockFn = void (*)(void* ctx, const StridedBlock& block);

// Throws ShapeError naming `op` when an operand is not a defined cpu tensor, an input does not
// broadcast to out's sizes, or out has several elements at one address.
StridedPlan make_strided_plan(const char* op, const Tensor& out, std::span<const Tensor> inputs);

// Calls fn for the blocks covering linear output elements [begin, end) in row-major order.
void for_each_block(const StridedPlan& plan, int64_t begin, int64_t end, BlockFn fn, void* ctx);

template <class F>
void for_each_block(const StridedPlan& plan, int64_t begin, int64_t end, F& f) {
  for_each_block(
      plan, begin, end,
      [](void* ctx, const StridedBlock& block) { (*static_cast<F*>(ctx))(block); }, &f);
}

// dst[i * dst_stride] = static_cast<to>(src[i * src_stride]) for i < n (strides in bytes).
void convert_elements(DType from, const char* src, int64_t src_stride, DType to, char* dst,
                      int64_t dst_stride, int64_t n);

// dst = src broadcast to dst's sizes and converted to dst's dtype (single-threaded).
void copy_into(const char* op, const Tensor& dst, const Tensor& src);

}  // namespace lazygen::detail
