// A scanner for the small C++ expressions ops.yaml holds (`pointwise:` and derivative formulas).
// It finds identifiers and how they are used, which is all validation and emission need: a
// name followed by `(` is a call, a name after `.` is a member, anything else is a variable.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lazygen::gen {

struct ExprIdent {
  std::string name;
  int offset = 0;         // 0-based, in the expression text
  bool is_call = false;   // followed by `(`
  bool is_member = false; // preceded by `.`, or part of a qualified name (`std::get`)
  int arity = 0;          // a call's arguments (top-level commas + 1; 0 for `f()`)
  std::vector<std::string> arguments;  // a call's arguments' text, trimmed
};

// Every identifier outside numeric literals, in order. Numeric suffixes (1e-5, 2.0f) are skipped.
std::vector<ExprIdent> scan_identifiers(std::string_view expr);

// Replaces each variable (not call, not member) named `from` by `to`.
std::string rename_variables(std::string_view expr, std::string_view from, std::string_view to);

// Wraps each double literal (a decimal number with `.` or an exponent and no `f` suffix: `0.5`,
// `1e-5`) in `wrapper(...)`, e.g. `x * 0.5` -> `x * fp<T>(0.5)`. Float literals (`2.0f`), integer
// and hexadecimal literals and numbers inside identifiers stay as written.
std::string wrap_floating_literals(std::string_view expr, std::string_view wrapper);

}  // namespace lazygen::gen
