// LAZYGEN_VECTOR_CLONES: compiles a function for AVX-512 (x86-64-v4), AVX2 (x86-64-v3) and the
// baseline, and the loader picks the widest the cpu runs (GCC function multi-versioning). For
// loops that vectorize fully and are hot enough for the width to matter (Winograd's transforms,
// the dropout mask's Philox rounds). target_clones takes no templates: put it on plain
// functions, one per dtype. Empty where multi-versioning is unavailable or unsafe: other
// compilers and architectures, and ThreadSanitizer builds (See Note [Tile kernel clones] in
// backend/cpu/fusion/tile_kernels.h).
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define LAZYGEN_VECTOR_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LAZYGEN_VECTOR_CLONES
#endif
