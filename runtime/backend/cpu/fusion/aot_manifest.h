// Kernel manifests as the runtime writes them: the groups a program compiles, for
// `lazygen --kernels`. Their text is fusion/kernel_key.h's (See Note [Canonical manifests]); this
// adds writing them to a file.
//
// Thread safety: pure functions, except add_to_manifest_file (the file system).
#pragma once

#include <string>

#include "fusion/kernel_key.h"

namespace lazygen::cpu::fusion {

using ::lazygen::fusion::KeySet;
using ::lazygen::fusion::manifest_keys;
using ::lazygen::fusion::manifest_text;
using ::lazygen::fusion::merge_manifests;

// Adds `keys` to the manifest at `path` (read if present), replacing it atomically (a temporary
// file renamed over it). Returns false, after one warning on stderr, if it cannot.
bool add_to_manifest_file(const std::string& path, const KeySet& keys);

}  // namespace lazygen::cpu::fusion
