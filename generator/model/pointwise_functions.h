// The functions a `pointwise:` expression may call, declared once.
//
// Note [Pointwise functions]
// Each function's implementation is in runtime/include/lazygen/kernels/pointwise_math.h (one
// scalar function compiled into the eager, fused, AOT and CUDA kernels). Everything else that
// must know the functions comes from this table:
//   - the validator accepts calls to these names only, with their arity, and an op calling an
//     Integral-domain function must compute in bool or integral dtypes only (validate.cpp);
//   - register chains take an expression only when every function it calls is `chainable`,
//     i.e. has a Lanes<T> overload (runtime/backend/cpu/fusion/lanes.h; dest/tile_kernels.cpp);
//   - the fusion planner recomputes an op's value instead of storing it only when the op calls
//     no `expensive` function (PointwiseInfo::cheap, generated per op);
//   - the op API checks an integral computation's second operand as PyTorch's kernels do when
//     the function declares a rule (`integral_operand`; dest/op_api.cpp): remainder and fmod
//     raise ZeroDivisionError for a zero divisor, pow refuses a negative Scalar exponent;
//   - generated/include/lazygen/generated/pointwise_functions.inc lists the table as X-macro
//     lines, and a runtime test instantiates every function from it, so a name without an
//     implementation fails the build.
#pragma once

#include <string_view>
#include <vector>

namespace lazygen::gen {

struct PointwiseFunction {
  // The compute dtypes the function takes: Integral (bool, int32, int64) for bitwise ones.
  enum class Domain { Any, Integral };
  // What PyTorch requires of the second operand when the op computes in bool or an integral
  // dtype (the function's integer form has no answer otherwise).
  enum class IntegralOperand { Any, Nonzero, NonnegativeScalar };
  std::string_view name;
  int arity;        // arguments
  bool expensive;   // a transcendental or a loop: worth storing rather than recomputing
  bool chainable;   // has a Lanes<T> overload (register chains)
  Domain domain;
  IntegralOperand integral_operand = IntegralOperand::Any;
};

const std::vector<PointwiseFunction>& pointwise_function_table();
// The table's entry for `name`, or null.
const PointwiseFunction* find_pointwise_function(std::string_view name);

}  // namespace lazygen::gen
