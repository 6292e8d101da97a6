// Non-temporal copies (stream_copy.h; See Note [Stream store width]).
#include "backend/cpu/fusion/stream_copy.h"

#include <algorithm>
#include <cstring>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace lazygen::cpu::fusion {
namespace {

#if defined(__x86_64__)

// Bytes to copy with plain stores before dst + head is `width`-aligned (at most `bytes`).
int64_t head_bytes(const char* dst, int64_t bytes, int64_t width) {
  const auto misaligned = static_cast<int64_t>(reinterpret_cast<uintptr_t>(dst) & (width - 1));
  return std::min<int64_t>(bytes, (width - misaligned) & (width - 1));
}

void stream_copy_sse2(char* dst, const char* src, int64_t bytes) {
  int64_t i = head_bytes(dst, bytes, 16);
  std::memcpy(dst, src, static_cast<size_t>(i));
  for (; i + 16 <= bytes; i += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
  }
  std::memcpy(dst + i, src + i, static_cast<size_t>(bytes - i));
}

__attribute__((target("avx2"))) void stream_copy_avx2(char* dst, const char* src,
                                                      int64_t bytes) {
  int64_t i = head_bytes(dst, bytes, 32);
  std::memcpy(dst, src, static_cast<size_t>(i));
  for (; i + 32 <= bytes; i += 32) {
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
  }
  std::memcpy(dst + i, src + i, static_cast<size_t>(bytes - i));
}

using CopyFn = void (*)(char*, const char*, int64_t);

CopyFn widest_copy() {
  __builtin_cpu_init();  // may run before the constructors that initialize cpu detection
  return __builtin_cpu_supports("avx2") ? &stream_copy_avx2 : &stream_copy_sse2;
}

#endif

}  // namespace

void stream_copy(char* dst, const char* src, int64_t bytes) {
#if defined(__x86_64__)
  static const CopyFn copy = widest_copy();
  copy(dst, src, bytes);
#else
  std::memcpy(dst, src, static_cast<size_t>(bytes));
#endif
}

void stream_fence() {
#if defined(__x86_64__)
  _mm_sfence();
#endif
}

}  // namespace lazygen::cpu::fusion
