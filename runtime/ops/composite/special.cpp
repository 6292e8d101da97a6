// Pointwise forms PyTorch spells differently (lazygen/composite.h): torch.polygamma over
// ops.yaml's _polygamma, whose order is a Scalar operand rather than PyTorch's leading int;
// torch.pow of a number base; torch.round to decimals.
#include <cmath>
#include <cstdlib>
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/_polygamma.h"
#include "lazygen/generated/ops/div.h"
#include "lazygen/generated/ops/pow.h"
#include "lazygen/generated/ops/round.h"
#include "lazygen/operators.h"

namespace lazygen {

Tensor polygamma(int64_t n, const Tensor& self) {
  if (n < 0) {
    throw ShapeError("polygamma",
                     "polygamma(n, x) does not support negative n, got n = " + std::to_string(n));
  }
  return _polygamma(self, Scalar(n));
}

Tensor pow(const Scalar& base, const Tensor& exponent) {
  const DType e = exponent.dtype();
  DType t = e;  // a number takes part in promotion as a number (a "wrapped number")
  if (base.is_floating() && !is_floating(e)) t = DType::Float32;
  if (!base.is_floating() && e == DType::Bool && !base.is_bool()) t = DType::Int64;
  return pow(full({}, base, t, exponent.device()), exponent.to(t));
}

// PyTorch's kernel: x * 10^d rounded half to even, divided by 10^d (for d < 0, x / 10^-d rounded,
// times 10^-d), with 10^|d| rounded to self's dtype and every step in that dtype.
Tensor round(const Tensor& self, int64_t decimals) {
  if (!is_floating(self.dtype())) {
    throw ShapeError("round", "rounding to decimals takes a floating tensor, got " +
                                  std::string(dtype_name(self.dtype())));
  }
  if (decimals == 0) return round(self);
  double scale = std::pow(10.0, static_cast<double>(std::llabs(decimals)));
  if (self.dtype() == DType::Float32) scale = static_cast<float>(scale);
  const Tensor factor = full({}, scale, self.dtype(), self.device());
  if (decimals > 0) return div(round(self * factor), factor);
  return round(div(self, factor)) * factor;
}

}  // namespace lazygen
