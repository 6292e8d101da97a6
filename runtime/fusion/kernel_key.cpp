// Fusion-group keys and kernel manifests (kernel_key.h; See Notes [Group keys] and [Canonical
// manifests]).
#include "fusion/kernel_key.h"

#include <cstdio>

namespace lazygen::fusion {
namespace {

std::string format(const KeyLoc& loc, const std::string& message, const std::string& hint) {
  std::string out = loc.str();
  if (!out.empty()) out += ": ";
  out += "error: " + message;
  if (!hint.empty()) out += "\n  hint: " + hint;
  return out;
}

constexpr std::string_view kHeader = "lazygen-manifest";
constexpr std::string_view kKernel = "kernel";
const std::set<std::string> kComputeTypes = {"float32", "float64", "int64", "int32"};
const std::set<std::string> kTypes = {"float32", "float64", "int64", "int32", "bool"};
constexpr const char* kFieldOrder =
    "fields come in the order T=, load=..., op=..., out=..., reduce=, cuda=";

struct Token {
  std::string text;
  KeyLoc loc;  // of its first character
};

std::vector<Token> split_spaces(std::string_view line, const KeyLoc& at) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == ' ' || line[i] == '\t') {
      ++i;
      continue;
    }
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    out.push_back(
        {std::string(line.substr(start, i - start)), at.advanced(static_cast<int>(start))});
  }
  return out;
}

// One key's fields, checked as they come (See Note [Group keys]).
class KeyParser {
 public:
  explicit KeyParser(KeyLoc loc) { key_.loc = std::move(loc); }

  void field(const Token& t) {
    const size_t eq = t.text.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw KeyError(t.loc, "expected name=value, got '" + t.text + "'", kFieldOrder);
    }
    const std::string name = t.text.substr(0, eq);
    const Token value{t.text.substr(eq + 1), t.loc.advanced(static_cast<int>(eq + 1))};
    const int phase = phase_of(name, t.loc);
    if (phase < phase_ || (phase == phase_ && (phase == 0 || phase >= 4))) {
      throw KeyError(t.loc, "field '" + name + "' out of place", kFieldOrder);
    }
    phase_ = phase;
    if (name == "T") key_.dtype = dtype(value, kComputeTypes);
    if (name == "load") load(value);
    if (name == "op") op(value);
    if (name == "out") output(value);
    if (name == "reduce") reduce(value);
    if (name == "cuda") cuda(value);
  }

  KernelKey finish(const KeyLoc& end) {
    if (key_.dtype.empty()) throw KeyError(key_.loc, "kernel without T=<dtype>", kFieldOrder);
    if (key_.ops.empty())
      throw KeyError(end, "kernel without op=...", "a kernel computes at least one op");
    if (key_.cuda_rank > 0 && key_.cuda_access.size() != key_.loads.size()) {
      throw KeyError(cuda_loc_,
                     "cuda= names " + std::to_string(key_.cuda_access.size()) + " access(es) for " +
                         std::to_string(key_.loads.size()) + " load(s)",
                     "one letter per load");
    }
    return std::move(key_);
  }

 private:
  static int phase_of(const std::string& name, const KeyLoc& loc) {
    if (name == "T") return 0;
    if (name == "load") return 1;
    if (name == "op") return 2;
    if (name == "out") return 3;
    if (name == "reduce") return 4;
    if (name == "cuda") return 5;
    throw KeyError(loc, "unknown field '" + name + "'", kFieldOrder);
  }

  static std::string dtype(const Token& t, const std::set<std::string>& allowed) {
    if (allowed.count(t.text) == 0) {
      std::string names;
      for (const std::string& n : allowed) names += (names.empty() ? "" : ", ") + n;
      throw KeyError(t.loc, "unknown dtype '" + t.text + "'", "one of " + names);
    }
    return t.text;
  }

  // l<k>, v<k> or s<k>, where `kinds` says which are allowed here.
  KeyRef ref(const Token& t, const std::string& kinds) const {
    const std::string& s = t.text;
    const bool digits =
        s.size() > 1 && s.size() < 7 && s.find_first_not_of("0123456789", 1) == std::string::npos;
    if (!digits || kinds.find(s[0]) == std::string::npos) {
      throw KeyError(t.loc,
                     "expected an operand (" + kinds + " followed by a number), got '" + s + "'",
                     "l<k>: load k, v<k>: the value of op k, s<k>: Scalar k");
    }
    KeyRef r{s[0], std::stoi(s.substr(1))};
    if (r.kind == 'l' && r.index >= static_cast<int>(key_.loads.size())) {
      throw KeyError(t.loc, "'" + s + "' names a load the kernel does not have",
                     "declare it with load=<dtype>:<class>");
    }
    if (r.kind == 'v' && r.index >= static_cast<int>(key_.ops.size())) {
      throw KeyError(t.loc, "'" + s + "' names an op that is not computed before it",
                     "ops read loads and earlier ops");
    }
    return r;
  }

  void load(const Token& t) {
    const size_t colon = t.text.rfind(':');
    const std::string cls = colon == std::string::npos ? "" : t.text.substr(colon + 1);
    if (cls.size() != 1 || std::string("cbs").find(cls[0]) == std::string::npos) {
      throw KeyError(t.loc.advanced(colon == std::string::npos ? 0 : static_cast<int>(colon + 1)),
                     "expected a stride class after ':' in '" + t.text + "'",
                     "c (contiguous), b (broadcast) or s (strided)");
    }
    key_.loads.push_back({dtype({t.text.substr(0, colon), t.loc}, kTypes), cls[0]});
  }

  void op(const Token& t);

  void output(const Token& t) {
    const size_t colon = t.text.find(':');
    if (colon == std::string::npos)
      throw KeyError(t.loc, "expected v<k>:<dtype>, got '" + t.text + "'");
    const KeyRef r = ref({t.text.substr(0, colon), t.loc}, "v");
    key_.outputs.push_back(
        {r.index,
         dtype({t.text.substr(colon + 1), t.loc.advanced(static_cast<int>(colon + 1))}, kTypes)});
  }

  void reduce(const Token& t) {
    const size_t open = t.text.find('(');
    const std::string kind = t.text.substr(0, open);
    const std::string op = kind.ends_with(".lead") ? kind.substr(0, kind.size() - 5) : kind;
    if (op != "sum" && op != "mean" && op != "amax") {
      throw KeyError(t.loc, "unknown reduction '" + kind + "'",
                     "sum, mean or amax, each optionally followed by .lead");
    }
    if (open == std::string::npos || t.text.back() != ')') {
      throw KeyError(t.loc, "expected " + kind + "(<operand>)");
    }
    key_.reduce = kind;
    key_.reduce_from = ref({t.text.substr(open + 1, t.text.size() - open - 2),
                            t.loc.advanced(static_cast<int>(open + 1))},
                           "lv");
  }

  // <rank>:<letters>, rank 1..9, letters C, B or S (See Note [CUDA group keys]).
  void cuda(const Token& t) {
    const size_t colon = t.text.find(':');
    const std::string rank = t.text.substr(0, colon);
    if (colon == std::string::npos || rank.size() != 1 || rank[0] < '1' || rank[0] > '9') {
      throw KeyError(t.loc, "expected <rank>:<access letters>, got '" + t.text + "'",
                     "e.g. cuda=2:CS");
    }
    const std::string letters = t.text.substr(colon + 1);
    const size_t bad = letters.find_first_not_of("CBS");
    if (bad != std::string::npos) {
      throw KeyError(t.loc.advanced(static_cast<int>(colon + 1 + bad)),
                     "unknown access '" + letters.substr(bad, 1) + "'",
                     "C (contiguous), B (broadcast) or S (strided)");
    }
    key_.cuda_rank = rank[0] - '0';
    key_.cuda_access = letters;
    cuda_loc_ = t.loc;
  }

  KernelKey key_;
  int phase_ = -1;
  KeyLoc cuda_loc_;
};

void KeyParser::op(const Token& t) {
  const size_t open = t.text.find('(');
  if (open == std::string::npos || open == 0 || t.text.back() != ')') {
    throw KeyError(t.loc, "expected <schema name>(<operands>), got '" + t.text + "'",
                   "e.g. op=add.Tensor(l0,v1,s0)");
  }
  KeyOp op{t.text.substr(0, open), {}, t.loc};
  const std::string args = t.text.substr(open + 1, t.text.size() - open - 2);
  size_t start = 0;
  bool scalars = false;
  while (start <= args.size() && !args.empty()) {
    size_t end = args.find(',', start);
    if (end == std::string::npos) end = args.size();
    const Token arg{args.substr(start, end - start),
                    t.loc.advanced(static_cast<int>(open + 1 + start))};
    op.args.push_back(ref(arg, scalars ? "s" : "lvs"));
    scalars = op.args.back().kind == 's';
    start = end + 1;
  }
  key_.ops.push_back(std::move(op));
}

std::string strip_cr(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

// The fields tokens[first...] of one key that starts at `start` and ends at `end`.
KernelKey parse_fields(const std::vector<Token>& tokens, size_t first, const KeyLoc& start,
                       const KeyLoc& end) {
  KeyParser parser(start);
  for (size_t i = first; i < tokens.size(); ++i) parser.field(tokens[i]);
  return parser.finish(end);
}

void check_header(const std::vector<Token>& tokens) {
  if (tokens.size() != 2 || tokens[0].text != kHeader) {
    throw KeyError(tokens[0].loc,
                   "expected the header 'lazygen-manifest " + std::to_string(kKeyVersion) + "'",
                   "a manifest starts with its version (comments may come first)");
  }
  if (tokens[1].text != std::to_string(kKeyVersion)) {
    throw KeyError(tokens[1].loc,
                   "manifest version " + tokens[1].text + ", this lazygen reads version " +
                       std::to_string(kKeyVersion),
                   "record the manifest again with a runtime of this version (LAZYGEN_RECORD)");
  }
}

}  // namespace

std::vector<KernelKey> parse_manifest(std::string_view text, const std::string& path) {
  std::vector<KernelKey> keys;
  bool header = false;
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = strip_cr(std::string(text.substr(pos, end - pos)));
    pos = end + 1;
    const std::vector<Token> tokens = split_spaces(line, KeyLoc{path, ++line_no, 1});
    if (tokens.empty() || tokens[0].text[0] == '#') continue;
    if (!header) {
      check_header(tokens);
      header = true;
      continue;
    }
    if (tokens[0].text != kKernel) {
      throw KeyError(tokens[0].loc, "expected 'kernel', got '" + tokens[0].text + "'",
                     "one 'kernel <key>' per line");
    }
    keys.push_back(parse_fields(tokens, 1, tokens[0].loc,
                                KeyLoc{path, line_no, static_cast<int>(line.size()) + 1}));
  }
  if (!header)
    throw KeyError(KeyLoc{path, line_no > 0 ? line_no : 1, 1},
                   "empty manifest: no 'lazygen-manifest' header");
  return keys;
}

std::string print_key(const KernelKey& key) {
  std::string s = "T=" + key.dtype;
  for (const KeyLoad& l : key.loads) s += " load=" + l.dtype + ":" + l.stride_class;
  for (const KeyOp& op : key.ops) {
    s += " op=" + op.name + "(";
    for (size_t j = 0; j < op.args.size(); ++j) s += (j ? "," : "") + op.args[j].str();
    s += ")";
  }
  for (const KeyOutput& o : key.outputs) s += " out=v" + std::to_string(o.value) + ":" + o.dtype;
  if (!key.reduce.empty()) s += " reduce=" + key.reduce + "(" + key.reduce_from.str() + ")";
  if (key.cuda_rank > 0) s += " cuda=" + std::to_string(key.cuda_rank) + ":" + key.cuda_access;
  return s;
}

KernelKey cpu_key(KernelKey key) {
  key.cuda_rank = 0;
  key.cuda_access.clear();
  return key;
}

uint64_t text_hash(std::string_view text, uint64_t basis) {
  uint64_t h = basis;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

KeyHash key_hash(std::string_view key) {
  return KeyHash{text_hash(key, 0xcbf29ce484222325ULL), text_hash(key, 0x6c62272e07bb0142ULL)};
}

std::string KeyHash::hex() const {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(hi),
                static_cast<unsigned long long>(lo));
  return buf;
}

KernelKey parse_key(std::string_view text, const KeyLoc& at) {
  const std::vector<Token> tokens = split_spaces(text, at);
  return parse_fields(tokens, 0, at, at.advanced(static_cast<int>(text.size())));
}

std::string KeyLoc::str() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line);
  if (line > 0 && col > 0) out += ":" + std::to_string(col);
  return out;
}

KeyError::KeyError(KeyLoc loc, std::string message, std::string hint)
    : std::runtime_error(format(loc, message, hint)),
      loc_(std::move(loc)),
      message_(std::move(message)),
      hint_(std::move(hint)) {}

KeySet manifest_keys(std::string_view text, bool* stale) {
  KeySet keys;
  bool current = true;
  const std::string header = std::string(kHeader) + " ", kernel = std::string(kKernel) + " ";
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.starts_with(header)) {
      current = line.substr(header.size()) == std::to_string(kKeyVersion);
    } else if (line.starts_with(kernel) && current) {
      keys.insert(std::string(line.substr(kernel.size())));
    }
  }
  if (stale != nullptr) *stale = !current;
  return current ? keys : KeySet{};
}

std::string manifest_text(const KeySet& keys) {
  std::string text =
      "# lazygen kernel manifest: fusion groups to compile ahead of time (lazygen --kernels)\n";
  text += std::string(kHeader) + " " + std::to_string(kKeyVersion) + "\n";
  for (const std::string& k : keys) text += std::string(kKernel) + " " + k + "\n";
  return text;
}

std::string merge_manifests(const std::vector<std::string>& texts) {
  KeySet all;
  for (const std::string& t : texts) all.merge(manifest_keys(t));
  return manifest_text(all);
}

}  // namespace lazygen::fusion
