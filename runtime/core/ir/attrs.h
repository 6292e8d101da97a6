// Helpers the generated IR node classes (generated/ir_nodes.h) are written with: building operand
// lists from single values and lists, and printing attributes for IR dumps.
#pragma once

#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/ir/node.h"
#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/scalar.h"
#include "lazygen/types.h"

namespace lazygen::ir {

namespace detail {
inline void append_operands(std::vector<Value>& out, const Value& v) { out.push_back(v); }
inline void append_operands(std::vector<Value>& out, const std::vector<Value>& vs) {
  out.insert(out.end(), vs.begin(), vs.end());
}
inline size_t count_operands(const Value&) {
  return 1;
}
inline size_t count_operands(const std::vector<Value>& vs) {
  return vs.size();
}
}  // namespace detail

// operand_list(self, tensors, alpha): single Values and lists of Values, flattened in order (one
// allocation: node construction is on the trace's path at every new size).
template <class... Parts>
std::vector<Value> operand_list(const Parts&... parts) {
  std::vector<Value> out;
  out.reserve((size_t{0} + ... + detail::count_operands(parts)));
  (detail::append_operands(out, parts), ...);
  return out;
}

// attr_equal(a, b): the trie cache's reuse relation for attributes, the same one hashing uses:
// bitwise for floating point (0.0 and -0.0 differ, NaN equals NaN), == otherwise.
template <class T>
bool attr_equal(const std::optional<T>& a, const std::optional<T>& b);
template <class T>
bool attr_equal(const std::vector<T>& a, const std::vector<T>& b);
inline bool attr_equal(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
inline bool attr_equal(const Scalar& a, const Scalar& b) { return a.identical(b); }
// A str attribute as the op API passes it (string_view) against the node's member.
inline bool attr_equal(std::string_view a, const std::string& b) { return a == b; }
inline bool attr_equal(const std::optional<std::string_view>& a, const std::optional<std::string>& b) {
  return a.has_value() == b.has_value() && (!a || *a == *b);
}
template <class T>
bool attr_equal(const T& a, const T& b) {
  return a == b;
}
template <class T>
bool attr_equal(const std::optional<T>& a, const std::optional<T>& b) {
  return a.has_value() == b.has_value() && (!a || attr_equal(*a, *b));
}
template <class T>
bool attr_equal(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!attr_equal(static_cast<T>(a[i]), static_cast<T>(b[i]))) return false;
  }
  return true;
}

// attr_str(x): how an attribute prints in IR dumps (ints, bools as 0/1, dtypes by name, lists).
// The container overloads are declared first so that each finds the other (optional<vector<T>>).
template <class T>
std::string attr_str(const std::optional<T>& v);
template <class T>
std::string attr_str(const std::vector<T>& v);
inline std::string attr_str(int64_t v) { return std::to_string(v); }
inline std::string attr_str(bool v) { return v ? "1" : "0"; }
inline std::string attr_str(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
inline std::string attr_str(const std::string& v) { return "\"" + v + "\""; }
inline std::string attr_str(DType v) { return std::string(dtype_name(v)); }
inline std::string attr_str(const Device& v) { return v.str(); }
inline std::string attr_str(const Scalar& v) { return v.str(); }
inline std::string attr_str(const Stream& v) {
  return "Stream(" + std::to_string(v.id) + ")";
}
inline std::string attr_str(const Generator& v) {
  return "Generator(seed=" + std::to_string(v.seed()) + ", offset=" + std::to_string(v.offset()) +
         ")";
}
inline std::string attr_str(const std::shared_ptr<Storage>& v) {
  return v ? "Storage(" + std::to_string(v->nbytes()) + " bytes)" : "None";
}
template <class E, std::enable_if_t<std::is_enum_v<E>, int> = 0>
std::string attr_str(E v) {
  return std::to_string(static_cast<int>(v));
}
template <class T>
std::string attr_str(const std::optional<T>& v) {
  return v ? attr_str(*v) : "None";
}
template <class T>
std::string attr_str(const std::vector<T>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + attr_str(static_cast<T>(v[i]));
  return out + "]";
}

// "dim=[1], keepdim=0"
inline std::string format_attrs(std::initializer_list<std::pair<const char*, std::string>> attrs) {
  std::string out;
  for (const auto& [name, value] : attrs) out += (out.empty() ? "" : ", ") + std::string(name) + "=" + value;
  return out;
}

}  // namespace lazygen::ir
