// The static memory plan of a compiled graph: where its intermediate buffers live.
//
// Intermediates that only fusion groups read (members a later group reads, folded reductions
// consumed by groups) need no tensor: they get an offset in one arena, allocated from the
// caching allocator once per execution, and buffers whose lifetimes do not overlap share bytes.
// A lifetime is the closed range of schedule steps from the one that writes the buffer to the
// last one that reads it. Values that reach a lowered step or the caller are tensors instead:
// a library kernel may return a view of its input, which must not point into the arena.
//
// Note [Memory across executions]
// Nothing a plan allocates outlives an execution except its outputs, so running the same graph
// step after step keeps memory flat: the arena and the tensors of intermediate values go back
// to the caching allocator, which hands the same blocks out again the next step. Outputs are
// fresh tensors (the caller owns them); an output of the previous execution that nobody
// references any more (use counts of its tensor and storage are 1) is written again instead of
// allocating. An optimizer's in-place update of a persistent tensor returns its new value as an
// output while the old value is still an input; it is written into the input's own storage when
// nothing else can read the old value (See Note [In-place outputs] in in_place.h), so such
// tensors keep one buffer.
//
// Thread safety: plan_memory is a pure function.
#pragma once

#include <cstdint>
#include <vector>

namespace lazygen::fusion {

struct BufferRequest {
  int64_t bytes = 0;
  uint32_t first_step = 0;  // writes it
  uint32_t last_step = 0;   // last reads it
};

struct MemoryPlan {
  std::vector<int64_t> offsets;  // per request, 64-byte aligned
  int64_t arena_bytes = 0;
};

// Greedy placement, largest buffers first, each at the lowest offset where it overlaps no
// placed buffer whose lifetime overlaps its own.
MemoryPlan plan_memory(const std::vector<BufferRequest>& requests);

}  // namespace lazygen::fusion
