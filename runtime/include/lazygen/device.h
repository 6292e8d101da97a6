// Devices: where a tensor's data lives (cpu, cuda:N, a registered device's) or that it is traced
// (lazy).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

namespace lazygen {

// cpu, cuda and lazy are built in; a device library registers its own type by name
// (register_device_type), so that a new kind of eager tensor needs no edit of lazygen. What makes
// a registered type a device: its hooks (core/tensor/device_hooks.h: moving data to and from the
// cpu) and its kernels (Note [Device kernels] in core/dispatch.h); docs/backends.md says how.
enum class DeviceType : uint8_t { CPU, CUDA, Lazy };
inline constexpr int kMaxDeviceTypes = 16;  // built-in and registered together

// The device type named `name`, registered on its first call (the same value on every later
// one; a built-in name gives the built-in type). Names are 1 to 32 characters: lowercase letters,
// digits and '_', starting with a letter. Throws std::invalid_argument for another name and
// std::length_error when kMaxDeviceTypes types exist. Thread-safe.
DeviceType register_device_type(std::string_view name);
// "cpu", "cuda", "lazy" or a registered type's name. Throws std::invalid_argument for a value no
// type has.
std::string device_type_name(DeviceType type);

// A device type plus an index ("cuda:1"). Totally ordered and hashable so it can key caches.
struct Device {
  DeviceType type = DeviceType::CPU;
  int16_t index = 0;

  constexpr Device() = default;
  constexpr Device(DeviceType t, int16_t i = 0) : type(t), index(i) {}
  // Parses "cpu", "cuda", "cuda:1", "lazy", "<registered type>[:N]"; throws std::invalid_argument
  // naming the bad text.
  explicit Device(const std::string& spec);

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool is_lazy() const { return type == DeviceType::Lazy; }
  std::string str() const;  // "cpu", "cuda:0", "lazy:0", "<registered type>:0"
  friend auto operator<=>(const Device&, const Device&) = default;
};

inline constexpr Device kCPU{DeviceType::CPU};
inline constexpr Device kLazy{DeviceType::Lazy};

std::ostream& operator<<(std::ostream& os, const Device& d);  // prints d.str()

}  // namespace lazygen
