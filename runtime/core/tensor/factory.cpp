// Deterministic factories of lazygen/factory.h (the random ones are in random.cpp).
#include "lazygen/factory.h"

#include <cmath>
#include <cstring>

#include "core/tensor/strided_loop.h"
#include "core/tensor/tensor_impl.h"

namespace lazygen {
namespace {

// Factories build on the cpu; other devices receive the finished data.
Tensor place(const Tensor& cpu, Device device) {
  return device.is_cpu() ? cpu : cpu.to(device);
}

void fill(const Tensor& t, const Scalar& value) {
  dispatch_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* data = static_cast<T*>(t.raw_data());
    const T v = value.to<T>();
    for (int64_t i = 0, n = t.numel(); i < n; ++i) data[i] = v;
  });
}

// The extent in elements a strided tensor touches (0 when it has no elements).
int64_t strided_extent(const char* op, const IntList& sizes, const IntList& strides) {
  if (sizes.size() != strides.size()) {
    throw ShapeError(
        op, "sizes " + sizes_str(sizes) + " and strides " + sizes_str(strides) + " differ in rank");
  }
  if (checked_numel(op, sizes) == 0) return 0;
  int64_t extent = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (strides[i] < 0) throw ShapeError(op, "negative stride in " + sizes_str(strides));
    extent += (sizes[i] - 1) * strides[i];
  }
  return extent;
}

int64_t arange_length(const Scalar& start, const Scalar& end, const Scalar& step) {
  if (start.is_floating() || end.is_floating() || step.is_floating()) {
    return static_cast<int64_t>(
        std::ceil((end.to<double>() - start.to<double>()) / step.to<double>()));
  }
  const int64_t s = step.to<int64_t>(), span = end.to<int64_t>() - start.to<int64_t>();
  return (span + s + (s > 0 ? -1 : 1)) / s;  // ceil division for either sign of step
}

}  // namespace

Tensor empty(const IntList& sizes, DType dtype, Device device) {
  return place(make_cpu_tensor(sizes, dtype), device);
}

Tensor empty_strided(const IntList& sizes, const IntList& strides, DType dtype, Device device) {
  const int64_t extent = strided_extent("empty_strided", sizes, strides);
  auto storage = Storage::allocate_cpu(static_cast<size_t>(extent) * itemsize(dtype));
  return place(Tensor(std::make_shared<TensorImpl>(std::move(storage), sizes, strides, 0, dtype)),
               device);
}

Tensor zeros(const IntList& sizes, DType dtype, Device device) {
  Tensor t = make_cpu_tensor(sizes, dtype);
  // All-zero bytes are 0, 0.0 and false in every dtype.
  if (t.numel() > 0) std::memset(t.raw_data(), 0, t.numel() * itemsize(dtype));
  return place(t, device);
}

Tensor ones(const IntList& sizes, DType dtype, Device device) {
  return full(sizes, 1, dtype, device);
}

Tensor full(const IntList& sizes, const Scalar& value, DType dtype, Device device) {
  Tensor t = make_cpu_tensor(sizes, dtype);
  fill(t, value);
  return place(t, device);
}

Tensor scalar_tensor(const Scalar& value, DType dtype, Device device) {
  return full({}, value, dtype, device);
}

Tensor arange(const Scalar& end, DType dtype, Device device) {
  return arange(0, end, 1, dtype, device);
}

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, DType dtype,
              Device device) {
  if (step.to<double>() == 0) throw ShapeError("arange", "step must be non-zero");
  const int64_t n = std::max<int64_t>(0, arange_length(start, end, step));
  Tensor t = make_cpu_tensor({n}, dtype);
  dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* data = static_cast<T*>(t.raw_data());
    if (start.is_floating() || step.is_floating() || is_floating(dtype)) {
      const double s0 = start.to<double>(), ds = step.to<double>();
      for (int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(s0 + ds * static_cast<double>(i));
    } else {
      const int64_t s0 = start.to<int64_t>(), ds = step.to<int64_t>();
      for (int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(s0 + ds * i);
    }
  });
  return place(t, device);
}

Tensor from_blob(void* data, const IntList& sizes, DType dtype) {
  return from_blob(data, sizes, contiguous_strides(sizes), dtype);
}

Tensor from_blob(void* data, const IntList& sizes, const IntList& strides, DType dtype) {
  const int64_t extent = strided_extent("from_blob", sizes, strides);
  auto storage = Storage::wrap(data, static_cast<size_t>(extent) * itemsize(dtype));
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), sizes, strides, 0, dtype));
}

Tensor tensor_from_values(const void* data, int64_t count, DType value_dtype, const IntList& sizes,
                          DType dtype, Device device) {
  if (checked_numel("tensor", sizes) != count) {
    throw ShapeError("tensor",
                     std::to_string(count) + " values cannot fill sizes " + sizes_str(sizes));
  }
  Tensor t = make_cpu_tensor(sizes, dtype);
  const auto src_item = static_cast<int64_t>(itemsize(value_dtype));
  const auto dst_item = static_cast<int64_t>(itemsize(dtype));
  detail::convert_elements(value_dtype, static_cast<const char*>(data), src_item, dtype,
                           static_cast<char*>(t.raw_data()), dst_item, count);
  return place(t, device);
}

Tensor empty_like(const Tensor& like, std::optional<DType> dtype) {
  return empty(like.sizes(), dtype.value_or(like.dtype()), like.device());
}

Tensor zeros_like(const Tensor& like, std::optional<DType> dtype) {
  return zeros(like.sizes(), dtype.value_or(like.dtype()), like.device());
}

Tensor ones_like(const Tensor& like, std::optional<DType> dtype) {
  return ones(like.sizes(), dtype.value_or(like.dtype()), like.device());
}

Tensor full_like(const Tensor& like, const Scalar& value, std::optional<DType> dtype) {
  return full(like.sizes(), value, dtype.value_or(like.dtype()), like.device());
}

}  // namespace lazygen
