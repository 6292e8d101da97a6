// Kernel manifests, as the runtime records them, for `lazygen --kernels`. Their text has one
// definition, shared with the runtime: runtime/fusion/kernel_key.h (See Notes [Group keys] and
// [Canonical manifests] there). This header brings it into the generator and reports its errors
// as the generator's own:
//
//   lazygen-manifest 1
//   kernel T=float32 load=float32:c load=float32:b op=mul.Tensor(l0,l1) out=v0:float32
//   kernel T=float32 load=float32:c load=float32:b op=mul.Tensor(l0,l1) out=v0:float32 cuda=1:CB
//
// A key ending in `cuda=<rank>:<access letters>` is a CUDA key (See Note [CUDA group keys] in
// runtime/backend/cpu/fusion/group_key.h): a CUDA kernel for the group, whose cpu kernel is the
// key without that field (cpu_key()). Which ops exist and take how many operands is the
// emitter's check (it knows ops.yaml).
#pragma once

#include <string>
#include <vector>

#include "fusion/kernel_key.h"
#include "model/diagnostic.h"

namespace lazygen::gen {

// The manifest and key version this lazygen reads and emits kernels for.
inline constexpr int kManifestVersion = fusion::kKeyVersion;

using fusion::cpu_key;
using fusion::KernelKey;
using fusion::key_hash;
using fusion::KeyHash;
using fusion::KeyLoad;
using fusion::KeyOp;
using fusion::KeyOutput;
using fusion::KeyRef;
using fusion::print_key;
using fusion::text_hash;

// Where a key's text came from, as the generator's diagnostics say it.
inline SourceLoc source_loc(const fusion::KeyLoc& loc) {
  return {loc.file, loc.line, loc.col};
}

// fusion::parse_manifest, throwing GenError (file:line:col) on anything malformed.
std::vector<KernelKey> parse_manifest(const std::string& text, const std::string& path);

}  // namespace lazygen::gen
