// Row bands: consecutive fusion groups that run row block by row block, so that what one group
// writes and the next reads stays in cache.
//
// Note [Row bands]
// A row-normalizing computation (layer_norm, a softmax written with ops, a loss over logits)
// plans as several groups over the same rows: a reduction of x over the last dim, a group that
// folds another reduction of x, a small group over the per-row statistics, and a last group that
// reads x again and writes the result. Run one after the other, each streams the whole tensor
// through memory, so x is read from DRAM three times. But every value they pass along is
// row-local: row r of each group reads only row r of what the others wrote. So the groups can
// run together a block of rows at a time: each thread takes the next block and runs every group
// of the band over those rows before taking another, and x is read from DRAM once and from cache
// after that.
// A band is a run of two or more consecutive group steps of the schedule and a row count R such
// that, for each member:
//   - its iteration space splits into R equal ranges of consecutive elements: a prefix of its
//     sizes multiplies to R (and nothing is empty);
//   - it folds no reduction, or a Trailing one that keeps those prefix dims (each output then
//     reduces elements of one row), or a Leading one that reduces them (each row adds to every
//     output: a bias or layer_norm weight gradient); a full reduction ends the band;
//   - every value it reads that an earlier member of the band computed is read row-locally:
//     row r of the iteration reads only row r of the value (the value splits into R rows too,
//     and the index map's strides over the prefix dims step exactly one row of the value, its
//     offset and other strides stay inside a row).
// Values read from outside the band can be read any way: nothing in the band writes them (a
// group writes a graph input in place only when no other step reads it; See Note [In-place
// outputs] in in_place.h). The member's element order within a row is unchanged, so a band
// computes bit for bit what its groups compute one after the other. A Leading reduction joins
// only over exactly its reduced rows and when its unbanded fold splits them into several row
// parts (See Note [Leading reduction parts] in reduction_parts.h): the band then deals out those
// parts instead of single blocks, each folding into its own partial vector, added in part order
// at the end, so every output adds the same rows in the same order as unbanded (and the band
// keeps at least two items for the threads); other Leading members of the band must agree on
// the parts.
// Among the row counts the first group allows, the planner takes the one that lets the band
// grow longest (the larger on a tie, for more blocks). Bands are only worth it when the data
// outgrows the caches, so a band's largest member must hold at least kBandMinBytes. A block is
// as many rows as make about kBandBlockBytes of the widest member's iteration: small enough
// that a block's rows of every value stay in L2 between the groups, large enough that a
// thread's per-block overhead (one tile runner per member) is noise.
// The memory plan treats a band as one step: a buffer written or read by any member lives from
// the band's first step to its last (blocks interleave the members' writes and reads).
//
// Thread safety: pure functions; row_bands_on reads an atomic flag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fusion/fusion_plan.h"

namespace lazygen::fusion {

inline constexpr int64_t kBandMinBytes = int64_t{1} << 20;
inline constexpr int64_t kBandBlockBytes = int64_t{128} << 10;
inline constexpr size_t kMaxBandMembers = 16;  // groups per band, at most

// The bands of `plan`'s schedule (See Note [Row bands]).
std::vector<Band> find_bands(const exec::Graph& graph, const FusionPlan& plan);

// Per schedule step: the first and last step of the band it belongs to (itself twice when none).
struct StepSpan {
  uint32_t first = 0;
  uint32_t last = 0;
};
std::vector<StepSpan> band_spans(const FusionPlan& plan);

// Whether executions run bands block by block (lazygen::set_row_bands_enabled; else their groups
// one after the other, the reference for A/B checks); read per execution.
bool row_bands_on();

}  // namespace lazygen::fusion
