// stream_copy: every length and destination alignment copies exactly its bytes (the head before
// the aligned part, the vector body and the tail) and writes nothing around them.
#include "backend/cpu/fusion/stream_copy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <vector>

namespace lazygen::cpu::fusion {
namespace {

TEST(StreamCopy, CopiesEveryLengthAtEveryAlignmentAndNothingAround) {
  constexpr int64_t kGuard = 64;
  std::vector<char> src(512);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i * 7 + 1);
  for (int64_t offset = 0; offset < 64; offset += 3) {
    for (int64_t bytes : {0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 255, 256, 300}) {
      alignas(64) char dst[kGuard + 64 + 300 + kGuard];
      std::fill(std::begin(dst), std::end(dst), '\x5a');
      char* at = dst + kGuard + offset;
      stream_copy(at, src.data() + offset, bytes);
      stream_fence();
      for (int64_t i = 0; i < bytes; ++i) {
        ASSERT_EQ(at[i], src[static_cast<size_t>(offset + i)]) << "offset " << offset << ", "
                                                              << bytes << " bytes, byte " << i;
      }
      for (char* p = dst; p < at; ++p) ASSERT_EQ(*p, '\x5a') << "before, offset " << offset;
      for (char* p = at + bytes; p < std::end(dst); ++p) {
        ASSERT_EQ(*p, '\x5a') << "after, offset " << offset << ", " << bytes << " bytes";
      }
    }
  }
}

}  // namespace
}  // namespace lazygen::cpu::fusion
