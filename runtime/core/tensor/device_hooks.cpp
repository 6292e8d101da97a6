// The device-hook registry of device_hooks.h.
#include "core/tensor/device_hooks.h"

#include <atomic>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>

namespace lazygen {
namespace {

std::atomic<const DeviceHooks*>& slot(DeviceType type) {
  static std::atomic<const DeviceHooks*> slots[kMaxDeviceTypes] = {};
  const int i = static_cast<int>(type);
  if (i >= kMaxDeviceTypes)
    throw std::invalid_argument("device type " + std::to_string(i) + " is not registered");
  return slots[i];
}

// Every registration is kept (a process registers each device once, tests a few times more) so
// that a reader holding a pointer never sees it freed. The store itself is never destroyed, so
// hooks stay valid during static destruction.
const DeviceHooks* keep(const DeviceHooks& hooks) {
  static std::mutex mutex;
  static auto* store = new std::deque<DeviceHooks>();
  std::lock_guard<std::mutex> lock(mutex);
  return &store->emplace_back(hooks);
}

}  // namespace

DeviceHooks set_device_hooks(DeviceType type, const DeviceHooks& hooks) {
  if (type == DeviceType::CPU) throw std::invalid_argument("set_device_hooks: cpu is built in");
  const bool clear = hooks.to_cpu == nullptr && hooks.from_cpu == nullptr;
  if (!clear && (hooks.to_cpu == nullptr || hooks.from_cpu == nullptr)) {
    throw std::invalid_argument("set_device_hooks: to_cpu and from_cpu are required");
  }
  const DeviceHooks* previous =
      slot(type).exchange(clear ? nullptr : keep(hooks), std::memory_order_acq_rel);
  return previous != nullptr ? *previous : DeviceHooks{};
}

const DeviceHooks& device_hooks(DeviceType type) {
  const DeviceHooks* hooks = slot(type).load(std::memory_order_acquire);
  if (hooks == nullptr) throw std::runtime_error(device_type_name(type) + " device not linked");
  return *hooks;
}

bool has_device_hooks(DeviceType type) {
  return slot(type).load(std::memory_order_acquire) != nullptr;
}

}  // namespace lazygen
