// Philox4x32-10, the counter-based generator of Salmon et al. (SC'11) as specified by Random123:
// four 32-bit outputs per (128-bit counter, 64-bit key). Stateless and cheap, so any element of
// a random tensor can be computed independently (threads and GPUs agree with the serial stream).
#pragma once

#include <array>
#include <cstdint>

namespace lazygen::detail {

using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

inline PhiloxCounter philox4x32_10(PhiloxCounter c, PhiloxKey k) {
  constexpr uint32_t kMul0 = 0xD2511F53, kMul1 = 0xCD9E8D57;
  constexpr uint32_t kWeyl0 = 0x9E3779B9, kWeyl1 = 0xBB67AE85;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{kMul0} * c[0];
    const uint64_t p1 = uint64_t{kMul1} * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
    k = {k[0] + kWeyl0, k[1] + kWeyl1};
  }
  return c;
}

// The block at position `counter` of the stream of `seed`.
inline PhiloxCounter philox_block(uint64_t seed, uint64_t counter) {
  return philox4x32_10({static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0, 0},
                       {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
}

}  // namespace lazygen::detail
