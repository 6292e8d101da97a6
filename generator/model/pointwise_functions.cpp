// The table of Note [Pointwise functions].
#include "model/pointwise_functions.h"

namespace lazygen::gen {

const std::vector<PointwiseFunction>& pointwise_function_table() {
  using D = PointwiseFunction::Domain;
  using I = PointwiseFunction::IntegralOperand;
  static const std::vector<PointwiseFunction> kTable = {
      // name                 arity expensive chainable domain [integral second operand]
      {"exp", 1, true, false, D::Any},
      {"log", 1, true, false, D::Any},
      {"sqrt", 1, true, false, D::Any},
      {"rsqrt", 1, true, false, D::Any},
      {"tanh", 1, true, false, D::Any},
      {"sigmoid", 1, true, false, D::Any},
      {"abs", 1, false, true, D::Any},
      {"max", 2, false, true, D::Any},
      {"min", 2, false, true, D::Any},
      {"where", 3, false, true, D::Any},
      {"pow", 2, true, false, D::Any, I::NonnegativeScalar},
      // trigonometric and hyperbolic
      {"sin", 1, true, false, D::Any},
      {"cos", 1, true, false, D::Any},
      {"tan", 1, true, false, D::Any},
      {"asin", 1, true, false, D::Any},
      {"acos", 1, true, false, D::Any},
      {"atan", 1, true, false, D::Any},
      {"atan2", 2, true, false, D::Any},
      {"sinh", 1, true, false, D::Any},
      {"cosh", 1, true, false, D::Any},
      {"asinh", 1, true, false, D::Any},
      {"acosh", 1, true, false, D::Any},
      {"atanh", 1, true, false, D::Any},
      // exponential, logarithmic and special
      {"erf", 1, true, false, D::Any},
      {"erfc", 1, true, false, D::Any},
      {"erfinv", 1, true, false, D::Any},
      {"log1p", 1, true, false, D::Any},
      {"expm1", 1, true, false, D::Any},
      {"log2", 1, true, false, D::Any},
      {"log10", 1, true, false, D::Any},
      {"exp2", 1, true, false, D::Any},
      {"lgamma", 1, true, false, D::Any},
      {"digamma", 1, true, false, D::Any},
      {"polygamma", 2, true, false, D::Any},
      {"hypot", 2, true, false, D::Any},
      {"copysign", 2, false, false, D::Any},
      {"nextafter", 2, false, false, D::Any},
      // rounding, sign and modulo
      {"floor", 1, false, false, D::Any},
      {"ceil", 1, false, false, D::Any},
      {"trunc", 1, false, false, D::Any},
      {"round", 1, false, false, D::Any},
      {"frac", 1, false, false, D::Any},
      {"sign", 1, false, false, D::Any},
      {"sgn", 1, false, false, D::Any},
      {"remainder", 2, true, false, D::Any, I::Nonzero},
      {"fmod", 2, true, false, D::Any, I::Nonzero},
      // classification
      {"isnan", 1, false, false, D::Any},
      {"isinf", 1, false, false, D::Any},
      {"isfinite", 1, false, false, D::Any},
      {"nan_to_num", 4, false, false, D::Any},
      // logical and bitwise
      {"logical_not", 1, false, false, D::Any},
      {"logical_and", 2, false, false, D::Any},
      {"logical_or", 2, false, false, D::Any},
      {"logical_xor", 2, false, false, D::Any},
      {"bitwise_not", 1, false, false, D::Integral},
      {"bitwise_and", 2, false, false, D::Integral},
      {"bitwise_or", 2, false, false, D::Integral},
      {"bitwise_xor", 2, false, false, D::Integral},
      {"bitwise_left_shift", 2, false, false, D::Integral},
      {"bitwise_right_shift", 2, false, false, D::Integral},
      {"gcd", 2, true, false, D::Integral},
      {"lcm", 2, true, false, D::Integral},
  };
  return kTable;
}

const PointwiseFunction* find_pointwise_function(std::string_view name) {
  for (const PointwiseFunction& f : pointwise_function_table()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace lazygen::gen
