// The contract between the fused CPU interpreter and the ahead-of-time kernels that
// `lazygen --kernels MANIFEST` emits: what one kernel computes, how it is called and how a
// generated file registers its kernels. Generated kernel files include this header and nothing
// else of the runtime's internals, so it changes only together with kAotIrVersion.
//
// Note [AOT kernels]
// An AOT kernel replaces the per-op tile kernels of one fusion group (See Note [Blocked vector
// interpreter]) by one loop that computes every op of the group per element, in locals instead
// of tile registers, with the same generated scalar functors (kernels::AddTensor, ...) and the
// same conversions to T, so its results are bit-identical to the interpreter's. Everything around
// the ops stays the interpreter's: tiling, threads, gathering strided or converted inputs,
// streaming stores, conversions of outputs to their dtype and the folded reduction. A kernel
// therefore depends only on the group's structure (its canonical key, fusion/group_key.h), never on
// extents, outer strides or offsets: one kernel serves every shape with the same structure.
// Kernels are looked up by key when a group is compiled (aot_registry.h); a group without one,
// or with one built for another IR version or another ops.yaml, runs on the interpreter.
//
// Calling convention, per tile of `n` elements:
//   in[k]    load k's tile in T: n contiguous elements, or one element for a broadcast load
//            (class `b` in the key); read only.
//   out[j]   where output j's n values in T go (its memory, or a staging tile the interpreter
//            converts or streams out afterwards).
//   reduce   where the n values the group reduces go, when that value is an op's (the key's
//            `reduce=...(v<k>)`); unused when the group reduces a load or does not reduce.
//   scalars  the group's Scalar operands, as the key's s<k> index them (converted to T with
//            TileScalar::to<T>; See Note [Exact tile scalars]).
// Outputs never alias inputs: an output written into an input's storage (See Note [In-place
// outputs]) is staged, never passed to the kernel as memory it also reads.
//
// Thread safety: kernels are pure functions of their arguments; registration happens during
// static initialization, lookups afterwards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "backend/cpu/fusion/tile_scalar.h"

// Put before a kernel's loop: its outputs never alias its inputs (above), so the compiler may
// vectorize without runtime overlap checks. GCC gives up on a loop that would need more than ten
// (e.g. four loads and three outputs: the Adadelta update stayed scalar, sqrt and div included).
#if defined(__clang__)
#define LAZYGEN_AOT_NO_ALIAS _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define LAZYGEN_AOT_NO_ALIAS _Pragma("GCC ivdep")
#else
#define LAZYGEN_AOT_NO_ALIAS
#endif

namespace lazygen::cpu::fusion {

// The IR version of keys, manifests and this calling convention. Bump it with any change to
// the key text (fusion/kernel_key.h, whose kKeyVersion must equal it), or to AotTileArgs that
// kernels generated before it would still compile against (a change of a member's type, as scalars'
// from double to TileScalar, makes stale generated kernels fail to compile instead); entries of
// another version are never called. A new key form that no earlier runtime produced
// (reduce=<op>.lead) needs no bump: every earlier key keeps its text and its meaning, so no earlier
// kernel can be called for it.
inline constexpr uint32_t kAotIrVersion = 1;

struct AotTileArgs {
  int64_t n = 0;
  const void* const* in = nullptr;
  void* const* out = nullptr;
  void* reduce = nullptr;
  const TileScalar* scalars = nullptr;
};

using AotFn = void (*)(const AotTileArgs&);

// One generated kernel. `key` is the canonical key text (fusion/group_key.h), `hash_hi`/`hash_lo`
// its 128-bit hash as the generator computed it, `generator_hash` the fingerprint of the ops.yaml
// pointwise expressions the kernel was generated from (fusion::ops_fingerprint(key) when
// current, fusion/aot_lookup.h).
struct AotEntry {
  const char* key = "";
  uint64_t hash_hi = 0;
  uint64_t hash_lo = 0;
  uint32_t ir_version = 0;
  const char* generator_hash = "";
  AotFn fn = nullptr;
};

// Adds entries to the process's registry; a generated kernel file holds one of these at
// namespace scope. `entries` must outlive the process (generated files pass static arrays).
struct AotRegistration {
  AotRegistration(const AotEntry* entries, size_t count);
};

}  // namespace lazygen::cpu::fusion
