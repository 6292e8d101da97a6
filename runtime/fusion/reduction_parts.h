// How a folded reduction's work splits into parts, fixed by the plan's shapes alone so that a
// reduction's result is the same for every thread count, run and backend that follows it (the
// cpu interpreter does; row bands deal out the same parts, row_bands.h).
//
// Note [Leading reduction parts]
// A reduction over leading dims (See Note [Folded reduction layouts] in fusion_plan.h) sends
// element e of the iteration to output e mod inner. Each output accumulates in the eager kernel's
// accumulator (double for floating T, int64 for integral T, T for amax), row after row in order.
// The work splits into items of (row part, column block): column blocks of kLeadingColumns
// outputs, and, when there are fewer than kMaxRowParts blocks and the group has at least
// kReducePart elements, up to kMaxRowParts row parts, each filling its own partial vector. The
// partial vectors are merged in part order at the end, so both splits depend on the shape alone:
// results are the same for every thread count and run. With one part, each output adds its rows
// in the order of the eager kernel's Outer layout (ops/cpu/reduce.cpp), so the result equals
// eager's bit for bit; with several, only the grouping of the additions differs.
//
// Thread safety: pure functions.
#pragma once

#include <algorithm>
#include <cstdint>

namespace lazygen::fusion {

inline constexpr int64_t kReducePart = 64 * 1024;  // elements per partial sum of a full reduction
inline constexpr int64_t kLeadingColumns = 1024;   // outputs per item of a Leading reduction
inline constexpr int64_t kMaxRowParts = 8;  // partial vectors of a Leading reduction, at most

// How many row parts, each with its own partial vector, a Leading reduction of `rows` rows of
// `inner` outputs (`numel` elements) splits into.
inline int64_t leading_parts(int64_t numel, int64_t rows, int64_t inner) {
  const int64_t blocks = (inner + kLeadingColumns - 1) / kLeadingColumns;
  return std::max<int64_t>(1, std::min({rows, kMaxRowParts / blocks, numel / kReducePart}));
}

}  // namespace lazygen::fusion
