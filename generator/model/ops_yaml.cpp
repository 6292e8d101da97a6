// Loading ops files with yaml-cpp: YAML structure -> OpEntry, keeping a SourceLoc for every value.
// Semantic checks live in validate.cpp; this file only reads (and rejects malformed structure).
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <string_view>

#include "model/op_entry.h"
#include "model/samples.h"
#include "model/suggest.h"
#include "model/validate.h"
#include "model/yaml_node.h"

namespace lazygen::gen {
namespace {

const std::vector<std::pair<std::string, ShapeRule>> kShapeRules = {
    {"same", ShapeRule::Same}, {"broadcast", ShapeRule::Broadcast}, {"reduce", ShapeRule::Reduce},
    {"view", ShapeRule::View}, {"custom", ShapeRule::Custom}};
const std::vector<std::pair<std::string, DTypeRule>> kDTypeRules = {
    {"promote", DTypeRule::Promote}, {"bool", DTypeRule::Bool}, {"float", DTypeRule::Float},
    {"self", DTypeRule::Self}, {"index", DTypeRule::Index}};
const std::vector<std::pair<std::string, TorchKernel>> kTorchKernels = {
    {"generated", TorchKernel::Generated}, {"adapter", TorchKernel::Adapter}, {"none", TorchKernel::None}};

// The spelling of `value` in `choices` (as ops.yaml writes it).
template <class Enum>
std::string_view choice_name(const std::vector<std::pair<std::string, Enum>>& choices, Enum value) {
  for (const auto& [name, v] : choices) {
    if (v == value) return name;
  }
  return "?";
}

const std::vector<std::string> kLazygenKeys = {"func",   "variants",    "shape",  "dtype",   "dtypes", "pointwise",
                                               "kernel", "derivatives", "domain", "samples", "torch"};
const std::vector<std::string> kDTypeNames = {"bool", "int32", "int64", "float32", "float64"};
// Keys of PyTorch's native_functions.yaml: accepted and ignored, so real entries can be pasted.
const std::vector<std::string> kNativeKeys = {
    "dispatch",     "device_check",       "python_module",       "autogen",
    "structured_delegate", "structured",  "structured_inherits", "tags",
    "device_guard", "manual_cpp_binding", "cpp_no_default_args", "use_const_ref_for_mutable_tensors",
    "precomputed",  "category_override",  "ufunc_inner_loop",    "manual_kernel_registration",
    "abstract",     "has_composite_implicit_autograd_kernel"};

std::string scalar_of(const std::string& path, const YAML::Node& node, const std::string& key) {
  if (!node.IsScalar()) {
    throw GenError(loc_of(path, node),
                   "'" + key + "' must be a single value, not " + describe(node),
                   "write it on one line, e.g. '" + key + ": ...'");
  }
  return node.Scalar();
}

template <class Enum>
Enum parse_choice(const std::string& path, const YAML::Node& node, const std::string& key,
                  const std::vector<std::pair<std::string, Enum>>& choices) {
  std::string text = scalar_of(path, node, key);
  std::vector<std::string> names;
  for (const auto& [name, value] : choices) {
    if (name == text) return value;
    names.push_back(name);
  }
  throw GenError(loc_of(path, node), "invalid " + key + " '" + text + "'", suggest_hint(text, names));
}

void read_variants(const std::string& path, const YAML::Node& node, OpEntry& op) {
  op.function_variant = false;
  const std::string text = scalar_of(path, node, "variants");
  for (size_t start = 0; start <= text.size();) {
    size_t end = std::min(text.find(',', start), text.size());
    size_t first = text.find_first_not_of(' ', start);
    size_t last = text.find_last_not_of(' ', end - 1);
    std::string part =
        first < end && last != std::string::npos ? text.substr(first, last + 1 - first) : "";
    if (part == "function") {
      op.function_variant = true;
    } else if (part == "method") {
      op.method_variant = true;
    } else {
      throw GenError(loc_of(path, node).advanced(static_cast<int>(std::min(first, end))),
                     "invalid variant '" + part + "'", suggest_hint(part, {"function", "method"}));
    }
    start = end + 1;
  }
}

void read_derivatives(const std::string& path, const YAML::Node& node, OpEntry& op) {
  if (!node.IsMap()) {
    throw GenError(loc_of(path, node), "'derivatives' must be a map from argument to formula",
                   "write e.g.\n    derivatives:\n      self: grad * other");
  }
  for (const auto& kv : node) {
    Derivative d;
    d.argument = scalar_of(path, kv.first, "derivative argument");
    d.formula = scalar_of(path, kv.second, d.argument);
    d.key_loc = loc_of(path, kv.first);
    d.loc = loc_of(path, kv.second);
    op.derivatives.push_back(std::move(d));
  }
}

void read_dtypes(const std::string& path, const YAML::Node& node, OpEntry& op) {
  op.dtypes_loc = loc_of(path, node);
  if (!node.IsSequence() || node.size() == 0) {
    throw GenError(op.dtypes_loc, "'dtypes' must be a non-empty list of dtype names",
                   "write e.g. 'dtypes: [int32, int64, float32, float64]'");
  }
  for (const auto& item : node) {
    std::string name = scalar_of(path, item, "dtypes");
    if (std::find(kDTypeNames.begin(), kDTypeNames.end(), name) == kDTypeNames.end()) {
      throw GenError(loc_of(path, item), "invalid dtype '" + name + "'", suggest_hint(name, kDTypeNames));
    }
    op.dtypes.push_back(name);
  }
}

void check_key(const std::string& path, const YAML::Node& key_node) {
  const std::string key = key_node.Scalar();
  for (const auto& k : kLazygenKeys) if (k == key) return;
  for (const auto& k : kNativeKeys) if (k == key) return;
  throw GenError(loc_of(path, key_node), "unknown key '" + key + "'", suggest_hint(key, kLazygenKeys));
}

void read_lazygen_key(const std::string& path, const std::string& key, const YAML::Node& value,
                      OpEntry& op) {
  if (key == "variants") {
    read_variants(path, value, op);
  } else if (key == "shape") {
    op.shape = parse_choice<ShapeRule>(path, value, key, kShapeRules);
    op.shape_loc = loc_of(path, value);
  } else if (key == "dtype") {
    op.dtype = parse_choice<DTypeRule>(path, value, key, kDTypeRules);
  } else if (key == "pointwise") {
    op.pointwise = scalar_of(path, value, key);
    op.pointwise_loc = loc_of(path, value);
  } else if (key == "kernel") {
    parse_choice<bool>(path, value, key, {{"custom", true}});
    op.custom_kernel = true;
    op.kernel_loc = loc_of(path, value);
  } else if (key == "derivatives") {
    read_derivatives(path, value, op);
  } else if (key == "dtypes") {
    read_dtypes(path, value, op);
  } else if (key == "torch") {
    op.torch = parse_choice<TorchKernel>(path, value, key, kTorchKernels);
    op.torch_loc = loc_of(path, value);
  }
}

OpEntry read_entry(const std::string& path, const YAML::Node& entry) {
  if (!entry.IsMap()) {
    throw GenError(loc_of(path, entry),
                   "each entry must be a map starting with 'func:', not " + describe(entry),
                   "write e.g.\n  - func: relu(Tensor self) -> Tensor\n    shape: same");
  }
  OpEntry op;
  op.entry_loc = loc_of(path, entry);
  bool has_func = false;
  for (const auto& kv : entry) {
    check_key(path, kv.first);
    const std::string key = kv.first.Scalar();
    if (key == "func") {
      op.func = scalar_of(path, kv.second, "func");
      op.func_loc = loc_of(path, kv.second);
      has_func = true;
    } else if (key == "structured" || key == "structured_delegate") {
      op.torch_structured = key == "structured_delegate" || kv.second.as<std::string>("") == "True";
    } else if (key == "use_const_ref_for_mutable_tensors") {
      op.torch_const_mutable_refs = kv.second.as<std::string>("") == "True";
    } else {
      read_lazygen_key(path, key, kv.second, op);
    }
  }
  if (!has_func) {
    throw GenError(op.entry_loc, "entry has no 'func:' key",
                   "every entry starts with the schema, e.g. '- func: relu(Tensor self) -> Tensor'");
  }
  return op;
}

// The 1-based line `n` of `text` ("" past the end).
std::string_view nth_line(std::string_view text, int n) {
  size_t start = 0;
  for (int i = 1; i < n && start != std::string_view::npos; ++i) {
    start = text.find('\n', start);
    if (start != std::string_view::npos) ++start;
  }
  if (start == std::string_view::npos || start > text.size()) return {};
  return text.substr(start, text.find('\n', start) - start);
}

// One node property at `line[at]`: `&anchor` or a tag (`!`, `!!str`, `!e!x`, `!<verbatim>`),
// scanned with the characters yaml-cpp allows in each; returns where it ends (npos: unclosed).
size_t skip_property(std::string_view line, size_t at) {
  constexpr std::string_view kNotInAnchor = " \t,[]{}";
  constexpr std::string_view kTagPunctuation = "-#;/?:@&=+$,_.~*'()[]!%";
  if (line[at] == '&') return std::min(line.find_first_of(kNotInAnchor, at), line.size());
  if (line.substr(at).starts_with("!<")) {
    size_t close = line.find('>', at);
    return close == std::string_view::npos ? close : close + 1;
  }
  auto in_tag = [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           kTagPunctuation.find(c) != std::string_view::npos;
  };
  do {
    ++at;
  } while (at < line.size() && in_tag(line[at]));
  return at;
}

// The column (0-based) of a value on `line` after the node properties that yaml-cpp's mark at
// `col` may point at; npos when the value is not on this line.
size_t skip_properties(std::string_view line, size_t col) {
  while (col < line.size() && (line[col] == '!' || line[col] == '&')) {
    col = skip_property(line, col);
    if (col == std::string_view::npos) return col;
    col = line.find_first_not_of(" \t", col);
  }
  return col < line.size() ? col : std::string_view::npos;
}

// yaml-cpp marks a value at its properties (`!!str`, `&a`), a quoted scalar at its opening quote
// and a block scalar (`|`, `>`) at its indicator; errors inside a value count from its first
// character. Where that character is not found (a block scalar whose next line is blank or
// missing, properties on a line of their own), the mark itself is kept. See validate.h, Note
// [Columns inside values].
SourceLoc value_start(std::string_view text, const SourceLoc& loc) {
  std::string_view line = nth_line(text, loc.line);
  if (loc.col < 1) return loc;
  size_t at = skip_properties(line, static_cast<size_t>(loc.col) - 1);
  if (at == std::string_view::npos) return loc;
  SourceLoc value{loc.file, loc.line, static_cast<int>(at) + 1};
  if (line[at] == '"' || line[at] == '\'') return value.advanced(1);
  if (line[at] != '|' && line[at] != '>') return value;
  std::string_view next = nth_line(text, loc.line + 1);
  size_t indent = next.find_first_not_of(' ');
  if (indent == std::string_view::npos) return value;
  return {loc.file, loc.line + 1, static_cast<int>(indent) + 1};
}

// Moves the locations of expression values (func, pointwise, formulas) onto their first
// character, then parses the schema, whose errors point inside the string.
void finish_entry(std::string_view text, OpEntry& op) {
  op.func_loc = value_start(text, op.func_loc);
  if (op.pointwise) op.pointwise_loc = value_start(text, op.pointwise_loc);
  for (Derivative& d : op.derivatives) d.loc = value_start(text, d.loc);
  op.schema = parse_schema(op.func, op.func_loc);
}

// yaml-cpp also reads UTF-16 and UTF-32, chosen by a byte order mark or guessed from NUL bytes
// among the first four, and then marks positions in the UTF-8 it converted to, which no editor
// shows. Ops files are UTF-8: the others are rejected where they start to differ (a UTF-16/32
// byte order mark, or the first NUL byte, which YAML forbids anyway). A UTF-8 byte order mark is
// dropped, as editors do not count it as a column either.
std::string_view utf8_text(std::string_view text, const std::string& path) {
  if (text.starts_with("\xFE\xFF") || text.starts_with("\xFF\xFE")) {
    throw GenError({path, 1, 1},
                   "ops files are UTF-8; this one starts with a UTF-16 or UTF-32 byte order mark",
                   "save it as UTF-8");
  }
  if (size_t nul = text.find('\0'); nul != std::string_view::npos) {
    size_t line_start = text.rfind('\n', nul);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + nul, '\n'));
    throw GenError({path, line, static_cast<int>(nul - line_start) + 1}, "NUL byte in an ops file",
                   "ops files are UTF-8 text; remove it (a file saved as UTF-16 is full of them: "
                   "save it as UTF-8)");
  }
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  return text;
}

YAML::Node parse_yaml(std::string_view text, const std::string& path) {
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::ParserException& e) {
    // An escape cut off by the end of the input is marked past its end: point just after it.
    int past_end = std::max(0, e.mark.pos - static_cast<int>(text.size()));
    throw GenError({path, e.mark.line + 1, std::max(1, e.mark.column + 1 - past_end)},
                   "malformed YAML: " + e.msg,
                   "check the indentation and quoting near this position");
  }
}

}  // namespace

std::string_view shape_rule_name(ShapeRule r) { return choice_name(kShapeRules, r); }
std::string_view dtype_rule_name(DTypeRule r) { return choice_name(kDTypeRules, r); }
std::string_view torch_kernel_name(TorchKernel k) { return choice_name(kTorchKernels, k); }

OpsFile load_ops_text(const std::string& text, const std::string& path, OpsDialect dialect,
                      const std::vector<std::string>& select) {
  const std::string_view utf8 = utf8_text(text, path);
  YAML::Node root = parse_yaml(utf8, path);
  OpsFile file{path, {}, {}};
  if (root.IsNull()) return file;
  if (!root.IsSequence()) {
    throw GenError(loc_of(path, root), "an ops file is a list of entries, not " + describe(root),
                   "start each entry with '- func: <schema>'");
  }
  for (const auto& entry : root) {
    OpEntry op = read_entry(path, entry);
    finish_entry(utf8, op);
    read_test_inputs(path, entry, op);
    (is_adapter_only(op) ? file.torch_adapters : file.ops).push_back(std::move(op));
  }
  if (!select.empty()) file.ops = select_ops(file, select);
  validate_ops(file, dialect);
  return file;
}

OpsFile load_ops_file(const std::string& path, OpsDialect dialect,
                      const std::vector<std::string>& select) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw GenError({path, 0, 0}, "cannot open file", "check the path");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return load_ops_text(buffer.str(), path, dialect, select);
}

}  // namespace lazygen::gen
