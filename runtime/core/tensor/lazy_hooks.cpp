// The device-hook registry of lazy_hooks.h.
#include "core/tensor/lazy_hooks.h"

#include <atomic>
#include <stdexcept>
#include <string>

namespace lazygen {
namespace {

constexpr int kNumDeviceTypes = 3;

// Each registration is leaked so that a reader holding a pointer never sees it freed; a process
// registers each device once or a handful of times (tests).
std::atomic<const DeviceHooks*>& slot(DeviceType type) {
  static std::atomic<const DeviceHooks*> slots[kNumDeviceTypes] = {};
  return slots[static_cast<int>(type)];
}

std::string type_name(DeviceType type) {
  return type == DeviceType::CUDA ? "cuda" : type == DeviceType::Lazy ? "lazy" : "cpu";
}

}  // namespace

DeviceHooks set_device_hooks(DeviceType type, const DeviceHooks& hooks) {
  if (type == DeviceType::CPU) throw std::invalid_argument("set_device_hooks: cpu is built in");
  const bool clear = hooks.to_cpu == nullptr && hooks.from_cpu == nullptr;
  if (!clear && (hooks.to_cpu == nullptr || hooks.from_cpu == nullptr)) {
    throw std::invalid_argument("set_device_hooks: to_cpu and from_cpu are required");
  }
  const DeviceHooks* previous =
      slot(type).exchange(clear ? nullptr : new DeviceHooks(hooks), std::memory_order_acq_rel);
  return previous != nullptr ? *previous : DeviceHooks{};
}

const DeviceHooks& device_hooks(DeviceType type) {
  const DeviceHooks* hooks = slot(type).load(std::memory_order_acquire);
  if (hooks == nullptr) throw std::runtime_error(type_name(type) + " device not linked");
  return *hooks;
}

bool has_device_hooks(DeviceType type) {
  return slot(type).load(std::memory_order_acquire) != nullptr;
}

}  // namespace lazygen
