// scalar_of (exec/lowering.h); lowering_for itself is generated (generated/src/lowering.cpp).
#include "exec/lowering.h"

#include <stdexcept>

namespace lazygen::exec {

Scalar scalar_of(const Tensor& t) {
  if (!t.defined() || !t.device().is_cpu() || t.numel() != 1) {
    throw std::invalid_argument("scalar_of: expected a one-element cpu tensor");
  }
  return dispatch_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return Scalar(*t.data_ptr<T>());
  });
}

}  // namespace lazygen::exec
