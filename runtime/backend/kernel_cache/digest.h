// Content digests for the kernel cache: a seeded 64-bit hash of bytes, stable across processes,
// machines and builds (no std::hash, no pointers), so it may name files and check payloads on disk.
// Not cryptographic: it detects corruption and spreads keys over file names; the cache never trusts
// a digest alone (the full key is compared on load). See Note [Kernel cache entry format].
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lazygen::kernel_cache {

// FNV-1a over `bytes` from `seed`, then a 64-bit finalizer (murmur3's fmix64) to spread the bits.
uint64_t digest64(std::string_view bytes, uint64_t seed = 0);

// `v` as 16 lowercase hex digits.
std::string hex64(uint64_t v);

// A 128-bit digest of a kernel's source text as 32 hex digits (two independently seeded
// digest64s), the `source_hash` of a KernelKey.
std::string source_digest(std::string_view source);

}  // namespace lazygen::kernel_cache
