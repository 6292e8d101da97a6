// What the generated op API (generated/src/ops_<shard>.cpp) needs to pick an implementation: the
// one device all of an op's tensors are on, the kernels of devices other than cpu and lazy (see
// Note [Device kernels]), and the Shapes of optional and list arguments.
#pragma once

#include <initializer_list>
#include <optional>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "lazygen/device.h"
#include "lazygen/scalar.h"
#include "lazygen/shape.h"
#include "lazygen/tensor.h"

namespace lazygen::detail {

inline std::optional<Device> device_of(const Tensor& t) {
  return t.defined() ? std::optional<Device>(t.device()) : std::nullopt;
}
inline std::optional<Device> device_of(const std::optional<Tensor>& t) {
  return t ? device_of(*t) : std::nullopt;
}
std::optional<Device> device_of(const std::vector<Tensor>& ts);
// A required tensor argument's device. Throws ShapeError naming `op` and `arg` when `t` is
// undefined (a default-constructed or moved-from Tensor).
Device device_of(const Tensor& t, const char* op, const char* arg);

// The device every given tensor is on. Throws ShapeError naming `op` when tensors are on
// different devices or no tensor is defined ("add.Tensor: expected all tensors on one device,
// got cpu and lazy:0").
DeviceType op_device(const char* op, std::initializer_list<std::optional<Device>> devices);

inline const Tensor* input_of(const Tensor& t) {
  return &t;
}
inline const Tensor* input_of(const std::optional<Tensor>& t) {
  return t ? &*t : nullptr;
}
// The dtypes an op accepts (See Note [Kernel dtypes] in generator/model/kernel_dtypes.h): throws
// ShapeError naming `op` when the dtype its tensor `inputs` and promoting `scalars` compute in
// (PyTorch's result_type; null or undefined inputs skipped) is not in `allowed`, as PyTorch's
// kernels refuse dtypes they are not built for ("neg: not implemented for bool tensors (it takes
// int32, int64, ...)"), also for empty tensors.
void check_dtypes(const char* op, std::initializer_list<DType> allowed,
                  std::initializer_list<const Tensor*> inputs, std::initializer_list<const Scalar*> scalars);

// PyTorch's checked conversion of a Scalar that scales an input or fills a tensor (`alpha`,
// `value`, `threshold`; See Note [Scaling scalars] in generator/dest/common.cpp) to the dtype the
// op computes or writes in: throws ShapeError naming `op` ("value cannot be converted to type
// float without overflow") when the value is outside the dtype's range (inf and NaN fit floating
// dtypes; anything fits bool).
void check_fits(const char* op, const Scalar& value, DType dtype);

// PyTorch's checks of an integral computation's second operand (Note [Pointwise functions] in
// generator/model/pointwise_functions.h), for ops computing in bool or an integral dtype (the
// result_type of `inputs` and `scalars`, as check_dtypes); nothing is checked otherwise.
// check_integral_divisor throws ShapeError "<op>: ZeroDivisionError" when `divisor` has a zero
// and no input is empty (PyTorch checks per element computed). A tensor divisor on the lazy
// device is read back: a sync, as the integral case of div's rounding modes.
void check_integral_divisor(const char* op, const Scalar& divisor, std::initializer_list<const Tensor*> inputs,
                            std::initializer_list<const Scalar*> scalars);
void check_integral_divisor(const char* op, const Tensor& divisor, std::initializer_list<const Tensor*> inputs,
                            std::initializer_list<const Scalar*> scalars);
// Throws ShapeError "<op>: Integers to negative integer powers are not allowed." for a negative
// `exponent`, also for empty inputs (as PyTorch).
void check_integral_exponent(const char* op, const Scalar& exponent, std::initializer_list<const Tensor*> inputs,
                             std::initializer_list<const Scalar*> scalars);

// Note [Device kernels]
// The eager kernels of a device library (cuda: lazygen_cuda) are not known to the generated
// dispatch, which is compiled whether or not the library exists. The library registers each
// kernel under (device type, schema name) when it is linked (static initialization), with the
// exact signature of the op's dispatch function, and dispatch looks it up per call. An op without
// a kernel for the tensors' device throws std::runtime_error "<op>: no <device> kernel ..."
// rather than running a cpu kernel on device memory. Lookup and registration are thread-safe.

// Type-erased entry points of the table. REQUIRES: `op` has static storage duration.
void register_device_kernel_erased(DeviceType type, std::string_view op, void (*fn)(),
                                   const std::type_info& signature);
void (*find_device_kernel_erased(DeviceType type, std::string_view op,
                                 const std::type_info& signature))();

// Whether `type` has a kernel for `op` (any signature).
bool has_device_kernel(DeviceType type, std::string_view op);

// Registers `fn` as the `op` kernel of `type`, replacing any earlier one.
template <class Fn>
void register_device_kernel(DeviceType type, std::string_view op, Fn* fn) {
  register_device_kernel_erased(type, op, reinterpret_cast<void (*)()>(fn), typeid(Fn));
}

// The `op` kernel of `type`. Throws std::runtime_error naming the op and device when there is
// none, std::logic_error when it was registered with another signature than Fn.
template <class Fn>
Fn* device_kernel(DeviceType type, std::string_view op) {
  return reinterpret_cast<Fn*>(find_device_kernel_erased(type, op, typeid(Fn)));
}

inline std::optional<Shape> shape_of(const std::optional<Tensor>& t) {
  return t ? std::optional<Shape>(t->shape()) : std::nullopt;
}
std::vector<Shape> shapes_of(const std::vector<Tensor>& ts);
// The device of the first tensor of a list (lazy results of list ops live there).
Device first_device(const std::vector<Tensor>& ts);

}  // namespace lazygen::detail
