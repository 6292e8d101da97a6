// Per-op vector tile kernels: the building blocks the fused CPU interpreter composes (See Note
// [Blocked vector interpreter] in interpreter.h).
//
// For every `pointwise:` op that fusion groups can take, the generator emits
// (generated/src/tile_kernels_<shard>.cpp) a PointwiseInfo: a TileFn per compute dtype
// instantiated from the same functor the eager kernels use (kernels::AddTensor etc.), so fused and
// eager results are computed by the same expression. Which operands feed the functor is in the
// op's fusion::PointwiseFacts.
//
// A TileFn computes `n` elements of one op over a tile: out[i] = fn(in0[i*s0], in1[i*s1], ...,
// scalars...), all in the compute type T (the group's dtype). Strides are 0 (a broadcast value)
// or 1 (contiguous). `out` may alias an input (tile temporaries are reused).
#pragma once

#include <algorithm>

#include <array>
#include <cstdint>
#include <utility>

#include "backend/cpu/fusion/tile_scalar.h"
#include "core/ir/node.h"
#include "fusion/pointwise_facts.h"
#include "lazygen/dtype.h"

namespace lazygen::cpu {

inline constexpr int kMaxTileInputs = lazygen::fusion::kMaxPointwiseTensors;
inline constexpr int kMaxTileScalars = lazygen::fusion::kMaxPointwiseScalars;

struct TileArgs {
  int64_t n = 0;
  void* out = nullptr;
  std::array<const void*, kMaxTileInputs> in{};
  std::array<int64_t, kMaxTileInputs> stride{};  // 0 or 1
  std::array<TileScalar, kMaxTileScalars> scalars{};  // converted to T by the kernel
};

using TileFn = void (*)(const TileArgs&);

// The cpu backend's kernels of a `pointwise:` op that fusion groups can take (what the op is:
// lazygen::fusion::PointwiseFacts): a TileFn per group dtype, null where the
// functor does not compute in it.
struct PointwiseInfo {
  TileFn float32 = nullptr;
  TileFn float64 = nullptr;
  TileFn int64 = nullptr;
  TileFn int32 = nullptr;
  // Its first register-chain case, or -1 (See Note [Register chains]): the generator numbers the
  // chainable ops n = 0, 1, ... in ops.yaml's order, and op n with its accumulator in tensor slot s
  // runs case n * kMaxTileInputs + s of the generated dispatcher.
  int16_t chain = -1;

  TileFn for_dtype(DType t) const;
};

// The tile kernels of a pointwise op kind; nullptr where fusion::pointwise_facts is (generated).
const PointwiseInfo* pointwise_info(ir::OpKind kind);

// Note [Tile kernel clones]
// On x86-64 with GCC every tile loop (and AOT kernel) is compiled three times, for the baseline
// ISA, AVX2 and AVX-512, and the loader picks the widest the cpu runs (function
// multi-versioning): a fused group's ops run from L1 and are bound by vector width, so each
// doubling halves them where the math is heavy (gelu's backward through verf and vexp: 3.2 ns an
// element with AVX2, 1.2 with AVX-512). Results do not change: no clone contracts a * b + c
// (avx512f brings fma, and GCC contracts C++ by default, hence fp-contract=off on these functions
// alone), and each lane computes the IEEE operation the scalar code does, as the eager kernels do.
// Not under ThreadSanitizer: the loader runs the clones' resolvers before the sanitizer's runtime
// is up, and the instrumented resolvers crash the program at load time.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define LAZYGEN_TILE_CLONES \
  __attribute__((target_clones("avx512f", "avx2", "default"), optimize("fp-contract=off")))
#else
#define LAZYGEN_TILE_CLONES
#endif

// Elements per chunk of a tile with broadcast (stride-0) inputs.
inline constexpr int64_t kSplatChunk = 64;

// tile_fn<Fn, T>: the tile kernel of functor Fn in compute type T. Contiguous inputs take a loop
// the compiler vectorizes; with stride-0 inputs the tile runs in chunks of kSplatChunk elements,
// each such input read from a stack buffer holding its value kSplatChunk times, so that the same
// contiguous loop serves (a loop indexing in[k][i * stride] does not vectorize).
template <class Fn, class T, size_t... I, size_t... S>
LAZYGEN_TILE_CLONES void tile_loop(const TileArgs& a, std::index_sequence<I...>, std::index_sequence<S...>) {
  T* out = static_cast<T*>(a.out);
  [[maybe_unused]] const T scalars[sizeof...(S) + 1] = {a.scalars[S].template to<T>()..., T{}};
  [[maybe_unused]] const T* in[sizeof...(I) + 1] = {static_cast<const T*>(a.in[I])..., nullptr};
  bool contiguous = ((a.stride[I] == 1) && ... && true);
  Fn fn;
  if (contiguous) {
    for (int64_t i = 0; i < a.n; ++i) out[i] = static_cast<T>(fn.template operator()<T>(in[I][i]..., scalars[S]...));
    return;
  }
  alignas(64) T splat[sizeof...(I) + 1][kSplatChunk];
  ((a.stride[I] == 0 ? (void)std::fill_n(splat[I], kSplatChunk, in[I][0]) : (void)0), ...);
  for (int64_t c = 0; c < a.n; c += kSplatChunk) {
    const int64_t m = std::min(kSplatChunk, a.n - c);
    [[maybe_unused]] const T* p[sizeof...(I) + 1] = {(a.stride[I] == 0 ? splat[I] : in[I] + c)..., nullptr};
    T* o = out + c;
    for (int64_t i = 0; i < m; ++i) o[i] = static_cast<T>(fn.template operator()<T>(p[I][i]..., scalars[S]...));
  }
}

template <class Fn, class T>
void tile_fn(const TileArgs& a) {
  tile_loop<Fn, T>(a, std::make_index_sequence<Fn::kTensors>{}, std::make_index_sequence<Fn::kScalars>{});
}

// &tile_fn<Fn, T>, or null when Fn does not compute in T (its node is then not fused in T).
template <class Fn, class T>
constexpr TileFn tile_fn_of() {
  if constexpr (kComputesIn<Fn, T>) {
    return &tile_fn<Fn, T>;
  } else {
    return nullptr;
  }
}

}  // namespace lazygen::cpu
