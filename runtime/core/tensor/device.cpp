// Device types, and device parsing and printing ("cpu", "cuda:1", "lazy:0", "<registered>:N").
#include "lazygen/device.h"

#include <array>
#include <charconv>
#include <limits>
#include <mutex>
#include <optional>
#include <ostream>
#include <stdexcept>

namespace lazygen {
namespace {

// The names of the device types, by value: the built-in ones first, then registered ones in
// registration order. Never destroyed, so that names stay valid during static destruction.
struct TypeNames {
  std::mutex mutex;
  std::array<std::string, kMaxDeviceTypes> names{"cpu", "cuda", "lazy"};
  int count = 3;
};
TypeNames& type_names() {
  static auto* names = new TypeNames();
  return *names;
}

// The type named `name`, or nullopt. REQUIRES: t.mutex held.
std::optional<DeviceType> find_locked(const TypeNames& t, std::string_view name) {
  for (int i = 0; i < t.count; ++i) {
    if (t.names[static_cast<size_t>(i)] == name) return static_cast<DeviceType>(i);
  }
  return std::nullopt;
}

std::optional<DeviceType> find_type(std::string_view name) {
  TypeNames& t = type_names();
  std::lock_guard<std::mutex> lock(t.mutex);
  return find_locked(t, name);
}

bool valid_type_name(std::string_view name) {
  if (name.empty() || name.size() > 32 || name[0] < 'a' || name[0] > 'z') return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

[[noreturn]] void bad_device(const std::string& spec) {
  throw std::invalid_argument("invalid device '" + spec +
                              "': expected cpu, cuda[:N], lazy[:N] or a registered device "
                              "type[:N] with 0 <= N <= 32767");
}

int16_t parse_index(const std::string& text, const std::string& spec) {
  int value = -1;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < 0 ||
      value > std::numeric_limits<int16_t>::max()) {
    bad_device(spec);
  }
  return static_cast<int16_t>(value);
}

}  // namespace

DeviceType register_device_type(std::string_view name) {
  if (!valid_type_name(name)) {
    throw std::invalid_argument("register_device_type: invalid name '" + std::string(name) +
                                "': 1 to 32 of a-z, 0-9 and _, starting with a letter");
  }
  TypeNames& t = type_names();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (std::optional<DeviceType> known = find_locked(t, name)) return *known;
  if (t.count == kMaxDeviceTypes) {
    throw std::length_error("register_device_type: '" + std::string(name) + "' would be type " +
                            std::to_string(kMaxDeviceTypes + 1) + "; at most " +
                            std::to_string(kMaxDeviceTypes) + " device types exist");
  }
  t.names[static_cast<size_t>(t.count)] = std::string(name);
  return static_cast<DeviceType>(t.count++);
}

std::string device_type_name(DeviceType type) {
  TypeNames& t = type_names();
  std::lock_guard<std::mutex> lock(t.mutex);
  const int i = static_cast<int>(type);
  if (i >= t.count) {
    throw std::invalid_argument("device type " + std::to_string(i) + " is not registered");
  }
  return t.names[static_cast<size_t>(i)];
}

Device::Device(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::optional<DeviceType> t = find_type(std::string_view(spec).substr(0, colon));
  if (!t) bad_device(spec);
  type = *t;
  index = colon == std::string::npos ? 0 : parse_index(spec.substr(colon + 1), spec);
}

std::string Device::str() const {
  if (type == DeviceType::CPU) return "cpu";  // PyTorch prints the cpu device without an index
  return device_type_name(type) + ":" + std::to_string(index);
}

std::ostream& operator<<(std::ostream& os, const Device& d) {
  return os << d.str();
}

}  // namespace lazygen
