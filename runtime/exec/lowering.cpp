// scalar_of and input_as_tensor (exec/lowering.h); lowering_for itself is generated
// (generated/src/lowering.cpp).
#include "exec/lowering.h"

#include <stdexcept>

#include "backend/backend.h"
#include "lazygen/factory.h"

namespace lazygen::exec {

Tensor input_as_tensor(const Input& input) {
  if (!input.is_scalar()) return input.tensor;
  return scalar_tensor(input.scalar, input.scalar.dtype());
}

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
