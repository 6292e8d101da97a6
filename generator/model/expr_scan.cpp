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

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The arguments of the call whose `(` is the first non-space at or after i, split at top-level
// commas and trimmed; none for empty parentheses (an unclosed call has what it has).
std::vector<std::string> call_arguments(std::string_view s, size_t i) {
  while (i < s.size() && s[i] != '(') ++i;
  std::vector<std::string> out;
  int depth = 0;
  size_t start = i + 1;
  for (++i; i <= s.size(); ++i) {
    const char c = i < s.size() ? s[i] : ')';
    if (c == '(') ++depth;
    const bool closes = c == ')' && depth-- == 0;
    if (closes || (c == ',' && depth == 0)) {
      out.emplace_back(trimmed(s.substr(start, i - start)));
      start = i + 1;
    }
    if (closes) break;
  }
  if (out.size() == 1 && out[0].empty()) out.clear();
  return out;
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
      ExprIdent id;
      id.name = std::string(expr.substr(start, i - start));
      id.offset = static_cast<int>(start);
      id.is_call = next_non_space(expr, i) == '(';
      if (id.is_call) {
        id.arguments = call_arguments(expr, i);
        id.arity = static_cast<int>(id.arguments.size());
      }
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

std::string wrap_floating_literals(std::string_view expr, std::string_view wrapper) {
  std::string out;
  size_t i = 0;
  while (i < expr.size()) {
    const char c = expr[i];
    const bool after_ident = i > 0 && (ident_char(expr[i - 1]) || expr[i - 1] == '.');
    const bool starts_number =
        std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < expr.size() && std::isdigit(static_cast<unsigned char>(expr[i + 1])));
    if (!starts_number || after_ident) {
      out += c;
      ++i;
      continue;
    }
    const size_t end = skip_number(expr, i);
    const std::string_view number = expr.substr(i, end - i);
    const bool hex =
        number.size() > 1 && number[0] == '0' && (number[1] == 'x' || number[1] == 'X');
    const bool float_suffix = number.back() == 'f' || number.back() == 'F';
    const bool floating =
        !hex && !float_suffix && number.find_first_of(".eE") != std::string_view::npos;
    if (floating) {
      out.append(wrapper).append("(").append(number).append(")");
    } else {
      out.append(number);
    }
    i = end;
  }
  return out;
}

}  // namespace lazygen::gen
