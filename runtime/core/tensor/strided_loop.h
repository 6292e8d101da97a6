// Elementwise iteration over an output tensor and inputs broadcast to its sizes: the shared
// machinery of copies (here) and of the cpu pointwise engine (ops/cpu/pointwise.h).
//
// make_strided_plan validates the operands (cpu, broadcastable to the output, no output element
// written twice), breaks partial memory overlap between an input and the output by copying the
// input, and simplifies the iteration space: size-1 dims dropped, dims ordered by the output's
// strides, adjacent dims merged when every operand allows. for_each_block then walks any linear
// sub-range of the output in blocks of at most kBlockSize elements along the innermost dim, each
// block one pointer and one byte stride per operand, so threads can split the range freely.
// When an input reads across rows (a transposed input: its innermost stride spans cache lines
// while its next stride is smaller), whole rows are walked in 2-D tiles of kTileRows x kTileCols
// elements over the two innermost dims; consumers read such an input tile by tile along its own
// fast direction (gather_tile), so each of its cache lines is fetched once.
// Exact aliasing (out is an input, as in-place ops do) is allowed: element i reads its inputs
// before writing element i. The plan is a fixed-size value (no allocation per op); iteration
// spaces have at most kMaxDims dims.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "lazygen/dtype.h"
#include "lazygen/tensor.h"

namespace lazygen::detail {

inline constexpr int kMaxOperands = 5;      // the output and up to 4 inputs
inline constexpr int kMaxDims = 25;         // as PyTorch's CUDA kernels (MAX_DIMS)
inline constexpr int64_t kBlockSize = 512;  // elements per row block
inline constexpr int64_t kTileRows = 64, kTileCols = 16;
inline constexpr int64_t kMaxBlockElements = kTileRows * kTileCols;  // rows * n of any block

using DimArray = std::array<int64_t, kMaxDims>;

struct StridedPlan {
  int num_operands = 0;  // operand 0 is the output, then the inputs in order
  int ndim = 0;          // simplified iteration dims, outermost first; 0 when numel is 0
  int64_t numel = 0;
  bool dense = false;  // a single dim where every operand's stride is its itemsize
  bool tiled = false;  // walk the two innermost dims in tiles (see above)
  std::array<char*, kMaxOperands> data;
  std::array<DType, kMaxOperands> dtypes;
  DimArray sizes;
  std::array<DimArray, kMaxOperands> strides;  // bytes
  std::vector<Tensor> temporaries;             // input copies that break overlap with the output
};

// `rows` runs of `n` elements (rows * n <= kMaxBlockElements): element (r, i) of operand k is at
// data[k] + r * row_strides[k] + i * strides[k]. Plain walks give rows == 1.
struct StridedBlock {
  std::array<char*, kMaxOperands> data;
  std::array<int64_t, kMaxOperands> strides;      // bytes
  std::array<int64_t, kMaxOperands> row_strides;  // bytes
  int64_t n;
  int64_t rows;
};
using BlockFn = void (*)(void* ctx, const StridedBlock& block);

// Throws ShapeError naming `op` when an operand is not a defined cpu tensor, an input does not
// broadcast to out's sizes, out has several elements at one address or more than kMaxDims dims.
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

// dst[r * n + i] = static_cast<to>(src[r * row_stride + i * col_stride]) for a rows x n tile,
// read in whichever order follows the source's smaller stride (strides in bytes).
void gather_tile(DType from, const char* src, int64_t col_stride, int64_t row_stride, int64_t rows,
                 int64_t n, DType to, char* dst);

// dst = src broadcast to dst's sizes and converted to dst's dtype (single-threaded).
void copy_into(const char* op, const Tensor& dst, const Tensor& src);

}  // namespace lazygen::detail
