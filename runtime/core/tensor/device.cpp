// Device parsing and printing ("cpu", "cuda:1", "lazy:0").
#include "lazygen/device.h"

#include <charconv>
#include <limits>
#include <ostream>
#include <stdexcept>

namespace lazygen {
namespace {

[[noreturn]] void bad_device(const std::string& spec) {
  throw std::invalid_argument("invalid device '" + spec +
                              "': expected cpu, cuda[:N] or lazy[:N] with 0 <= N <= 32767");
}

DeviceType parse_type(const std::string& name, const std::string& spec) {
  if (name == "cpu") return DeviceType::CPU;
  if (name == "cuda") return DeviceType::CUDA;
  if (name == "lazy") return DeviceType::Lazy;
  bad_device(spec);
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

Device::Device(const std::string& spec) {
  const auto colon = spec.find(':');
  type = parse_type(spec.substr(0, colon), spec);
  index = colon == std::string::npos ? 0 : parse_index(spec.substr(colon + 1), spec);
}

std::string Device::str() const {
  switch (type) {
    case DeviceType::CPU:
      return "cpu";  // PyTorch prints the cpu device without an index
    case DeviceType::CUDA:
      return "cuda:" + std::to_string(index);
    case DeviceType::Lazy:
      break;
  }
  return "lazy:" + std::to_string(index);
}

std::ostream& operator<<(std::ostream& os, const Device& d) {
  return os << d.str();
}

}  // namespace lazygen
