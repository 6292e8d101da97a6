// Canonical printing of the schema model, byte-identical to torchgen's `str(FunctionSchema)`:
// `name.overload(args, *, kwargs) -> ret` with ", " separators, the alias annotation written right
// after the base type (`Tensor(a!)[]`), a single return without parentheses and defaults as they
// were written. The round-trip test over native_functions.yaml holds this file to that promise.
#include "model/schema.h"

namespace lazygen::gen {
namespace {

void append_alias_sets(std::string& out, const std::vector<std::string>& sets) {
  for (size_t i = 0; i < sets.size(); ++i) {
    if (i > 0) out += '|';
    out += sets[i];
  }
}

// `(a)`, `(a!)`, `(a|b)`, `(a -> *)`.
void append_annotation(std::string& out, const Annotation& annotation) {
  out += '(';
  append_alias_sets(out, annotation.alias_sets);
  if (annotation.is_write) out += '!';
  if (!annotation.alias_sets_after.empty()) {
    out += " -> ";
    append_alias_sets(out, annotation.alias_sets_after);
  }
  out += ')';
}

// The type with the annotation spliced in after the base name, as torchgen does with
// `type.replace("Tensor", "Tensor(a)")`.
void append_type(std::string& out, const Type& type, const std::optional<Annotation>& annotation) {
  out += base_type_name(type.base);
  if (annotation) append_annotation(out, *annotation);
  if (type.elem_optional) out += '?';
  if (!type.is_list) return;
  out += '[';
  if (type.list_size) out += std::to_string(*type.list_size);
  out += ']';
  if (type.list_optional) out += '?';
}

void append_argument(std::string& out, const Argument& arg) {
  append_type(out, arg.type, arg.annotation);
  out += ' ';
  out += arg.name;
  if (arg.default_value) {
    out += '=';
    out += arg.default_value->text;
  }
}

void append_return(std::string& out, const Return& ret) {
  append_type(out, ret.type, ret.annotation);
  if (!ret.name.empty()) {
    out += ' ';
    out += ret.name;
  }
}

// Positional arguments, then `*` once before the first keyword-only one.
void append_arguments(std::string& out, const std::vector<Argument>& arguments) {
  bool star_written = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i > 0) out += ", ";
    if (arguments[i].kwarg_only && !star_written) {
      out += "*, ";
      star_written = true;
    }
    append_argument(out, arguments[i]);
  }
}

// One return is written bare (`-> Tensor`, `-> Tensor output`); zero or several in parentheses.
void append_returns(std::string& out, const std::vector<Return>& returns) {
  if (returns.size() == 1) {
    append_return(out, returns.front());
    return;
  }
  out += '(';
  for (size_t i = 0; i < returns.size(); ++i) {
    if (i > 0) out += ", ";
    append_return(out, returns[i]);
  }
  out += ')';
}

}  // namespace

std::string print_type(const Type& type) {
  std::string out;
  append_type(out, type, std::nullopt);
  return out;
}

std::string print_argument(const Argument& arg) {
  std::string out;
  append_argument(out, arg);
  return out;
}

std::string print_schema(const FunctionSchema& schema) {
  std::string out;
  out.reserve(128);
  out += schema.name.str();
  out += '(';
  append_arguments(out, schema.arguments);
  out += ") -> ";
  append_returns(out, schema.returns);
  return out;
}

}  // namespace lazygen::gen
