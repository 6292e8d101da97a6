// The gradcheck table's parts: one case per op variant (an ops.yaml schema name, a function of
// float64 inputs, and how to make them), and the input makers the cases share. Cases live in
// gradcheck_test.cpp and, for the pointwise math and activations, gradcheck_math_cases.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "gradcheck.h"
#include "lazygen/autograd.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/add.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/mul.h"
#include "lazygen/generated/ops/neg.h"
#include "lazygen/generated/ops/sign.h"
#include "lazygen/generated/ops/where.h"

namespace lazygen::testing {

using Inputs = std::vector<Tensor>;

struct GradCase {
  std::string name;  // test name suffix
  std::string op;    // the ops.yaml schema name it checks
  GradFn fn;
  std::function<Inputs()> inputs;
};
inline void PrintTo(const GradCase& c, std::ostream* os) { *os << c.name; }

// Uniform float64 values on [lo, hi).
inline Tensor uniform(const IntList& sizes, double lo, double hi, uint64_t seed) {
  NoGradGuard no_grad;
  Generator generator(seed);
  return add(mul(rand(sizes, generator, DType::Float64), hi - lo), lo);
}
inline Tensor values(const IntList& sizes, uint64_t seed) {
  return uniform(sizes, -1.0, 1.0, seed);
}
inline Tensor positive(const IntList& sizes, uint64_t seed) {
  return uniform(sizes, 0.5, 2.0, seed);
}
// Values with 0.2 <= |x| < 1.2: relu's kink at 0 stays out of the finite differences' reach.
inline Tensor away_from_zero(const IntList& sizes, uint64_t seed) {
  NoGradGuard no_grad;
  Tensor u = uniform(sizes, 0.2, 1.2, seed);
  Tensor sign = gt(uniform(sizes, 0.0, 1.0, seed + 1), 0.5);
  return where(sign, u, neg(u));
}
inline Tensor condition(const IntList& sizes, uint64_t seed) {
  return gt(uniform(sizes, 0.0, 1.0, seed), 0.5);
}

// gradcheck_math_cases.cpp
std::vector<GradCase> pointwise_math_cases();
std::vector<GradCase> activation_cases();

}  // namespace lazygen::testing
