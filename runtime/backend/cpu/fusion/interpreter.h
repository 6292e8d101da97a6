// The blocked vector interpreter: runs a compiled fusion group (group_program.h) over its
// bound buffers.
//
// Note [Blocked vector interpreter]
// A group runs tile by tile over its collapsed row-major iteration space. A tile is up to
// GroupProgram::tile elements of one innermost row: each input is read in place when it already
// holds T and its innermost stride is 1 (contiguous) or 0 (broadcast along the row), and is
// otherwise converted or gathered into its tile buffer; then the per-op tile kernels run one
// after the other on L1-resident tile registers (See Note [Tile registers]); members stored
// as T are computed straight into their output memory, others (bool comparisons) converted
// into it right after their op. A folded reduction over trailing dims adds each tile of its
// input into the accumulator of the output the tile belongs to (outputs reduce consecutive
// ranges); one over leading dims adds the tile into a vector of accumulators, one per output
// (See Note [Leading reduction parts] in fusion/reduction_parts.h). No allocation and no compiler:
// pointers are computed per tile from the program's strides (tile_runner.h), and registers live in
// per-thread scratch memory that grows once. Threads: once a group's work (elements times ops) is
// worth it, the pool's threads take blocks of elements (or of whole reduction outputs, or reduction
// parts) from a shared counter, so a thread the OS delays on these shared cores does fewer blocks
// instead of holding up the rest. Full reductions sum fixed 64K-element parts in order, so results
// never depend on the thread count; accumulators are double for floating T and int64 for integral
// T, as the eager kernels use. Groups larger than the caches stream (See Note [Streaming groups]).
//
// Thread safety: run_group may run concurrently on distinct bindings.
#pragma once

#include <cstdint>

#include "backend/cpu/fusion/group_program.h"
#include "backend/cpu/fusion/tile_scalar.h"
#include "fusion/reduction_parts.h"

namespace lazygen::cpu::fusion {

struct GroupBindings {
  const char* const* inputs = nullptr;  // per Group::inputs: element 0 of its contiguous base
  char* const* outputs = nullptr;       // per GroupProgram::outputs: contiguous memory
  char* reduction = nullptr;            // the reduction's contiguous output
  const TileScalar* scalars = nullptr;  // per GroupProgram::scalar_nodes
  void* partials = nullptr;             // 8 bytes per num_partials(program)
};

// Scratch a full reduction or a Leading one needs in GroupBindings::partials, in 8-byte slots
// (0 for other groups).
int64_t num_partials(const GroupProgram& program);

void run_group(const GroupProgram& program, const GroupBindings& bindings);

// A group of a row band (See Note [Row bands] in row_bands.h) with its bindings.
struct BandMember {
  const GroupProgram* program = nullptr;
  GroupBindings bindings;
};

// Runs `count` groups as one band of `rows` rows: threads take blocks of `rows_per_block` rows
// and run every member over a block, in order, before taking the next; with `parts` > 0 they
// take parts instead, rows [k * rows / parts, (k + 1) * rows / parts) each, block by block.
// REQUIRES: each member's iteration splits into `rows` equal ranges; a reducing member folds
// whole outputs per row (Trailing) or reduces exactly those rows (Leading: reduce_run == rows
// and leading_parts(...) == parts, so its num_partials slots hold a partial vector per part).
void run_band(const BandMember* members, size_t count, int64_t rows, int64_t rows_per_block,
              int64_t parts);

}  // namespace lazygen::cpu::fusion
