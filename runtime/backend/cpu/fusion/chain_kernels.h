// Register chains: runs of a fused group's ops evaluated strip by strip in vector registers
// instead of one L1 pass per op (See Note [Register chains]).
//
// Note [Register chains]
// The interpreter runs each op of a tile as its own pass over L1 tile registers (See Note
// [Blocked vector interpreter]), so an op costs a store of the whole tile, and a streaming group
// of eight ops spends longer on those stores than DRAM takes to deliver the tile. A chain is a
// run of two or more consecutive ops in which each op's value is read only by the next, once
// (compile_group finds them; the value is not an output and not the reduced one). The chain
// kernel keeps that value, the accumulator, in kChainVectors vector registers (Lanes<T>, See
// Note [Lane semantics]) for one strip of kChainVectors * Lanes<T>::kSize elements and applies
// the ops to it in turn, each reading its other operands from memory, then stores the strip to
// the last op's location: one load and one store per strip instead of one per op.
// No compiler at run time: the generator emits one dispatcher (generated/src/chain_dispatch.cpp)
// whose switch has a case per chainable op and accumulator slot, each calling chain_step with
// the op's scalar functor, so the whole chain runs inside one function and the accumulator never
// leaves registers. The switch is dispatched once per strip and op, and the pattern repeats
// every strip, so the branch predictor learns it.
// In a streaming group (See Note [Streaming groups]) the kernel prefetches, per strip, the
// same strip of the next tile of every input read in place, and, when the last op's value is a
// streamed output that no later op reads, writes it there straight from the registers with
// non-temporal stores (at a vector-aligned address; else into its register, copied out after).
// Both were measured on chain_16m/interp: bunched at the tile's start, the prefetches left
// chains 1.14x faster than the per-op path; spread per strip, 1.74x (1.12-1.23x copy).
// Operands read with stride 0 (broadcasts) are copied into a strip-long splat buffer first, so
// every operand is addressed as base + i * stride + lane offset with stride 0 or 1.
// A tile's elements past its last whole strip run through the per-op tile kernels, which is
// also the path when chains are off (set_register_chains_enabled); ops keep their locations for
// that.
// Results equal the per-op path's bit for bit (See Note [Lane semantics]).
//
// Thread safety: chain kernels are pure functions of their arguments.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "backend/cpu/fusion/lanes.h"
#include "backend/cpu/fusion/tile_kernels.h"

namespace lazygen::cpu {

inline constexpr int kChainVectors = 8;  // accumulator registers per strip

// Elements per strip of a chain computing in T.
template <class T>
inline constexpr int64_t kChainStrip = int64_t{kChainVectors} * fusion::Lanes<T>::kSize;

// One op of a chain: which generated case runs it and its operands for this tile.
struct ChainStep {
  int16_t kernel = 0;  // PointwiseInfo::chain + the accumulator's tensor slot
  std::array<const void*, kMaxTileInputs> in{};  // per tensor slot (the accumulator's unread)
  std::array<int64_t, kMaxTileInputs> stride{};  // 1, or 0 for a splat buffer (and the slot)
  // The Scalar operands converted to T, each repeated over a vector (loaded, not built, per strip).
  alignas(fusion::kLaneBytes)
      std::array<std::array<unsigned char, fusion::kLaneBytes>, kMaxTileScalars> scalars{};

  template <class T>
  fusion::Lanes<T> scalar(int k) const {
    return fusion::Lanes<T>::load(
        reinterpret_cast<const T*>(scalars[static_cast<size_t>(k)].data()));
  }
  template <class T>
  void set_scalar(int k, T x) {
    for (int i = 0; i < fusion::Lanes<T>::kSize; ++i) {
      std::memcpy(scalars[static_cast<size_t>(k)].data() + i * sizeof(T), &x, sizeof(T));
    }
  }
};

struct ChainArgs {
  int64_t n = 0;                // elements: a multiple of kChainStrip<T>
  const void* first = nullptr;  // the first op's accumulator operand
  int64_t first_stride = 1;     // 1, or 0 for a splat buffer
  const ChainStep* steps = nullptr;
  int num_steps = 0;
  void* out = nullptr;  // the last op's location, or (stream) its output's memory
  bool stream = false;  // non-temporal stores; out is then kLaneBytes-aligned
  // Streaming groups: per strip, the same strip `ahead` bytes further on in each of these
  // (the next tile of the inputs read in place, See Note [Streaming groups]) is prefetched.
  std::array<const char*, kMaxTileInputs> prefetch{};
  int num_prefetch = 0;
  int64_t ahead = 0;
};

using ChainFn = void (*)(const ChainArgs&);

// The chain kernel for group dtype `t`, or nullptr where chains do not run (integral and bool
// groups). Generated with the dispatcher.
ChainFn chain_kernel(DType t);

// Whether interpreters run chains (lazygen::set_register_chains_enabled); read per group run.
bool register_chains_on();

namespace fusion {

template <bool kAcc, class T>
Lanes<T> chain_operand(Lanes<T> acc, const T* p, int64_t offset) {
  if constexpr (kAcc) {
    return acc;
  } else {
    return Lanes<T>::load(p + offset);
  }
}

template <class Fn, class T, int Slot, size_t... I, size_t... S>
void chain_apply(const ChainStep& s, Lanes<T>* acc, int64_t i, std::index_sequence<I...>,
                 std::index_sequence<S...>) {
  constexpr int kW = Lanes<T>::kSize;
  [[maybe_unused]] const T* in[] = {(static_cast<const T*>(s.in[I]) + i * s.stride[I])..., nullptr};
  [[maybe_unused]] const Lanes<T> scalars[] = {s.template scalar<T>(S)..., Lanes<T>{}};
  Fn fn;
#pragma GCC unroll 8
  for (int r = 0; r < kChainVectors; ++r) {
    acc[r] = to_lanes<T>(
        fn(chain_operand<static_cast<int>(I) == Slot, T>(acc[r], in[I], r * kW)..., scalars[S]...));
  }
}

}  // namespace fusion

// Applies functor Fn to the accumulator of strip `i` (its element offset), the accumulator
// taking tensor slot Slot. Generated dispatchers call it. Nothing for a T that Fn does not compute
// in: no group of that dtype holds its node.
template <class Fn, class T, int Slot>
inline void chain_step(const ChainStep& s, fusion::Lanes<T>* acc, int64_t i) {
  if constexpr (kComputesIn<Fn, T>) {
    fusion::chain_apply<Fn, T, Slot>(s, acc, i, std::make_index_sequence<Fn::kTensors>{},
                                     std::make_index_sequence<Fn::kScalars>{});
  }
}

namespace fusion {

// A strip's vector stored with a non-temporal store, 32 bytes at once (AVX) or as two 16-byte
// halves (SSE2); p is kLaneBytes-aligned. Only called from the flattened chain kernels below,
// which inline them into their own instruction set.
#if defined(__x86_64__) && defined(__GNUC__)
template <class T>
__attribute__((target("avx2"))) inline void stream_lanes_avx(T* p, Lanes<T> v) {
  if constexpr (std::is_same_v<T, float>) {
    _mm256_stream_ps(p, reinterpret_cast<__m256>(v.v));
  } else {
    _mm256_stream_pd(p, reinterpret_cast<__m256d>(v.v));
  }
}
#endif
template <class T>
inline void stream_lanes_sse(T* p, Lanes<T> v) {
#if defined(__x86_64__)
  __m128i half[2];
  std::memcpy(half, &v.v, kLaneBytes);
  _mm_stream_si128(reinterpret_cast<__m128i*>(p), half[0]);
  _mm_stream_si128(reinterpret_cast<__m128i*>(p) + 1, half[1]);
#else
  v.store(p);
#endif
}

// The chain kernel's loop; Dispatch::step<T>(step, acc, i) runs one ChainStep (the generated
// switch). Instantiated once per instruction set (chain_strips below).
template <class T, class Dispatch, bool kAvx>
inline void chain_loop(const ChainArgs& a) {
  using L = Lanes<T>;
  const T* first = static_cast<const T*>(a.first);
  T* out = static_cast<T*>(a.out);
  for (int64_t i = 0; i < a.n; i += kChainStrip<T>) {
    L acc[kChainVectors];
#pragma GCC unroll 8
    for (int r = 0; r < kChainVectors; ++r)
      acc[r] = L::load(first + i * a.first_stride + r * L::kSize);
    for (int q = 0; q < a.num_prefetch; ++q) {
      const char* next =
          a.prefetch[static_cast<size_t>(q)] + a.ahead + i * static_cast<int64_t>(sizeof(T));
      for (int64_t line = 0; line < kChainStrip<T> * static_cast<int64_t>(sizeof(T)); line += 64) {
        __builtin_prefetch(next + line, 0, 3);
      }
    }
    for (int k = 0; k < a.num_steps; ++k) Dispatch::template step<T>(a.steps[k], acc, i);
    if (a.stream) {
#pragma GCC unroll 8
      for (int r = 0; r < kChainVectors; ++r) {
#if defined(__x86_64__) && defined(__GNUC__)
        if constexpr (kAvx) {
          stream_lanes_avx(out + i + r * L::kSize, acc[r]);
          continue;
        }
#endif
        stream_lanes_sse(out + i + r * L::kSize, acc[r]);
      }
    } else {
#pragma GCC unroll 8
      for (int r = 0; r < kChainVectors; ++r) acc[r].store(out + i + r * L::kSize);
    }
  }
}

// Flattened: everything the loop calls is inlined, so the dispatcher's cases run with the
// function's instruction set and the accumulator stays in registers across them.
template <class T, class Dispatch>
__attribute__((flatten)) void chain_strips_base(const ChainArgs& a) {
  chain_loop<T, Dispatch, false>(a);
}
#if defined(__x86_64__) && defined(__GNUC__)
template <class T, class Dispatch>
__attribute__((target("avx2"), flatten)) void chain_strips_avx2(const ChainArgs& a) {
  chain_loop<T, Dispatch, true>(a);
}
#endif

}  // namespace fusion

// The chain kernel of Dispatch for T, for this cpu: AVX2 where it has it (no fma, so no
// contraction; See Note [Tile kernel clones]), else the baseline instruction set.
template <class T, class Dispatch>
ChainFn chain_strips() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx2")) return &fusion::chain_strips_avx2<T, Dispatch>;
#endif
  return &fusion::chain_strips_base<T, Dispatch>;
}

}  // namespace lazygen::cpu
