// The gated linear unit and its derivatives (lazygen/composite.h): the halves of self along dim
// (narrow views) through sigmoid and pointwise ops.
#include <string>

#include "lazygen/composite.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/sigmoid.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

struct Halves {
  Tensor a, b;  // self = cat(a, b) along d
  int64_t d = 0;
};

Halves halves(const char* op, const Tensor& self, int64_t dim) {
  if (self.dim() == 0)
    throw ShapeError(op, "glu does not support scalars because halving size must be even");
  const int64_t d = wrap_dim(op, dim, self.dim());
  const int64_t n = self.size(d);
  if (n % 2 != 0) {
    throw ShapeError(op, "Halving dimension must be even, but dimension " + std::to_string(d) +
                             " is size " + std::to_string(n));
  }
  return {narrow(self, d, 0, n / 2), narrow(self, d, n / 2, n / 2), d};
}

}  // namespace

Tensor glu(const Tensor& self, int64_t dim) {
  const Halves h = halves("glu", self, dim);
  return h.a * sigmoid(h.b);
}

Tensor glu_backward(const Tensor& grad_output, const Tensor& self, int64_t dim) {
  const Halves h = halves("glu_backward", self, dim);
  const Tensor gate = sigmoid(h.b);
  const Tensor grad_a = grad_output * gate;
  return cat({grad_a, grad_a * h.a * (1.0 - gate)}, h.d);
}

Tensor glu_jvp(const Tensor& glu_result, const Tensor& x, const Tensor& dx, int64_t dim) {
  const Halves h = halves("glu_jvp", x, dim);
  const Halves dh = halves("glu_jvp", dx, dim);
  const Tensor gate = sigmoid(h.b);
  return dh.a * gate + glu_result * (1.0 - gate) * dh.b;
}

}  // namespace lazygen
