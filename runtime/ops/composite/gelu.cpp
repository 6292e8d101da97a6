// gelu and gelu_backward (lazygen/composite.h): PyTorch's string argument picks one of the two
// pointwise forms ops.yaml defines; elu_backward, whose bool argument picks one of two formulas.
#include <string>

#include "lazygen/composite.h"
#include "lazygen/generated/ops/_gelu_erf.h"
#include "lazygen/generated/ops/_gelu_erf_backward.h"
#include "lazygen/generated/ops/_gelu_tanh.h"
#include "lazygen/generated/ops/_gelu_tanh_backward.h"
#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/le.h"
#include "lazygen/generated/ops/tanh.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

// true for "tanh", false for "none"; else the error PyTorch gives.
bool tanh_form(const char* op, std::string_view approximate) {
  if (approximate == "none") return false;
  if (approximate == "tanh") return true;
  throw ShapeError(op, "approximate argument must be either none or tanh (got '" + std::string(approximate) + "')");
}

}  // namespace

Tensor gelu(const Tensor& self, std::string_view approximate) {
  return tanh_form("gelu", approximate) ? _gelu_tanh(self) : _gelu_erf(self);
}

Tensor elu_backward(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                    bool is_result, const Tensor& self_or_result) {
  const Tensor& x = self_or_result;
  if (is_result && alpha.to<double>() < 0) {
    throw ShapeError("elu_backward", "In-place elu backward calculation is triggered with a negative slope which is not "
                                     "supported. This is caused by calling in-place forward function with a negative "
                                     "slope, please call out-of-place version instead.");
  }
  const Tensor negative = is_result ? grad_output * input_scale * (x + alpha * scale)
                                    : grad_output * input_scale * (alpha * scale) * exp(x * input_scale);
  return where(le(x, 0), negative, grad_output * scale);
}

Tensor gelu_backward(const Tensor& grad_output, const Tensor& self, std::string_view approximate) {
  return tanh_form("gelu_backward", approximate) ? _gelu_tanh_backward(grad_output, self)
                                                 : _gelu_erf_backward(grad_output, self);
}

}  // namespace lazygen
