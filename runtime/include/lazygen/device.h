// Devices: where a tensor's data lives (cpu, cuda:N) or that it is traced (lazy).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

namespace lazygen {

enum class DeviceType : uint8_t { CPU, CUDA, Lazy };

// A device type plus an index ("cuda:1"). Totally ordered and hashable so it can key caches.
struct Device {
  DeviceType type = DeviceType::CPU;
  int16_t index = 0;

  constexpr Device() = default;
  constexpr Device(DeviceType t, int16_t i = 0) : type(t), index(i) {}
  // Parses "cpu", "cuda", "cuda:1", "lazy"; throws std::invalid_argument naming the bad text.
  explicit Device(const std::string& spec);

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool is_lazy() const { return type == DeviceType::Lazy; }
  std::string str() const;  // "cpu", "cuda:0", "lazy:0"
  friend auto operator<=>(const Device&, const Device&) = default;
};

inline constexpr Device kCPU{DeviceType::CPU};
inline constexpr Device kLazy{DeviceType::Lazy};

std::ostream& operator<<(std::ostream& os, const Device& d);  // prints d.str()

}  // namespace lazygen
