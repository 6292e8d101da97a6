// Seeded FNV-1a with a finalizer (digest.h).
#include "backend/kernel_cache/digest.h"

namespace lazygen::kernel_cache {
namespace {

constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

constexpr uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

}  // namespace

uint64_t digest64(std::string_view bytes, uint64_t seed) {
  uint64_t h = kFnvOffset ^ fmix64(seed);
  for (unsigned char c : bytes) {
    h ^= c;
    h *= kFnvPrime;
  }
  return fmix64(h ^ bytes.size());
}

std::string hex64(uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) out[static_cast<size_t>(i)] = kDigits[v & 0xf];
  return out;
}

std::string source_digest(std::string_view source) {
  return hex64(digest64(source, 0x736f75726365ULL)) + hex64(digest64(source, 0x6b65726e656cULL));
}

}  // namespace lazygen::kernel_cache
