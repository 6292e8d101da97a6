// A tensor's extremes read on the host, for composites whose result size or range depends on
// them (histc without a range, bincount).
#pragma once

#include <utility>

#include "lazygen/generated/ops/amax.h"
#include "lazygen/generated/ops/amin.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/tensor.h"

namespace lazygen {

// self's smallest and largest element as T (double or int64_t), both in one copy to the cpu:
// one sync on the lazy device. REQUIRES: self.numel() > 0.
template <class T>
std::pair<T, T> host_extremes(const Tensor& self) {
  const Tensor both = cat({reshape(amin(self), {1}), reshape(amax(self), {1})})
                          .to(dtype_of<T>())
                          .cpu()
                          .contiguous();
  const T* e = both.data_ptr<T>();
  return {e[0], e[1]};
}

}  // namespace lazygen
