// Formula helpers (autograd/formulas.h).
#include "autograd/formulas.h"

#include "lazygen/operators.h"

namespace lazygen::autograd {

Tensor maybe_multiply(const Tensor& t, const Scalar& s) {
  const bool one = (s.is_integral() && s.to<int64_t>() == 1) ||
                   (s.is_floating() && s.to<double>() == 1.0);
  return one ? t : t * s;
}

}  // namespace lazygen::autograd
