// DType properties and PyTorch's promotion lattice (c10/core/ScalarType.h, promoteTypes).
#include "lazygen/dtype.h"

#include <ostream>

namespace lazygen {
namespace {

constexpr int index(DType t) {
  return static_cast<int>(t);
}

}  // namespace

std::size_t itemsize(DType t) {
  static constexpr std::size_t kSizes[kNumDTypes] = {1, 4, 8, 4, 8};
  return kSizes[index(t)];
}

std::string_view dtype_name(DType t) {
  static constexpr std::string_view kNames[kNumDTypes] = {"bool", "int32", "int64", "float32",
                                                          "float64"};
  return kNames[index(t)];
}

bool is_floating(DType t) {
  return t == DType::Float32 || t == DType::Float64;
}
bool is_integral(DType t) {
  return t == DType::Int32 || t == DType::Int64;
}

DType promote_types(DType a, DType b) {
  // The enum is ordered so that, for these five types, promotion is the maximum: bool < int32 <
  // int64 < float32 < float64, with int64 + float32 -> float32 as PyTorch does.
  return index(a) > index(b) ? a : b;
}

DType to_floating(DType t) {
  return is_floating(t) ? t : DType::Float32;
}

std::ostream& operator<<(std::ostream& os, DType t) {
  return os << dtype_name(t);
}

}  // namespace lazygen
