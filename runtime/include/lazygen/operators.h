// Arithmetic and comparison operators on tensors, as in PyTorch's C++ API: x + y, x * 2.0, -x,
// x > 0. Each forwards to the generated op (add, mul, gt, ...), so it works on every device.
#pragma once

#include "lazygen/generated/ops/add.h"
#include "lazygen/generated/ops/div.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/ge.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/le.h"
#include "lazygen/generated/ops/lt.h"
#include "lazygen/generated/ops/mul.h"
#include "lazygen/generated/ops/ne.h"
#include "lazygen/generated/ops/neg.h"
#include "lazygen/generated/ops/reciprocal.h"
#include "lazygen/generated/ops/sub.h"
#include "lazygen/tensor.h"

namespace lazygen {

inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
inline Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
inline Tensor operator-(const Scalar& a, const Tensor& b) { return add(neg(b), a); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
inline Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
inline Tensor operator/(const Scalar& a, const Tensor& b) { return mul(reciprocal(b), a); }
inline Tensor operator-(const Tensor& a) { return neg(a); }
inline Tensor operator>(const Tensor& a, const Scalar& b) { return gt(a, b); }
inline Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
inline Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
inline Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
inline Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
inline Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
inline Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }

// Scalar arithmetic, for derivative formulas such as `pow(self, exponent - 1)`: integral when
// both sides are, floating otherwise.
inline Scalar operator-(const Scalar& a, const Scalar& b) {
  if (a.is_floating() || b.is_floating()) return a.to<double>() - b.to<double>();
  return a.to<int64_t>() - b.to<int64_t>();
}
inline Scalar operator+(const Scalar& a, const Scalar& b) {
  if (a.is_floating() || b.is_floating()) return a.to<double>() + b.to<double>();
  return a.to<int64_t>() + b.to<int64_t>();
}
inline Scalar operator*(const Scalar& a, const Scalar& b) {
  if (a.is_floating() || b.is_floating()) return a.to<double>() * b.to<double>();
  return a.to<int64_t>() * b.to<int64_t>();
}
inline Scalar operator-(const Scalar& a) { return a.is_floating() ? Scalar(-a.to<double>()) : Scalar(-a.to<int64_t>()); }

inline const Tensor& operator+=(const Tensor& a, const Tensor& b) { return a.add_(b); }
inline const Tensor& operator*=(const Tensor& a, const Tensor& b) { return a.mul_(b); }
inline const Tensor& operator*=(const Tensor& a, const Scalar& b) { return a.mul_(b); }

}  // namespace lazygen
