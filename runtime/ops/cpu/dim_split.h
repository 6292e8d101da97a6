// A tensor's sizes seen around one dim, as the kernels that walk rows or columns of it need them.
#pragma once

#include <cstdint>
#include <vector>

namespace lazygen::cpu {

// Sizes as [outer, size, inner]: the product of the dims before d, sizes[d], and the product of
// the dims after d. A 0-dim tensor (d = -1 or 0 over no sizes) is [1, 1, 1].
struct DimSplit {
  int64_t outer = 1, size = 1, inner = 1;
};

inline DimSplit split_at_dim(const std::vector<int64_t>& sizes, int64_t d) {
  DimSplit s;
  for (int64_t i = 0; i < static_cast<int64_t>(sizes.size()); ++i) {
    (i < d ? s.outer : i == d ? s.size : s.inner) *= sizes[i];
  }
  return s;
}

}  // namespace lazygen::cpu
