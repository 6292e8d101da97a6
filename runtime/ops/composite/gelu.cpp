// gelu and gelu_backward (lazygen/composite.h): PyTorch's string argument picks one of the two
// pointwise forms ops.yaml defines.
#include <string>

#include "lazygen/composite.h"
#include "lazygen/generated/ops.h"

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

Tensor gelu_backward(const Tensor& grad_output, const Tensor& self, std::string_view approximate) {
  return tanh_form("gelu_backward", approximate) ? _gelu_tanh_backward(grad_output, self)
                                                 : _gelu_erf_backward(grad_output, self);
}

}  // namespace lazygen
