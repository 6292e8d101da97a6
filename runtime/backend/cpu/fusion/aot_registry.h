// The process's cpu AOT kernels (See Note [AOT kernels]): generated files register theirs during
// static initialization (AotRegistration); compiling a group looks its key up here. The registry
// is part of the runtime, so a program without generated kernels links and runs with an empty
// one: every group misses.
//
// A lookup finds the entry whose hash and full key text both match the group's (See Note
// [Group keys]). An entry of another IR version, of another ops.yaml (fusion::ops_fingerprint)
// or whose hash disagrees with this runtime's is stale: it is never called and the group runs on
// the interpreter. Each lookup counts `aot.hit`, `aot.miss` or (with a miss) `aot.stale`, and
// records and reports the group through fusion/aot_lookup.h, as every backend's registry does.
//
// Thread safety: all functions may be called from any thread.
#pragma once

#include "backend/cpu/fusion/aot_kernel.h"
#include "fusion/group_spec.h"

namespace lazygen::cpu::fusion {

// The kernel for `group`'s key, or nullptr (counted, recorded and reported as described above).
AotFn find_aot_kernel(const ::lazygen::fusion::GroupSpec& group);

}  // namespace lazygen::cpu::fusion
