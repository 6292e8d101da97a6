// Division with a rounding mode (lazygen/composite.h): PyTorch's div.Tensor_mode from div, fmod,
// floor, trunc and where, computed in float64 for integers and cast back.
#include <string>

#include "core/tensor/shape_rules.h"
#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/div.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/floor.h"
#include "lazygen/generated/ops/fmod.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/logical_and.h"
#include "lazygen/generated/ops/lt.h"
#include "lazygen/generated/ops/ne.h"
#include "lazygen/generated/ops/trunc.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

// Python's floor division as PyTorch computes it (div_floor_floating): from the exact remainder,
// not floor(a / b), which rounds up where a / b rounds to an integer (1 // 0.1 is 9, not 10).
Tensor floor_divide_floating(const Tensor& a, const Tensor& b) {
  const Tensor quotient = a / b;
  const Tensor mod = fmod(a, b);
  Tensor q = (a - mod) / b;
  const Tensor signs_differ = ne(lt(b, 0), lt(mod, 0));
  q = where(logical_and(ne(mod, 0), signs_differ), q - 1, q);
  Tensor whole = floor(q);
  whole = where(gt(q - whole, 0.5), whole + 1, whole);
  const Tensor signed_zero = where(lt(quotient, 0), full({}, -0.0, a.dtype(), a.device()),
                                   zeros({}, a.dtype(), a.device()));
  whole = where(eq(q, 0), signed_zero, whole);
  return where(eq(b, 0), quotient, whole);  // x / 0: inf or nan, as true division
}

}  // namespace

Tensor div(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode) return div(self, other);
  const bool floor_mode = *rounding_mode == "floor";
  if (!floor_mode && *rounding_mode != "trunc") {
    throw ShapeError("div",
                     "expected rounding_mode to be one of None, 'trunc', or 'floor' but found '" +
                         std::string(*rounding_mode) + "'");
  }
  const DType out = shape_rules::tensors_result_type({&self, &other}, {});
  if (out == DType::Bool)
    throw ShapeError("div", "rounding division is not implemented for bool tensors");
  if (!is_floating(out) && any(eq(other, 0)).item<bool>()) {  // a sync on the lazy device
    throw ShapeError("div", "ZeroDivisionError: integer division by zero");
  }
  const DType compute = is_floating(out) ? out : DType::Float64;
  const Tensor a = self.to(compute), b = other.to(compute);
  const Tensor q = floor_mode ? floor_divide_floating(a, b) : trunc(a / b);
  return q.to(out);
}

}  // namespace lazygen
