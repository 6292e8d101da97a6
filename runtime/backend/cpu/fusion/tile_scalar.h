// TileScalar: a Scalar operand as the fused CPU interpreter's tile kernels and the AOT kernels
// receive it (tile_kernels.h, aot_kernel.h).
//
// Note [Exact tile scalars]
// A Scalar is bool, int64 or double; the eager kernels convert it to the compute type T with
// Scalar::to<T>(). Tile kernels must do the same conversion, so a TileScalar keeps the value in
// the category it was given in: carrying every scalar as a double would round an integral
// scalar beyond 2^53 in magnitude before it reaches an int64 group (2^53 + 1 would become 2^53),
// and would round twice where T is float. to<T>() is Scalar::to<T>() term for term.
//
// Thread safety: a plain value.
#pragma once

#include <cstdint>

#include "lazygen/scalar.h"

namespace lazygen::cpu {

struct TileScalar {
  int64_t i = 0;  // the value, when integral or bool
  double d = 0;   // the value, when floating
  bool floating = false;

  static TileScalar of(const Scalar& s) {
    return s.is_floating() ? TileScalar{0, s.to<double>(), true}
                           : TileScalar{s.to<int64_t>(), 0, false};
  }
  template <class T>
  T to() const {
    return floating ? static_cast<T>(d) : static_cast<T>(i);
  }
};

}  // namespace lazygen::cpu
