// What every backend's registry of ahead-of-time kernels does around a lookup (the cpu one,
// backend/cpu/fusion/aot_registry.h; the CUDA one, backend/cuda/aot/cuda_aot_registry.h): the
// switch of lazygen/aot.h, recording the groups a program compiles into a manifest
// (LAZYGEN_RECORD, set_aot_record_path), the misses aot_miss_report() lists, and the fingerprint
// that tells a current kernel from a stale one. Every registry records and reports through here,
// so one manifest and one report cover every backend (See Note [AOT kernels] in
// backend/cpu/fusion/aot_kernel.h).
//
// Thread safety: all functions may be called from any thread.
#pragma once

#include <set>
#include <string>
#include <string_view>

namespace lazygen::fusion {

// Whether groups with a kernel run it (lazygen/aot.h); read on every group run.
bool aot_kernels_enabled();

// Whether the groups a program compiles are recorded into a manifest.
bool aot_recording();
// While recording, adds `cuda_key` (See Note [CUDA group keys] in fusion/group_key.h) and its
// group key to the manifest.
void record_aot_group(const std::string& cuda_key);
// Lists `key` in aot_miss_report(), as missing or (`stale`) stale.
void note_aot_miss(const std::string& key, bool stale);
// Forgets the misses aot_miss_report() lists (tests).
void reset_aot_misses();

// Adds `keys` to the manifest at `path` (read if present), replacing it atomically (a temporary
// file renamed over it). Returns false, after one warning on stderr, if it cannot.
bool add_to_manifest_file(const std::string& path, const std::set<std::string>& keys);

// The fingerprint an AOT kernel for group key `key` must carry to be used here: the fingerprints
// of the key's ops in this runtime (PointwiseFacts::fingerprint: a hash of the op's schema,
// expression and dtype rule), in key order, joined by ','; "" when the key names an op this
// runtime has no pointwise facts for. Kernels carrying another are stale, so editing one op in
// ops.yaml stales only the kernels that run it.
std::string ops_fingerprint(std::string_view key);

}  // namespace lazygen::fusion
