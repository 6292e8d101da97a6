// Scalar identity (bitwise, for IR reuse) and printing.
#include "lazygen/scalar.h"

#include <bit>
#include <charconv>
#include <cmath>

namespace lazygen {

uint64_t Scalar::bits() const {
  return is_floating() ? std::bit_cast<uint64_t>(d_) : static_cast<uint64_t>(i_);
}

bool Scalar::identical(const Scalar& other) const {
  return kind_ == other.kind_ && bits() == other.bits();
}

std::string Scalar::str() const {
  if (is_bool()) return i_ ? "true" : "false";
  if (is_integral()) return std::to_string(i_);
  if (std::isnan(d_)) return "nan";
  if (std::isinf(d_)) return d_ > 0 ? "inf" : "-inf";
  char buf[32];
  // Shortest text that reads back to the same double, with ".0" so it still reads as floating.
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d_);
  std::string text(buf, end);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

}  // namespace lazygen
