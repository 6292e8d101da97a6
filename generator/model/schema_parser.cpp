// parse_schema(): a hand-written scanner for PyTorch's native-function schema grammar.
//
//   schema   := name ['.' overload] '(' [arg (',' arg)*] ')' '->' returns
//   arg      := type name ['=' default] | '*'
//   type     := base ['(' alias ')'] ['?'] ['[' [N] ']' ['?']]
//   returns  := ret | '(' [ret (',' ret)*] ')'          ret := type [name]
//
// It walks the string once, character by character (no regex: the whole native_functions.yaml
// must parse in a few milliseconds), and stops at the first problem with a GenError that points at
// the offending character and says what to write instead. Spaces between tokens are tolerated; the
// printer restores the canonical spacing.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

#include "model/schema.h"
#include "model/suggest.h"

namespace lazygen::gen {
namespace {

// Every BaseType, in declaration order (the enum is dense, ConstQuantizerPtr is last).
constexpr int kBaseTypeCount = static_cast<int>(BaseType::ConstQuantizerPtr) + 1;

BaseType base_type_at(int i) {
  return static_cast<BaseType>(i);
}

// C++ spellings people write by habit, mapped to the schema spelling they mean.
constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kCppSpellings = {{
    {"double", "float"},
    {"int64_t", "int"},
    {"long", "int"},
    {"string", "str"},
    {"Tensor&", "Tensor"},
}};

constexpr std::string_view kDefaultsHint =
    "defaults are None, True, False, numbers (1, -1, 0.5, 1e-05), identifiers (Mean, "
    "contiguous_format), quoted strings (\"mean\") or lists ([0,1], [])";
constexpr std::string_view kAnnotationHint =
    "alias annotations look like 'Tensor(a)', 'Tensor(a!)', 'Tensor(a|b)' or 'Tensor(a -> *)'";
constexpr std::string_view kSuffixHint =
    "a type takes at most one '?' and one list suffix: 'T?', 'T[]', 'T[N]', 'T?[]' or 'T[]?'";

bool is_ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The schema spellings of all base types, for suggestions.
std::vector<std::string> type_names() {
  std::vector<std::string> names;
  for (int i = 0; i < kBaseTypeCount; ++i) names.emplace_back(base_type_name(base_type_at(i)));
  return names;
}

std::string all_type_names() {
  std::string out;
  for (const std::string& name : type_names()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// The schema type a misspelled one most likely means, or "" when none is close enough.
std::string closest_type(std::string_view word) {
  for (const auto& [cpp, schema] : kCppSpellings) {
    if (word == cpp) return std::string(schema);
  }
  std::string near = nearest(word, type_names());
  if (!near.empty() || word.size() < 3) return near;
  // A cut-off spelling ("Tens", "Scal") is too far for an edit distance but still unambiguous.
  for (const std::string& name : type_names()) {
    if (name.starts_with(word)) return name;
  }
  return "";
}

// "did you mean 'Tensor'? types are: ..." or just the list when nothing is close.
std::string unknown_type_hint(std::string_view word) {
  std::string best = closest_type(word);
  std::string types = "types are: " + all_type_names();
  return best.empty() ? types : "did you mean '" + best + "'? " + types;
}

// Kind of a bare (unquoted, non-list) default, or nullopt when it is not a valid value.
std::optional<DefaultValue::Kind> classify_bare_default(std::string_view s) {
  using Kind = DefaultValue::Kind;
  if (s.empty()) return std::nullopt;
  if (s == "None") return Kind::None;
  if (s == "True" || s == "False") return Kind::Bool;
  double number = 0;
  auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), number);
  if (error == std::errc() && end == s.data() + s.size()) {
    bool integral = s.find_first_not_of("-0123456789") == std::string_view::npos;
    return integral ? Kind::Int : Kind::Float;  // `1e-05`, `0.5`, `inf` are floats
  }
  if (is_ident_start(s[0]) && std::all_of(s.begin(), s.end(), is_ident_char)) {
    return Kind::Identifier;
  }
  return std::nullopt;
}

class Parser {
 public:
  Parser(std::string_view text, const SourceLoc& loc) : text_(text), loc_(loc) {}

  FunctionSchema parse() {
    FunctionSchema schema;
    schema.name = parse_operator_name();
    schema.arguments = parse_arguments();
    schema.returns = parse_returns();
    return schema;
  }

 private:
  // ---- scanning primitives ----
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  void skip_spaces() {
    while (!at_end() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  // Takes `c` if it is the very next character (suffixes like `?` and `!` allow no space).
  bool accept(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  // Takes `c` if it is the next token.
  bool consume(char c) {
    skip_spaces();
    return accept(c);
  }
  std::string_view scan_identifier() {
    size_t start = pos_;
    if (!at_end() && is_ident_start(text_[pos_])) {
      while (!at_end() && is_ident_char(text_[pos_])) ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }
  // The offending text at `pos`, quoted, for messages: a whole word or a single character.
  std::string quoted_at(size_t pos) const {
    if (pos >= text_.size()) return "the end of the schema";
    size_t end = pos + 1;
    if (is_ident_char(text_[pos])) {
      while (end < text_.size() && is_ident_char(text_[end])) ++end;
    }
    return "'" + std::string(text_.substr(pos, end - pos)) + "'";
  }
  [[noreturn]] void fail(size_t offset, std::string message, std::string_view hint) const {
    throw GenError(loc_.advanced(static_cast<int>(offset)), std::move(message), std::string(hint));
  }

  OperatorName parse_operator_name();
  std::vector<Argument> parse_arguments();
  bool parse_star(bool seen_star);
  Argument parse_argument(bool kwarg_only, const std::vector<Argument>& earlier);
  void parse_annotated_type(Type& type, std::optional<Annotation>& annotation);
  BaseType parse_base_type();
  Annotation parse_annotation();
  std::vector<std::string> parse_alias_sets();
  void parse_type_suffixes(Type& type, size_t type_start);
  std::optional<int> parse_list_size();
  DefaultValue parse_default(const Argument& arg);
  void scan_string_literal(const Argument& arg);
  void scan_list_literal(const Argument& arg);
  std::string_view scan_bare_value(std::string_view stops);
  std::vector<Return> parse_returns();
  std::vector<Return> parse_return_tuple();
  Return parse_return();

  std::string_view text_;
  const SourceLoc& loc_;
  size_t pos_ = 0;
};

// `add`, `add.Tensor`, `__and__.Scalar`, then the opening '('.
OperatorName Parser::parse_operator_name() {
  skip_spaces();
  if (at_end()) {
    fail(pos_, "empty schema", "write a schema such as 'add.Tensor(Tensor self) -> Tensor'");
  }
  OperatorName name;
  name.base = scan_identifier();
  if (name.base.empty()) {
    fail(pos_, "expected an operator name, found " + quoted_at(pos_),
         "operator names are identifiers such as 'add' or 'add.Tensor'");
  }
  if (accept('.')) {
    name.overload = scan_identifier();
    if (name.overload.empty()) {
      fail(pos_, "expected an overload name after '" + name.base + ".', found " + quoted_at(pos_),
           "write an overload such as '" + name.base + ".Tensor', or drop the '.'");
    }
  }
  if (consume('(')) return name;
  if (at_end()) {
    fail(pos_, "missing argument list after '" + name.str() + "'",
         "write the arguments in parentheses: '" + name.str() + "(Tensor self) -> Tensor'");
  }
  fail(pos_, "unexpected " + quoted_at(pos_) + " after operator name '" + name.str() + "'",
       "operator names contain only letters, digits and '_' (with one '.' before the overload) "
       "and are followed by '('");
}

// Everything between '(' and ')'; `*` switches to keyword-only arguments.
std::vector<Argument> Parser::parse_arguments() {
  std::vector<Argument> args;
  if (consume(')')) return args;
  bool seen_star = false;
  for (;;) {
    skip_spaces();
    if (peek() == '*') {
      seen_star = parse_star(seen_star);
    } else {
      args.push_back(parse_argument(seen_star, args));
    }
    if (consume(',')) continue;
    if (consume(')')) return args;
    if (at_end()) {
      fail(pos_, "expected ')' to close the argument list",
           "the argument list ends with ')', followed by '-> ReturnType'");
    }
    // Only reached after an argument: parse_star() has already checked the ',' after a '*'.
    fail(pos_,
         "expected ',' or ')' after argument '" + args.back().name + "', found " + quoted_at(pos_),
         "separate arguments with ', ' and close the list with ')'");
  }
}

// The `*` marker; returns true (the new "seen" state) or fails when it is misplaced.
bool Parser::parse_star(bool seen_star) {
  size_t star = pos_++;
  if (seen_star) {
    fail(star, "'*' may appear only once",
         "every argument after the first '*' is already keyword-only; remove this '*'");
  }
  skip_spaces();
  if (peek() == ',') return true;  // the ',' itself is left for the argument loop
  if (at_end() || peek() == ')') {
    fail(pos_, "'*' must be followed by keyword-only arguments, found " + quoted_at(pos_),
         "write '*, Scalar alpha=1' or remove the '*'");
  }
  fail(pos_, "expected ',' after '*', found " + quoted_at(pos_),
       "separate the '*' from the keyword-only arguments: '*, Scalar alpha=1'");
}

Argument Parser::parse_argument(bool kwarg_only, const std::vector<Argument>& earlier) {
  Argument arg;
  arg.kwarg_only = kwarg_only;
  size_t type_start = pos_;
  parse_annotated_type(arg.type, arg.annotation);
  std::string_view type_text = text_.substr(type_start, pos_ - type_start);
  skip_spaces();
  size_t name_start = pos_;
  arg.name = scan_identifier();
  if (arg.name.empty()) {
    fail(name_start, "argument of type '" + std::string(type_text) + "' has no name",
         "write a name after the type, e.g. '" + std::string(type_text) + " self'");
  }
  for (const Argument& other : earlier) {
    if (other.name == arg.name) {
      fail(name_start, "duplicate argument name '" + arg.name + "'",
           "every argument needs its own name; rename one of them");
    }
  }
  if (consume('=')) arg.default_value = parse_default(arg);
  return arg;
}

// A base type, its alias annotation (Tensor only) and its `?` / `[N]` suffixes.
void Parser::parse_annotated_type(Type& type, std::optional<Annotation>& annotation) {
  skip_spaces();
  size_t type_start = pos_;
  type.base = parse_base_type();
  if (peek() == '(') {
    if (type.base != BaseType::Tensor) {
      fail(pos_,
           "alias annotation on non-Tensor type '" + std::string(base_type_name(type.base)) + "'",
           "only Tensor types carry alias annotations; remove the parentheses");
    }
    annotation = parse_annotation();
  }
  parse_type_suffixes(type, type_start);
}

BaseType Parser::parse_base_type() {
  size_t start = pos_;
  std::string_view word = scan_identifier();
  if (word.empty()) {
    fail(start, "expected a type, found " + quoted_at(start),
         "write a type such as 'Tensor' or 'int'; types are: " + all_type_names());
  }
  // A C++ reference (`Tensor&`) is never a schema type, even when the word before it is.
  if (accept('&')) {
    word = text_.substr(start, pos_ - start);
  } else {
    for (int i = 0; i < kBaseTypeCount; ++i) {
      if (base_type_name(base_type_at(i)) == word) return base_type_at(i);
    }
  }
  fail(start, "unknown type '" + std::string(word) + "'", unknown_type_hint(word));
}

// `(a)`, `(a!)`, `(a|b)`, `(a -> *)`, `(a! -> a|b)`; the position is at the '('.
Annotation Parser::parse_annotation() {
  ++pos_;
  Annotation annotation;
  annotation.alias_sets = parse_alias_sets();
  annotation.is_write = accept('!');
  skip_spaces();
  if (text_.substr(pos_).starts_with("->")) {
    pos_ += 2;
    skip_spaces();
    annotation.alias_sets_after = parse_alias_sets();
    skip_spaces();
  }
  if (accept(')')) return annotation;
  if (at_end()) fail(pos_, "expected ')' to close the alias annotation", kAnnotationHint);
  fail(pos_, "unexpected " + quoted_at(pos_) + " in alias annotation", kAnnotationHint);
}

// One or more alias set names (`a`, `*`) separated by '|'.
std::vector<std::string> Parser::parse_alias_sets() {
  std::vector<std::string> sets;
  do {
    skip_spaces();
    size_t start = pos_;
    if (accept('*')) {
      sets.emplace_back("*");
      continue;
    }
    std::string_view name = scan_identifier();
    if (name.empty()) {
      fail(start, "expected an alias set name such as 'a', found " + quoted_at(start),
           kAnnotationHint);
    }
    sets.emplace_back(name);
  } while (consume('|'));
  return sets;
}

void Parser::parse_type_suffixes(Type& type, size_t type_start) {
  type.elem_optional = accept('?');
  if (accept('[')) {
    type.is_list = true;
    type.list_size = parse_list_size();
    type.list_optional = accept('?');
  }
  if (peek() == '?' || peek() == '[') {
    fail(pos_,
         "unexpected " + quoted_at(pos_) + " after type '" +
             std::string(text_.substr(type_start, pos_ - type_start)) + "'",
         kSuffixHint);
  }
}

// `]` or `N]` after the '[' of a list type.
std::optional<int> Parser::parse_list_size() {
  if (accept(']')) return std::nullopt;
  size_t start = pos_;
  int size = 0;
  while (is_digit(peek()) && pos_ - start < 6) size = size * 10 + (text_[pos_++] - '0');
  if (size > 0 && accept(']')) return size;
  if (size > 0) fail(pos_, "expected ']' to close the list type", kSuffixHint);
  std::string_view bad = text_.substr(start, text_.find_first_of("],) ", start) - start);
  fail(start, "invalid list size '" + std::string(bad) + "'",
       "write '[]' for a list of any length or '[N]' with N a positive integer, e.g. 'int[2]'");
}

// The value after '=': kept exactly as written, classified by its spelling.
DefaultValue Parser::parse_default(const Argument& arg) {
  skip_spaces();
  size_t start = pos_;
  DefaultValue value;
  if (peek() == '"' || peek() == '\'') {
    scan_string_literal(arg);
    value.kind = DefaultValue::Kind::String;
  } else if (peek() == '[') {
    scan_list_literal(arg);
    value.kind = DefaultValue::Kind::List;
  } else {
    std::string_view bare = scan_bare_value(",)");
    if (bare.empty()) {
      fail(start, "default value for '" + arg.name + "' is empty",
           "write a value after '=', e.g. '" + arg.name + "=None', or remove the '='");
    }
    auto kind = classify_bare_default(bare);
    if (!kind) {
      fail(start, "invalid default value '" + std::string(bare) + "' for '" + arg.name + "'",
           kDefaultsHint);
    }
    value.kind = *kind;
  }
  value.text = text_.substr(start, pos_ - start);
  if (value.kind == DefaultValue::Kind::None && !arg.type.is_optional()) {
    Type optional = arg.type;
    (arg.type.is_list ? optional.list_optional : optional.elem_optional) = true;
    fail(start, "default None for '" + arg.name + "' needs an optional type",
         "write '" + print_type(optional) + " " + arg.name + "=None'");
  }
  return value;
}

// A bare token (number, identifier, None...): up to a space or one of `stops`.
std::string_view Parser::scan_bare_value(std::string_view stops) {
  size_t start = pos_;
  while (!at_end() && text_[pos_] != ' ' && stops.find(text_[pos_]) == std::string_view::npos) {
    ++pos_;
  }
  return text_.substr(start, pos_ - start);
}

// "..." or '...' with backslash escapes; the position is at the opening quote.
void Parser::scan_string_literal(const Argument& arg) {
  size_t start = pos_;
  char quote = text_[pos_++];
  while (!at_end() && text_[pos_] != quote) pos_ += text_[pos_] == '\\' ? 2 : 1;
  if (at_end()) {
    fail(start, "unterminated string in the default value of '" + arg.name + "'",
         std::string("close the string with ") + quote);
  }
  ++pos_;
}

// `[]`, `[0,1]`, `[-2,-1]`: bare values (or strings) separated by ','.
void Parser::scan_list_literal(const Argument& arg) {
  size_t open = pos_++;
  if (consume(']')) return;
  do {
    skip_spaces();
    size_t start = pos_;
    if (peek() == '"' || peek() == '\'') {
      scan_string_literal(arg);
      continue;
    }
    std::string_view element = scan_bare_value(",])");
    if (!classify_bare_default(element)) {
      fail(start,
           "invalid list element " +
               (element.empty() ? quoted_at(start) : "'" + std::string(element) + "'") +
               " in the default value of '" + arg.name + "'",
           kDefaultsHint);
    }
  } while (consume(','));
  if (consume(']')) return;
  fail(at_end() ? open : pos_, "expected ']' to close the list default of '" + arg.name + "'",
       "list defaults look like '[]', '[0,1]' or '[-2,-1]'");
}

// `-> Tensor`, `-> Tensor(a!)`, `-> (Tensor values, Tensor indices)`, `-> ()`.
std::vector<Return> Parser::parse_returns() {
  skip_spaces();
  constexpr std::string_view kReturnHint =
      "a schema ends with its return type: '-> Tensor', '-> (Tensor, Tensor)' or '-> ()'";
  if (!text_.substr(pos_).starts_with("->")) {
    if (at_end()) fail(pos_, "missing '->' and return type", kReturnHint);
    fail(pos_, "expected '->' after the argument list, found " + quoted_at(pos_), kReturnHint);
  }
  pos_ += 2;
  skip_spaces();
  if (at_end()) fail(pos_, "missing return type after '->'", kReturnHint);
  std::vector<Return> returns;
  if (consume('(')) {
    returns = parse_return_tuple();
  } else {
    returns.push_back(parse_return());
  }
  skip_spaces();
  if (!at_end()) {
    fail(pos_, "unexpected " + quoted_at(pos_) + " after the return type",
         "nothing may follow the return type; " + std::string(kReturnHint));
  }
  return returns;
}

// The returns inside `( ... )`; the opening '(' is consumed.
std::vector<Return> Parser::parse_return_tuple() {
  std::vector<Return> returns;
  if (consume(')')) return returns;
  do {
    returns.push_back(parse_return());
  } while (consume(','));
  if (consume(')')) return returns;
  constexpr std::string_view kTupleHint =
      "write the returns as '(Tensor, Tensor)' or '(Tensor values, Tensor indices)'";
  if (at_end()) fail(pos_, "expected ')' to close the return tuple", kTupleHint);
  fail(pos_, "expected ',' or ')' in the return tuple, found " + quoted_at(pos_), kTupleHint);
}

Return Parser::parse_return() {
  Return ret;
  parse_annotated_type(ret.type, ret.annotation);
  skip_spaces();
  ret.name = scan_identifier();
  return ret;
}

}  // namespace

FunctionSchema parse_schema(std::string_view text, const SourceLoc& loc) {
  return Parser(text, loc).parse();
}

}  // namespace lazygen::gen
