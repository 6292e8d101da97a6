// Tensor factories: new tensors from sizes, values, ranges, random draws or foreign memory.
//
// Every factory builds its data on the cpu (memory from the caching allocator); asked for another
// device it then moves the result there (for the lazy device through the hooks of
// core/tensor/device_hooks.h, so a lazy factory result is a device-data input of later graphs).
// Sizes must be non-negative; a negative size throws ShapeError naming the factory.
// Random factories are deterministic per seed; see Generator in lazygen/types.h.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <type_traits>
#include <vector>

#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"
#include "lazygen/types.h"

namespace lazygen {

using IntList = std::vector<int64_t>;

// Uninitialized contiguous memory.
Tensor empty(const IntList& sizes, DType dtype = DType::Float32, Device device = kCPU);
// Uninitialized memory with the given strides (in elements); cpu only.
Tensor empty_strided(const IntList& sizes, const IntList& strides, DType dtype = DType::Float32,
                     Device device = kCPU);
Tensor zeros(const IntList& sizes, DType dtype = DType::Float32, Device device = kCPU);
Tensor ones(const IntList& sizes, DType dtype = DType::Float32, Device device = kCPU);
// Every element set to `value` converted to `dtype`.
Tensor full(const IntList& sizes, const Scalar& value, DType dtype = DType::Float32,
            Device device = kCPU);
// A zero-dim tensor holding `value`.
Tensor scalar_tensor(const Scalar& value, DType dtype = DType::Float32, Device device = kCPU);

// [0, end) with step 1, int64 like torch.arange(5).
Tensor arange(const Scalar& end, DType dtype = DType::Int64, Device device = kCPU);
// [start, end) by `step` (non-zero); ceil((end - start) / step) elements.
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
              DType dtype = DType::Int64, Device device = kCPU);

// Uniform on [0, 1) (floating dtypes only).
Tensor rand(const IntList& sizes, DType dtype = DType::Float32, Device device = kCPU);
Tensor rand(const IntList& sizes, Generator& generator, DType dtype = DType::Float32,
            Device device = kCPU);
// Standard normal (floating dtypes only).
Tensor randn(const IntList& sizes, DType dtype = DType::Float32, Device device = kCPU);
Tensor randn(const IntList& sizes, Generator& generator, DType dtype = DType::Float32,
             Device device = kCPU);
// Uniform integers on [low, high); requires low < high.
Tensor randint(int64_t low, int64_t high, const IntList& sizes, DType dtype = DType::Int64,
               Device device = kCPU);
Tensor randint(int64_t low, int64_t high, const IntList& sizes, Generator& generator,
               DType dtype = DType::Int64, Device device = kCPU);

// A cpu tensor over `data`, which the caller owns and keeps alive while the tensor (or any view
// of it) is used. `strides` default to contiguous.
Tensor from_blob(void* data, const IntList& sizes, DType dtype = DType::Float32);
Tensor from_blob(void* data, const IntList& sizes, const IntList& strides, DType dtype);

// A tensor copied from `count` values of type `dtype` at `data` (the non-template half of
// tensor()).
Tensor tensor_from_values(const void* data, int64_t count, DType value_dtype, const IntList& sizes,
                          DType dtype, Device device);

// A tensor holding `values` with the given sizes (default: one dim of values.size()). The dtype
// defaults to T's (float -> float32, int64_t -> int64, int -> int32, bool -> bool).
template <class T>
Tensor tensor(const std::vector<T>& values, std::optional<IntList> sizes = std::nullopt,
              std::optional<DType> dtype = std::nullopt, Device device = kCPU) {
  const auto count = static_cast<int64_t>(values.size());
  if constexpr (std::is_same_v<T, bool>) {
    // std::vector<bool> is bit-packed: widen to one byte per element first.
    std::vector<uint8_t> bytes(values.begin(), values.end());
    return tensor_from_values(bytes.data(), count, DType::Bool, sizes.value_or(IntList{count}),
                              dtype.value_or(DType::Bool), device);
  } else {
    return tensor_from_values(values.data(), count, dtype_of<T>(), sizes.value_or(IntList{count}),
                              dtype.value_or(dtype_of<T>()), device);
  }
}
template <class T>
Tensor tensor(std::initializer_list<T> values, std::optional<IntList> sizes = std::nullopt,
              std::optional<DType> dtype = std::nullopt, Device device = kCPU) {
  return tensor(std::vector<T>(values), std::move(sizes), dtype, device);
}

// Same sizes, dtype (unless given) and device as `like`; the result is contiguous.
Tensor empty_like(const Tensor& like, std::optional<DType> dtype = std::nullopt);
Tensor zeros_like(const Tensor& like, std::optional<DType> dtype = std::nullopt);
Tensor ones_like(const Tensor& like, std::optional<DType> dtype = std::nullopt);
Tensor full_like(const Tensor& like, const Scalar& value,
                 std::optional<DType> dtype = std::nullopt);

}  // namespace lazygen
