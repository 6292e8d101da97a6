// The out-of-line hash_value overloads of core/ir/hash.h. See Note [IR hashing].
#include "core/ir/hash.h"

namespace lazygen::ir {

hash_t hash_value(std::string_view s) {
  // FNV-1a over the bytes, then mixed like every other value so short strings spread well.
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return hash_combine(hash_value(s.size()), h);
}

hash_t hash_value(const Shape& s) {
  return hash_combine(hash_value(s.dtype), hash_value(s.sizes));
}

}  // namespace lazygen::ir
