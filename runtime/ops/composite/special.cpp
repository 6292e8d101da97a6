// torch.polygamma (lazygen/composite.h) over ops.yaml's _polygamma, whose order is a Scalar
// operand rather than PyTorch's leading int.
#include <string>

#include "lazygen/composite.h"
#include "lazygen/generated/ops/_polygamma.h"

namespace lazygen {

Tensor polygamma(int64_t n, const Tensor& self) {
  if (n < 0) {
    throw ShapeError("polygamma",
                     "polygamma(n, x) does not support negative n, got n = " + std::to_string(n));
  }
  return _polygamma(self, Scalar(n));
}

}  // namespace lazygen
