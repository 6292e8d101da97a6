// Ahead-of-time kernels for the fused CPU backend: fusion groups known when the program is built
// never run on the interpreter's per-op tile kernels (See Note [AOT kernels] in
// backend/cpu/fusion/aot_kernel.h).
//
//   LAZYGEN_RECORD=app.manifest ./app     # records every fusion group the run compiles
//   lazygen --kernels app.manifest -o gen # (or lazygen_add_kernels(app MANIFEST app.manifest))
//   ./app                                 # groups of the manifest run their prebuilt kernels
//
// Counters (lazygen/metrics.h): `aot.hit` and `aot.miss` per compiled fusion group that has ops
// (also while AOT is off: they say whether a kernel exists), `aot.stale` for a prebuilt kernel of
// another IR version or ops.yaml (it falls back, never runs).
// Thread safety: every function here may be called from any thread.
#pragma once

#include <string>

namespace lazygen {

// AOT kernels are used unless the environment sets LAZYGEN_AOT=0 or this turns them off; off,
// every group runs on the interpreter (the reference for A/B checks). Takes effect at once,
// also for graphs already compiled.
void set_aot_enabled(bool enabled);
bool aot_enabled();

// Appends every fusion group compiled from now on to the manifest at `path` (created if absent;
// entries already there are kept, the file stays sorted and free of duplicates). An empty path
// stops recording. LAZYGEN_RECORD=path starts it at startup.
void set_aot_record_path(const std::string& path);

// The groups compiled without a usable AOT kernel so far, as a manifest to add to yours (empty
// when there were none). Stale kernels are listed as comments saying so.
std::string aot_miss_report();

}  // namespace lazygen
