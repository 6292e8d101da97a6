// See template.h.
#include "writer/template.h"

#include <fstream>
#include <set>
#include <sstream>

namespace lazygen::gen {
namespace {

std::string indent_lines(std::string text, const std::string& indent) {
  if (!text.empty() && text.back() == '\n') text.pop_back();
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    out += (line.empty() ? "" : indent + line) + "\n";
    start = end + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

// A placeholder alone on a line: each list element becomes indented lines.
std::string expand_block(const TemplateValue& value, const std::string& indent) {
  if (const auto* s = std::get_if<std::string>(&value)) return indent_lines(*s, indent);
  std::string out;
  for (const auto& item : std::get<std::vector<std::string>>(value)) out += indent_lines(item, indent);
  return out;
}

std::string expand_inline(const TemplateValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  return join(std::get<std::vector<std::string>>(value), ", ");
}

struct Expander {
  const TemplateEnv& env;
  const std::string& name;
  std::set<std::string> used;

  const TemplateValue& lookup(const std::string& key, int line) {
    auto it = env.find(key);
    if (it == env.end()) throw GenError({name, line, 0}, "template uses '${" + key + "}', which the emitter does not set");
    used.insert(key);
    return it->second;
  }

  std::string line(const std::string& text, int line_no) {
    size_t first = text.find_first_not_of(" ");
    bool alone = first != std::string::npos && text.compare(first, 2, "${") == 0 &&
                 text.find('}') == text.size() - 1 && text.find("${", first + 2) == std::string::npos;
    if (alone) {
      std::string key = text.substr(first + 2, text.size() - first - 3);
      return expand_block(lookup(key, line_no), text.substr(0, first));
    }
    std::string out;
    size_t pos = 0;
    for (size_t open; (open = text.find("${", pos)) != std::string::npos;) {
      size_t close = text.find('}', open);
      if (close == std::string::npos) throw GenError({name, line_no, static_cast<int>(open) + 1}, "unclosed '${'");
      out += text.substr(pos, open - pos) + expand_inline(lookup(text.substr(open + 2, close - open - 2), line_no));
      pos = close + 1;
    }
    return out + text.substr(pos) + "\n";
  }
};

}  // namespace

CodeTemplate::CodeTemplate(std::string text, std::string name) : text_(std::move(text)), name_(std::move(name)) {}

CodeTemplate CodeTemplate::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw GenError({path, 0, 0}, "cannot read template", "pass --templates <dir> pointing at lazygen's templates/");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return CodeTemplate(buffer.str(), path);
}

std::string CodeTemplate::substitute(const TemplateEnv& env) const {
  Expander ex{env, name_, {}};
  std::string out;
  std::istringstream lines(text_);
  std::string text;
  for (int line_no = 1; std::getline(lines, text); ++line_no) out += ex.line(text, line_no);
  for (const auto& [key, value] : env) {
    if (!ex.used.count(key)) throw GenError({name_, 0, 0}, "the emitter sets '" + key + "', which the template never uses");
  }
  return out;
}

const CodeTemplate& TemplateDir::get(const std::string& file) {
  auto it = cache_.find(file);
  if (it == cache_.end()) it = cache_.emplace(file, CodeTemplate::from_file(dir_ + "/" + file)).first;
  return it->second;
}

}  // namespace lazygen::gen
