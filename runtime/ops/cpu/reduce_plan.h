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
//   Gathered  any other layout (runs shorter than kMinRun, e.g. x.sum({0, 2, 3}) of NCHW with
//          2x2 planes): output o reduces the elements at outer_offsets[o] + reduce_offsets[q] + j,
//          j < run, in that order, which is the order of the (kept..., reduced...) copy that
//          would make it Inner: the same accumulators see the same elements, without the copy.
// A single output over more than one partial's worth, or more than kMaxGathered runs, is first
// copied into (kept..., reduced...) order, which makes it Inner.
#pragma once

#include <cstdint>
#include <vector>

#include "lazygen/tensor.h"

namespace lazygen::cpu::detail {

struct ReducePlan {
  enum class Kind { Inner, Outer, Runs, Gathered };
  // Runs shorter than this are not worth a loop each: such layouts are Gathered instead.
  static constexpr int64_t kMinRun = 64;
  // Gathered offsets are kept per run; more runs than this are copied instead.
  static constexpr int64_t kMaxGathered = int64_t{1} << 16;
  // Elements per partial result of a single reduction (reduce.cpp): one output over more than
  // this is copied, so that it is split into partials as an Inner run.
  static constexpr int64_t kPart = 64 * 1024;
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
