// Device hooks: how the tensor core moves data to and from devices it does not implement.
//
// The tensor core knows cpu memory only. The lazy module (core/lazy/), the CUDA backend and any
// device library (with a type of its own, register_device_type in lazygen/device.h) register, per
// DeviceType, functions that turn a tensor of their device into a cpu tensor (executing what is
// pending, for lazy tensors) and a cpu tensor into one of their device.
// Tensor::to, cpu(), item(), printing and the factories go through these. Registration happens
// at static initialization of the registering module (set_device_hooks in a namespace-scope
// initializer); an unregistered device throws "<device> device not linked".
//
// Optional hooks (to_dtype, clone) let a device stay on the device for those methods; when
// absent, the core round-trips through the cpu. The optional wait blocks until the work the
// device launched has finished (the lazy device's wait_device_ops); the collectives' seam waits
// through it, below the executor that implements it.
// Thread safety: registration and lookup are atomic; register before using the device.
#pragma once

#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/tensor.h"

namespace lazygen {

struct DeviceHooks {
  Tensor (*to_cpu)(const Tensor& t) = nullptr;                     // required
  Tensor (*from_cpu)(const Tensor& cpu, Device target) = nullptr;  // required
  Tensor (*to_dtype)(const Tensor& t, DType dtype) = nullptr;      // optional
  Tensor (*clone)(const Tensor& t) = nullptr;                      // optional
  void (*wait)() = nullptr;                                        // optional
};

// Installs the hooks of `type` and returns the ones it replaces (all null if none). Hooks with
// both required functions null uninstall (tests use this to restore). REQUIRES: type is not CPU.
DeviceHooks set_device_hooks(DeviceType type, const DeviceHooks& hooks);
// The hooks of `type`; throws std::runtime_error "<type> device not linked" when none are set.
const DeviceHooks& device_hooks(DeviceType type);
bool has_device_hooks(DeviceType type);

// The lazy device's to_cpu / from_cpu (what lazy tensors' cpu() and lazy factories call).
inline Tensor lazy_to_cpu(const Tensor& t) {
  return device_hooks(DeviceType::Lazy).to_cpu(t);
}
inline Tensor cpu_to_lazy(const Tensor& cpu, Device target = kLazy) {
  return device_hooks(DeviceType::Lazy).from_cpu(cpu, target);
}

}  // namespace lazygen
