// Kernel manifests: the fusion groups a program compiles, as the runtime records them
// (runtime/backend/cpu/fusion/aot_manifest.h), for `lazygen --kernels`. One group key per line
// (See Note [Group keys] in runtime/backend/cpu/fusion/group_key.h for the grammar):
//
//   lazygen-manifest 1
//   kernel T=float32 load=float32:c load=float32:b op=mul.Tensor(l0,l1) out=v0:float32
//   kernel T=float32 load=float32:c load=float32:b op=mul.Tensor(l0,l1) out=v0:float32 cuda=1:CB
//
// A key ending in `cuda=<rank>:<access letters>` is a CUDA key (See Note [CUDA group keys] in
// runtime/backend/cpu/fusion/group_key.h): a CUDA kernel for the group, whose cpu kernel is the
// key without that field (cpu_key()).
//
// Parsing checks everything that needs no ops.yaml (fields, their order, dtypes, stride classes,
// that every operand names a load or an earlier op) and throws GenError at file:line:col of the
// offending text; print_key gives back the canonical text the runtime prints, byte for byte.
// Which ops exist and take how many operands is the emitter's check (it knows ops.yaml).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/diagnostic.h"

namespace lazygen::gen {

// The manifest and key format version this lazygen reads and emits kernels for (the runtime's
// kAotIrVersion).
inline constexpr int kManifestVersion = 1;

struct KeyRef {
  char kind = 'l';  // l: load, v: op value, s: Scalar
  int index = 0;
  std::string str() const { return kind + std::to_string(index); }
};

struct KeyLoad {
  std::string dtype;
  char stride_class = 'c';  // c contiguous, b broadcast, s strided
};

struct KeyOp {
  std::string name;  // schema name, e.g. add.Tensor
  std::vector<KeyRef> args;
  SourceLoc loc;
};

struct KeyOutput {
  int value = 0;  // op index
  std::string dtype;
};

struct KernelKey {
  std::string dtype;  // T
  std::vector<KeyLoad> loads;
  std::vector<KeyOp> ops;
  std::vector<KeyOutput> outputs;
  std::string reduce;  // "" (none), sum, mean or amax; + ".lead" over leading dims
  KeyRef reduce_from;
  int cuda_rank = 0;        // 0: no cuda= field (a cpu key)
  std::string cuda_access;  // per load: C, B or S
  SourceLoc loc;
};

struct KeyHash128 {
  uint64_t hi = 0;
  uint64_t lo = 0;
  std::string hex() const;  // 32 lowercase hex digits, hi first
};

// Throws GenError (file:line:col) on anything malformed.
std::vector<KernelKey> parse_manifest(const std::string& text, const std::string& path);
std::string print_key(const KernelKey& key);
// `key` without its cuda= field.
KernelKey cpu_key(KernelKey key);
// The runtime's key_hash (group_key.h), bit for bit.
KeyHash128 key_hash(std::string_view key);
// A 64-bit hash of `text` (FNV-1a finished with murmur3's fmix64), as key_hash's halves.
uint64_t text_hash(std::string_view text, uint64_t basis = 0xcbf29ce484222325ULL);

}  // namespace lazygen::gen
