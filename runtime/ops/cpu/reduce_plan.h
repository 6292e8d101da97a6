// How a reduction walks its input: the memory-order analysis shared by the reduction kernels.
//
// A reduction maps each output element (a combination of the kept dims) to the input elements
// along the reduced dims. Two layouts are read in place, with a contiguous innermost loop:
//   Inner  the reduced dims form one contiguous run per output (sum over the last dims):
//          output o reduces elements [outer_offsets[o], + run).
//   Outer  the innermost kept dim is contiguous (sum over leading dims, x.sum(0)): for each
//          outer_offsets[o] and reduce_offsets[q], `run` neighbouring outputs o * run + j take
//          element outer_offsets[o] + reduce_offsets[q] + j.
//   Runs   the innermost reduced dims form a contiguous run of at least kMinRun elements, the
//          others do not (x.sum({0, 2, 3}) of NCHW, a convolution's bias gradient): output o
//          reduces the runs [outer_offsets[o] + reduce_offsets[q], + run) for every q.
// Any other layout is first copied into (kept..., reduced...) order, which makes it Inner.
#pragma once

#include <cstdint>
#include <vector>

#include "lazygen/tensor.h"

namespace lazygen::cpu::detail {

struct ReducePlan {
  enum class Kind { Inner, Outer, Runs };
  // Runs shorter than this are not worth a loop each: such layouts are copied instead.
  static constexpr int64_t kMinRun = 64;
  Kind kind = Kind::Inner;
  Tensor input;  // self, or the reordered copy read instead
  int64_t num_outputs = 1;
  int64_t run = 1;
  std::vector<int64_t> outer_offsets;   // elements, relative to input's first element
  std::vector<int64_t> reduce_offsets;  // Outer and Runs
};

// The plan for reducing `self` (a cpu tensor) over the dims set in `mask` (one per dim).
ReducePlan make_reduce_plan(const Tensor& self, const std::vector<bool>& mask);

// Offsets (in elements) of every index of a (sizes, strides) layout in row-major order.
std::vector<int64_t> enumerate_offsets(const std::vector<int64_t>& sizes,
                                       const std::vector<int64_t>& strides);

}  // namespace lazygen::cpu::detail
