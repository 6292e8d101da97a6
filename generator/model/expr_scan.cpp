// See expr_scan.h.
#include "model/expr_scan.h"

#include <cctype>

namespace lazygen::gen {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Skips a numeric literal starting at i (digits, '.', exponent with sign, suffix letters).
size_t skip_number(std::string_view s, size_t i) {
  while (i < s.size()) {
    char c = s[i];
    bool exp_sign = (c == '+' || c == '-') && i > 0 && (s[i - 1] == 'e' || s[i - 1] == 'E');
    if (!ident_char(c) && c != '.' && !exp_sign) break;
    ++i;
  }
  return i;
}

char next_non_space(std::string_view s, size_t i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return i < s.size() ? s[i] : '\0';
}

bool preceded_by_scope(std::string_view s, size_t i) { return i >= 2 && s.substr(i - 2, 2) == "::"; }

char prev_non_space(std::string_view s, size_t i) {
  while (i > 0 && std::isspace(static_cast<unsigned char>(s[i - 1]))) --i;
  return i > 0 ? s[i - 1] : '\0';
}

// The arguments of the call whose `(` is the first non-space at or after i: top-level commas + 1,
// 0 for empty parentheses (an unclosed call counts what it has).
int call_arity(std::string_view s, size_t i) {
  while (i < s.size() && s[i] != '(') ++i;
  int depth = 0, commas = 0;
  bool any = false;
  for (++i; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(') ++depth;
    if (c == ')' && depth-- == 0) break;
    if (c == ',' && depth == 0) ++commas;
    any |= !std::isspace(static_cast<unsigned char>(c));
  }
  return any ? commas + 1 : 0;
}

}  // namespace

std::vector<ExprIdent> scan_identifiers(std::string_view expr) {
  std::vector<ExprIdent> out;
  size_t i = 0;
  while (i < expr.size()) {
    char c = expr[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      i = skip_number(expr, i);
    } else if (ident_start(c)) {
      size_t start = i;
      while (i < expr.size() && ident_char(expr[i])) ++i;
      ExprIdent id{std::string(expr.substr(start, i - start)), static_cast<int>(start)};
      id.is_call = next_non_space(expr, i) == '(';
      if (id.is_call) id.arity = call_arity(expr, i);
      id.is_member = prev_non_space(expr, start) == '.' || preceded_by_scope(expr, start) ||
                     expr.substr(i, 2) == "::";
      out.push_back(std::move(id));
    } else {
      ++i;
    }
  }
  return out;
}

std::string rename_variables(std::string_view expr, std::string_view from, std::string_view to) {
  std::string out;
  size_t copied = 0;
  for (const ExprIdent& id : scan_identifiers(expr)) {
    if (id.name != from || id.is_call || id.is_member) continue;
    out += expr.substr(copied, id.offset - copied);
    out += to;
    copied = id.offset + id.name.size();
  }
  out += expr.substr(copied);
  return out;
}

}  // namespace lazygen::gen
