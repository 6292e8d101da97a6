// The int[2] / int[3] arguments of the pooling composites (resample.cpp, pool3d.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lazygen/shape.h"

namespace lazygen {

// The i-th of an argument for n spatial dims, which PyTorch also takes as one int for all of
// them; any other length is a ShapeError naming the op and the argument, in PyTorch's words.
inline int64_t spatial_arg(const char* op, const char* what, const std::vector<int64_t>& v,
                           size_t i, size_t n) {
  if (v.size() != 1 && v.size() != n) {
    throw ShapeError(op, std::string(what) + " must either be a single int, or a tuple of " +
                             (n == 2 ? "two" : "three") + " ints, got " + sizes_str(v));
  }
  return v.size() == 1 ? v[0] : v[i];
}

}  // namespace lazygen
