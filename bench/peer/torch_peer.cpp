// See torch_peer.h. The child runs through popen with stderr sent to /dev/null; arguments are
// single-quoted for the shell.
#include "torch_peer.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "ops/cpu/openblas.h"

#ifndef LAZYGEN_TORCH_PEER_DEFAULT
#define LAZYGEN_TORCH_PEER_DEFAULT ""
#endif

namespace lazygen::bench {
namespace {

constexpr const char* kPython = LAZYGEN_PYTHON;  // cmake/LazygenTorch.cmake

std::string script_path() {
  const char* env = std::getenv("LAZYGEN_TORCH_PEER");
  return env != nullptr && *env != '\0' ? env : LAZYGEN_TORCH_PEER_DEFAULT;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

size_t skip_string(const std::string& s, size_t i) {  // s[i] == '"'
  for (++i; i < s.size() && s[i] != '"'; ++i) {
    if (s[i] == '\\') ++i;
  }
  return i + 1;
}

size_t skip_ws(const std::string& s, size_t i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

// Skips one JSON value starting at s[i] (string, number, literal, object or array).
size_t skip_value(const std::string& s, size_t i) {
  i = skip_ws(s, i);
  if (i >= s.size()) return i;
  if (s[i] == '"') return skip_string(s, i);
  if (s[i] != '{' && s[i] != '[') {
    while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']') ++i;
    return i;
  }
  int depth = 0;
  for (; i < s.size(); ++i) {
    if (s[i] == '"') {
      i = skip_string(s, i) - 1;
    } else if (s[i] == '{' || s[i] == '[') {
      ++depth;
    } else if ((s[i] == '}' || s[i] == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return i;
}

std::string read_all(FILE* pipe) {
  std::string out;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  return out;
}

}  // namespace

PeerResult run_torch_peer(const std::vector<std::string>& args) {
  PeerResult result;
  const std::string script = script_path();
  if (script.empty() || !std::filesystem::exists(script)) {
    result.error = "no torch_peer.py (set LAZYGEN_TORCH_PEER; looked at '" + script + "')";
    return result;
  }
  if (access(kPython, X_OK) != 0) {
    result.error = std::string("no ") + kPython + " (apt-get install python3-torch)";
    return result;
  }
  // PyTorch's OpenBLAS gets the kernels lazygen's gets (Note [Choosing OpenBLAS's kernels]).
  std::string command;
  const std::string core = cpu::openblas_core_for_this_cpu();
  if (!core.empty() && std::getenv("OPENBLAS_CORETYPE") == nullptr) {
    command = "OPENBLAS_CORETYPE=" + shell_quote(core) + " ";
  }
  command += std::string(kPython) + " " + shell_quote(script);
  for (const std::string& a : args) command += " " + shell_quote(a);
  command += " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    result.error = "popen failed";
    return result;
  }
  const std::string out = read_all(pipe);
  const int status = pclose(pipe);
  if (status != 0) {
    result.error = "torch_peer.py exited with status " + std::to_string(WEXITSTATUS(status)) +
                   " (is python3-torch installed?)";
    return result;
  }
  result.numbers = parse_numeric_fields(out);
  result.ok = !result.numbers.empty();
  if (!result.ok) result.error = "torch_peer.py printed no numbers";
  return result;
}

std::map<std::string, double> parse_numeric_fields(const std::string& json) {
  std::map<std::string, double> fields;
  size_t i = skip_ws(json, json.find('{'));
  if (i >= json.size()) return fields;
  for (++i; (i = skip_ws(json, i)) < json.size() && json[i] == '"';) {
    const size_t key_end = skip_string(json, i);
    const std::string key = json.substr(i + 1, key_end - i - 2);
    i = skip_ws(json, key_end);
    if (i >= json.size() || json[i] != ':') break;
    const size_t value = skip_ws(json, i + 1);
    i = skip_value(json, value);
    const std::string text = json.substr(value, i - value);
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (!text.empty() && end != text.c_str() && skip_ws(text, end - text.c_str()) == text.size()) {
      fields[key] = v;
    }
    i = skip_ws(json, i);
    if (i < json.size() && json[i] == ',') ++i;
  }
  return fields;
}

}  // namespace lazygen::bench
