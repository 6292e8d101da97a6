// Kernel manifests as the runtime writes them: the groups a program compiles, for
// `lazygen --kernels` (which parses and checks them: generator/model/manifest.h).
//
//   # comment
//   lazygen-manifest 1                   the IR version (kAotIrVersion)
//   kernel T=float32 load=float32:c ...  one group key per line (See Note [Group keys])
//
// Note [Canonical manifests]
// A manifest is a set: its kernel lines are sorted bytewise and unique, so recording the same
// groups in any order, in one run or many, and merging manifests in any order, all give the
// same bytes. Comments and blank lines are not kept.
//
// Thread safety: pure functions, except write_manifest (the file system).
#pragma once

#include <set>
#include <string>
#include <vector>

namespace lazygen::cpu::fusion {

using KeySet = std::set<std::string>;

// The keys of manifest `text`; a manifest of another IR version yields none and sets `stale`.
KeySet manifest_keys(const std::string& text, bool* stale = nullptr);
// The canonical text of a set of keys (See Note [Canonical manifests]).
std::string manifest_text(const KeySet& keys);
// The union of several manifests, canonical.
std::string merge_manifests(const std::vector<std::string>& texts);

// Adds `keys` to the manifest at `path` (read if present), replacing it atomically (a temporary
// file renamed over it). Returns false, after one warning on stderr, if it cannot.
bool add_to_manifest_file(const std::string& path, const KeySet& keys);

}  // namespace lazygen::cpu::fusion
