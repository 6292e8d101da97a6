// Logic-free code templates (the torchgen CodeTemplate idea).
//
//   ${name}   replaced by the value of `name`. A placeholder alone on its line (indentation
//             allowed) takes a list value and expands to one line per element, each element's
//             lines indented like the placeholder; an empty list removes the line. Used inline,
//             a list is joined with ", ".
// Conditions are expressed by the emitter as (possibly empty) lists; templates hold no logic.
// An unknown placeholder, or an unused value, is an error naming the template file and line.
#pragma once

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "model/diagnostic.h"

namespace lazygen::gen {

using TemplateValue = std::variant<std::string, std::vector<std::string>>;
using TemplateEnv = std::map<std::string, TemplateValue>;

class CodeTemplate {
 public:
  // `name` is used in error messages (the template's path).
  CodeTemplate(std::string text, std::string name);
  static CodeTemplate from_file(const std::string& path);

  // Throws GenError for an unknown placeholder or a value the template does not use.
  std::string substitute(const TemplateEnv& env) const;

 private:
  std::string text_;
  std::string name_;
};

// Loads templates from one directory, each read once.
class TemplateDir {
 public:
  explicit TemplateDir(std::string dir) : dir_(std::move(dir)) {}
  const CodeTemplate& get(const std::string& file);
  std::string render(const std::string& file, const TemplateEnv& env) { return get(file).substitute(env); }

 private:
  std::string dir_;
  std::map<std::string, CodeTemplate> cache_;
};

}  // namespace lazygen::gen
