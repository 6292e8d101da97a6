// Schema default values -> C++ default arguments (See cpp_types.h, cpp_default).
#include <map>

#include "api/cpp_types.h"

namespace lazygen::gen::api {
namespace {

// Identifier defaults that occur in native_functions.yaml, by the C++ they mean here.
const std::map<std::string, std::string>& identifier_defaults() {
  static const std::map<std::string, std::string> kMap = {
      {"Mean", "1"},                        // at::Reduction::Mean
      {"Sum", "2"},                         // at::Reduction::Sum
      {"contiguous_format", "MemoryFormat::Contiguous"},
      {"long", "DType::Int64"},
      {"int", "DType::Int32"},
      {"float", "DType::Float32"},
      {"double", "DType::Float64"},
      {"bool", "DType::Bool"},
  };
  return kMap;
}

// "[0,1]" -> "{0, 1}"; "[]" -> "{}".
std::string list_literal(const std::string& text) {
  std::string inner = text.substr(1, text.size() - 2);
  std::string out = "{";
  for (char c : inner) out += (c == ',') ? std::string(", ") : std::string(1, c);
  return out + "}";
}

// `int[2] stride=1` means every element is 1.
std::string repeated(const std::string& value, int count) {
  std::string out = "{";
  for (int i = 0; i < count; ++i) out += (i ? ", " : "") + value;
  return out + "}";
}

std::string bare_value(const Argument& arg, const DefaultValue& d, const SourceLoc& loc) {
  switch (d.kind) {
    case DefaultValue::Kind::None: return "std::nullopt";
    case DefaultValue::Kind::Bool: return d.text == "True" ? "true" : "false";
    case DefaultValue::Kind::String: return d.text.front() == '\'' ? "\"" + d.text.substr(1, d.text.size() - 2) + "\"" : d.text;
    case DefaultValue::Kind::List: return list_literal(d.text);
    case DefaultValue::Kind::Int:
    case DefaultValue::Kind::Float: break;
    case DefaultValue::Kind::Identifier: {
      auto it = identifier_defaults().find(d.text);
      if (it != identifier_defaults().end()) return it->second;
      throw GenError(loc, "default '" + d.text + "' of '" + arg.name + "' has no C++ meaning in lazygen",
                     "give the argument a numeric or None default, or no default");
    }
  }
  if (arg.type.is_list) return arg.type.list_size ? repeated(d.text, *arg.type.list_size) : "{" + d.text + "}";
  return d.text;
}

}  // namespace

std::string cpp_default(const Argument& arg, const SourceLoc& loc) {
  if (!arg.default_value) return "";
  return bare_value(arg, *arg.default_value, loc);
}

}  // namespace lazygen::gen::api
