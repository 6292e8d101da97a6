// Hashing for IR nodes. Note [IR hashing]: hashes are 64-bit, computed once per node, and combine
// values bitwise (floats by their bit patterns, so 0.0 and -0.0 differ and NaN equals NaN), the
// same relation the trie cache uses for reuse. Equal inputs give equal hashes in every process
// (no pointer values, no std::hash), so hashes may key on-disk caches.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "lazygen/device.h"
#include "lazygen/scalar.h"
#include "lazygen/shape.h"
#include "lazygen/types.h"

namespace lazygen::ir {

using hash_t = uint64_t;

// Mixes `v` into `seed` (a 64-bit variant of boost's hash_combine with a strong finalizer).
constexpr hash_t hash_combine(hash_t seed, uint64_t v) {
  v ^= v >> 33;
  v *= 0xff51afd7ed558ccdULL;
  v ^= v >> 33;
  return seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

hash_t hash_value(std::string_view s);
inline hash_t hash_value(bool v) { return v ? 0x5bd1e995ULL : 0x1b873593ULL; }
inline hash_t hash_value(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return hash_combine(0x3c6ef372ULL, bits);
}
template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
hash_t hash_value(T v) {
  // The width is part of the hash so int32 5 and int64 5 differ.
  return hash_combine(sizeof(T), static_cast<uint64_t>(v));
}
template <class E, std::enable_if_t<std::is_enum_v<E>, int> = 0>
hash_t hash_value(E v) {
  return hash_combine(0x7f4a7c15ULL, static_cast<uint64_t>(v));
}
inline hash_t hash_value(const Scalar& s) { return hash_combine(hash_value(s.dtype()), s.bits()); }
inline hash_t hash_value(const Device& d) { return hash_combine(hash_value(d.type), d.index); }
hash_t hash_value(const Shape& s);
// Without this a string literal would convert to bool and hash as `true`.
inline hash_t hash_value(const char* s) { return hash_value(std::string_view(s)); }
inline hash_t hash_value(const Stream& s) { return hash_combine(0x510e527fULL, hash_value(s.id)); }
inline hash_t hash_value(const Generator& g) {
  return hash_combine(hash_value(g.seed()), hash_value(g.offset()));
}
// A Storage attribute is compared by identity (attr_equal on the pointer); its hash uses only what
// identity implies (size, device), never the address, so it stays stable across processes.
inline hash_t hash_value(const std::shared_ptr<Storage>& s) {
  return s ? hash_combine(hash_value(s->nbytes()), hash_value(s->device())) : 0x6a09e667ULL;
}
// Declared before their definitions so that each container overload finds the other.
template <class T>
hash_t hash_value(const std::optional<T>& v);
template <class T>
hash_t hash_value(const std::vector<T>& v);
template <class T>
hash_t hash_value(const std::optional<T>& v) {
  return v ? hash_combine(0x2545f491ULL, hash_value(*v)) : 0x4f1bbcdcULL;
}
template <class T>
hash_t hash_value(const std::vector<T>& v) {
  hash_t h = hash_value(v.size());
  for (const auto& x : v) h = hash_combine(h, hash_value(x));
  return h;
}

// hash_all(a, b, c) == hash_combine(hash_combine(hash_combine(seed, h(a)), h(b)), h(c)).
template <class... Ts>
hash_t hash_all(const Ts&... vs) {
  hash_t h = 0x84222325cbf29ce4ULL;
  ((h = hash_combine(h, hash_value(vs))), ...);
  return h;
}

}  // namespace lazygen::ir
