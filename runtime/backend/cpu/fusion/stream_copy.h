// Copies with non-temporal stores: the streaming outputs of fused groups (See Note [Streaming
// groups] in group_program.h) leave their tile registers through stream_copy.
//
// Note [Stream store width]
// On x86-64 the copy takes the widest non-temporal store the cpu has among AVX2 (32 bytes) and
// SSE2 (16 bytes), chosen once. Width matters more than it should for a memory-bound copy: on
// Zen 4, with the variants' runs rotated within one process, chain_16m/interp (bench/exec) ran
// at 0.65x copy with 16-byte stores and 0.76x with 32-byte ones (and 0.72-0.78x vs 0.76-0.82x,
// median per-run ratios, in a second two-way run). 64-byte AVX-512 stores measured the same as
// 32-byte ones. Elsewhere it is a plain memcpy.
// Tried and dropped: the last op of a chain streaming its own result from registers (a
// line-at-a-time tile kernel variant), which saves this copy's pass over the tile: no gain in
// the interpreter nor in a standalone model of it (8 L1 passes per tile and one stream out, vs
// 7 and a streaming 8th): the pass is not what bounds a streaming group here.
//
// Thread safety: stream_copy may run concurrently on disjoint destinations. Its stores are
// weakly ordered: the thread that made them must fence (stream_fence) before another reads dst.
#pragma once

#include <cstdint>

namespace lazygen::cpu::fusion {

// Copies `bytes` from src to dst (which must not overlap) bypassing the caches where possible.
void stream_copy(char* dst, const char* src, int64_t bytes);

// Orders this thread's earlier stream_copy stores before its later stores (sfence on x86-64).
void stream_fence();

}  // namespace lazygen::cpu::fusion
