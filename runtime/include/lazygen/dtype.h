// Element types, their sizes and PyTorch's type-promotion lattice.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string_view>

namespace lazygen {

// The element types a tensor may hold. Order matters: promotion picks the larger category
// (bool < integral < floating) and, within a category, the larger item size.
enum class DType : uint8_t { Bool, Int32, Int64, Float32, Float64 };
inline constexpr int kNumDTypes = 5;

std::size_t itemsize(DType t);
std::string_view dtype_name(DType t);  // "float32", as PyTorch prints torch.float32
bool is_floating(DType t);
bool is_integral(DType t);  // excludes Bool

// PyTorch's promote_types for two tensor dtypes (e.g. int64 + float32 -> float32).
DType promote_types(DType a, DType b);
// The dtype floating-point ops produce for an input dtype: itself if floating, float32 otherwise.
DType to_floating(DType t);
// Prints dtype_name(t) (gtest and error messages).
std::ostream& operator<<(std::ostream& os, DType t);

// Maps a C++ type to its DType at compile time: dtype_of<float> == DType::Float32.
template <class T>
constexpr DType dtype_of();
template <> constexpr DType dtype_of<bool>() { return DType::Bool; }
template <> constexpr DType dtype_of<int32_t>() { return DType::Int32; }
template <> constexpr DType dtype_of<int64_t>() { return DType::Int64; }
template <> constexpr DType dtype_of<float>() { return DType::Float32; }
template <> constexpr DType dtype_of<double>() { return DType::Float64; }

// A set of dtypes as bits (bit i: the DType of value i). A generated functor's kDTypes holds the
// dtypes it computes in (See Note [Kernel dtypes] in generator/model/kernel_dtypes.h).
constexpr unsigned dtype_bit(DType t) { return 1u << static_cast<unsigned>(t); }
// Every dtype: a hand-written functor without kDTypes computes in all of them.
inline constexpr unsigned kAllDTypes = 0x1fu;
// (A C++17 trait: nvcc builds this header as C++17.)
template <class Fn, class = void>
inline constexpr unsigned kFunctorDTypes = kAllDTypes;
template <class Fn>
inline constexpr unsigned kFunctorDTypes<Fn, decltype(void(Fn::kDTypes))> = Fn::kDTypes;
// Functor Fn computes in C++ type T: kernels instantiate Fn for such T only.
template <class Fn, class T>
inline constexpr bool kComputesIn = (kFunctorDTypes<Fn> & dtype_bit(dtype_of<T>())) != 0;

// Calls fn(T{}) with T the C++ type of `t`: dispatch_dtype(t, [&](auto tag) { using T = decltype(tag); ... }).
template <class Fn>
decltype(auto) dispatch_dtype(DType t, Fn&& fn) {
  switch (t) {
    case DType::Bool: return fn(bool{});
    case DType::Int32: return fn(int32_t{});
    case DType::Int64: return fn(int64_t{});
    case DType::Float32: return fn(float{});
    case DType::Float64: break;
  }
  return fn(double{});
}

}  // namespace lazygen
