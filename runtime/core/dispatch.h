// What the generated op API (generated/src/ops.cpp) needs to pick an implementation: the one
// device all of an op's tensors are on, and the Shapes of optional and list arguments.
#pragma once

#include <initializer_list>
#include <optional>
#include <vector>

#include "lazygen/device.h"
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

inline std::optional<Shape> shape_of(const std::optional<Tensor>& t) {
  return t ? std::optional<Shape>(t->shape()) : std::nullopt;
}
std::vector<Shape> shapes_of(const std::vector<Tensor>& ts);
// The device of the first tensor of a list (lazy results of list ops live there).
Device first_device(const std::vector<Tensor>& ts);

}  // namespace lazygen::detail
