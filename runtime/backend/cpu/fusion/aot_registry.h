// The process's AOT kernels (See Note [AOT kernels]): generated files register theirs during
// static initialization (AotRegistration); compiling a group looks its key up here. The registry
// is part of the runtime, so a program without generated kernels links and runs with an empty
// one: every group misses.
//
// A lookup finds the entry whose hash and full key text both match the group's (See Note
// [Group keys]). An entry of another IR version, of another ops.yaml (pointwise_fingerprint())
// or whose hash disagrees with this runtime's is stale: it is never called and the group runs on
// the interpreter. Each lookup counts `aot.hit`, `aot.miss` or (with a miss) `aot.stale`,
// remembers misses for aot_miss_report() and, while recording, adds the group's key and its CUDA
// key (See Note [CUDA group keys]) to the manifest.
//
// Thread safety: all functions may be called from any thread.
#pragma once

#include <string>

#include "backend/cpu/fusion/aot_kernel.h"
#include "backend/cpu/fusion/group_program.h"

namespace lazygen::cpu::fusion {

// The kernel for `program`'s key, or nullptr (counted and recorded as described above).
AotFn find_aot_kernel(const GroupProgram& program);

// Whether groups with a kernel run it (lazygen/aot.h); read on every group run.
bool aot_kernels_enabled();

// Forgets the misses aot_miss_report() lists (tests).
void reset_aot_misses();

// For other backends' AOT registries (the CUDA one): while recording, adds `cuda_key` (See Note
// [CUDA group keys]) and its group key to the manifest, as find_aot_kernel does for each group.
void record_aot_group(const std::string& cuda_key);
// Lists `key` in aot_miss_report(), as missing or (`stale`) stale.
void note_aot_miss(const std::string& key, bool stale);

}  // namespace lazygen::cpu::fusion
