// Scalar: a number passed to an op by value (the `alpha` of add), bool, integral or floating.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "lazygen/dtype.h"

namespace lazygen {

class Scalar {
 public:
  Scalar() : Scalar(int64_t{0}) {}
  Scalar(bool v) : kind_(DType::Bool) { i_ = v; }
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(DType::Int64) { i_ = static_cast<int64_t>(v); }
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(DType::Float64) { d_ = static_cast<double>(v); }

  // Bool, Int64 or Float64: the category PyTorch uses for "wrapped numbers" in promotion.
  DType dtype() const { return kind_; }
  bool is_floating() const { return kind_ == DType::Float64; }
  bool is_integral() const { return kind_ == DType::Int64; }
  bool is_bool() const { return kind_ == DType::Bool; }

  template <class T>
  T to() const {
    return is_floating() ? static_cast<T>(d_) : static_cast<T>(i_);
  }
  // Bitwise identity (so 0.0 != -0.0 and NaN == NaN): what IR hashing and reuse compare.
  bool identical(const Scalar& other) const;
  uint64_t bits() const;
  std::string str() const;

 private:
  DType kind_;
  union {
    int64_t i_;
    double d_;
  };
};

}  // namespace lazygen
