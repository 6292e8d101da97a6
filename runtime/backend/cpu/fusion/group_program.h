// A fusion group compiled for the blocked vector interpreter (interpreter.h): flat arrays of
// loads, tile ops and stores over a collapsed iteration space, computed once per cached graph
// so that running a group only computes pointers and calls tile kernels. Compiled from the
// backend-neutral fusion::GroupSpec, whose loads, ops, outputs and reduction it keeps in order,
// adding where each value lives, the tile kernels, register chains and the tile length.
//
// Locations. Every tile operand lives in a location: [0, loads) the group's inputs (read in
// place, or converted / gathered into the load's own tile buffer), [loads, loads + direct) the
// output memory of members computed straight into their output, then the pooled tile registers.
// A member that is not stored directly lives in a register from its op to its last use (the op
// that reads it last, its store, or the reduction); a register freed by an op's input may be that
// op's output, since tile kernels allow out to alias an input (See Note [Tile registers]).
//
// Note [Tile registers]
// Registers are tile buffers in per-thread scratch memory, allocated by linear scan over the
// op list, so a chain of any length needs one register (the first op reads its input in place,
// the last writes its output in place) and a diamond needs one per value live across it. The
// tile length is chosen from the scratch they need, so that registers and gathered loads fit in
// the L1 data cache together with the in-place input and output lines streaming through.
//
// Note [Streaming groups]
// A group whose data is at least the L3 cache's size (stream_bytes() in group_program.cpp;
// 4 MiB when the system does not say) streams: while each op of a tile
// runs, it prefetches a slice of the next tile of every input read in place, so DRAM reads
// overlap the L1-bound ops instead of stalling the first op of each tile; and its outputs of
// dtype T are computed into registers and copied out with non-temporal stores, which skip the
// read-for-ownership of lines that are overwritten whole and leave the caches to the inputs
// (smaller outputs are computed in place: a consumer soon reads them from cache). Each gained
// about 10% on the 16M-element chain benchmark (bench/exec, 64 MiB of data). Below the
// last-level cache's size non-temporal stores cost instead: they send an output to DRAM that
// the next group (or the caller) would read from cache (layer_norm over [4096, 1024] float32,
// 16 MiB in and out under a 32 MiB L3, ran faster once its groups stopped streaming). A register
// chain (See Note [Register chains]) prefetches per strip instead, and streams a dead output
// straight from its registers; an AOT kernel runs in kAotChunk-element chunks, each after the
// prefetch of its chunk of the next tile: bunched at the start of the tile, the prefetches of a
// single pass stalled it (chains ran 1.14x the per-op path with bunched prefetches, 1.74x spread).
// Tile length: on Cooper Lake (16-byte streams) 1K-element tiles gained 10% over 2K:
// with less of L1 taken by registers, the streaming lines stay in it. On Zen 4 with 32-byte
// streams (See Note [Stream store width]) the op list gains from 2K instead, its per-op calls
// amortized over twice the elements (chain_16m/interp, tiles rotated in one process, median
// per-run ratio to copy: 0.77-0.99 vs 0.49-0.86; 2K ahead in 7 of 9 repetitions, one tie;
// 4K: 0.35-0.66),
// while an AOT kernel, one pass per tile, keeps 1K (0.78-0.94 vs 0.61-0.89). So streaming
// elementwise groups interpret up to kStreamTile elements at a time and AOT kernels run them
// kAotTile at a time. Other groups take kAotTile on both paths: cache-resident ones were not
// measured with longer tiles, and a reducing group's folds round per tile, where the two paths
// must agree bit for bit (See Note [AOT kernels]).
//
// Thread safety: immutable after compile_group.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "backend/cpu/fusion/aot_kernel.h"
#include "backend/cpu/fusion/chain_kernels.h"
#include "fusion/group_spec.h"

namespace lazygen::cpu::fusion {

// The fusion layer's plans, node traits and op facts (runtime/fusion), which this backend's
// programs are built from, go by their short names here.
using namespace ::lazygen::fusion;

inline constexpr int64_t kAotTile = 1024;  // See Note [Streaming groups]

struct GroupProgram : GroupFrame {
  struct Load {
    uint32_t input = 0;  // index into Group::inputs (the binding's input pointers)
    int64_t offset = 0;  // elements from the base's start (slices, selects)
    DType dtype = DType::Float32;
    bool in_place = false;  // T already and innermost stride 0 or 1
  };
  struct Op {
    TileFn fn = nullptr;
    const PointwiseFacts* facts = nullptr;  // the op (its name is the op's part of group keys)
    int16_t chain = -1;                     // its first register-chain case (PointwiseInfo::chain)
    uint16_t out = 0;
    uint8_t num_in = 0;
    uint8_t num_scalars = 0;
    std::array<uint16_t, kMaxTileInputs> in{};
    std::array<uint16_t, kMaxTileScalars> scalar{};  // indices into scalar_nodes
    int16_t store = -1;  // output index to convert `out` into after the op, or -1
    // Register chains (See Note [Register chains]): on a chain's first op, one past its last op
    // (else 0); on each op of a chain, the tensor slot the accumulator takes (the first op: 0).
    uint16_t chain_end = 0;
    int8_t chain_slot = -1;
    bool chain_value_dead = false;  // a chain's first op: no op reads the last op's value
  };
  struct Output {
    uint32_t node = 0;  // the member's graph position
    DType dtype = DType::Float32;
    bool direct = false;    // computed in place (dtype T); else stored by its op
    bool streamed = false;  // stored with non-temporal stores (See Note [Streaming groups])
    uint16_t location = 0;  // a direct output's location
  };

  // The frame (dtype T, which every tile holds; the iteration space; the Scalars; the folded
  // reduction) is the GroupSpec's it was compiled from.
  std::vector<Load> loads;
  std::vector<Op> ops;
  std::vector<Output> outputs;
  uint16_t first_reg = 0;
  uint16_t num_regs = 0;
  uint16_t num_gathered = 0;  // loads with their own tile buffer
  int64_t tile = 0;           // elements per tile of the op list (AOT: at most kAotTile)
  bool prefetch = false;      // prefetch next tiles of inputs (See Note [Streaming groups])
  AotFn aot = nullptr;        // replaces the op list when set (See Note [AOT kernels])
  ChainFn chain = nullptr;    // the dtype's chain kernel, when some ops form chains
  uint16_t num_splats = 0;    // chain operands read with stride 0 (See Note [Register chains])
  uint16_t reduce_from = 0;   // the location of the values the folded reduction reduces

  uint16_t num_locations() const { return static_cast<uint16_t>(first_reg + num_regs); }
};

// Bytes of data (elements times the compute dtype's size) from which a group streams (See Note
// [Streaming groups]): the L3 cache's size, at least 4 MiB.
int64_t stream_bytes();

// Compiles the group `spec` describes (fusion::describe_group) to tile kernels; members in
// `staged` are stored from a register after their op, never computed straight into their memory
// (See Note [In-place outputs] in in_place.h). Throws std::logic_error when an op lacks the tile
// kernel its facts promise (a bug).
GroupProgram compile_group(const exec::Graph& graph, const GroupSpec& spec,
                           const std::vector<uint32_t>& staged = {});

}  // namespace lazygen::cpu::fusion
