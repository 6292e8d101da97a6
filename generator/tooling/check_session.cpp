// See check_session.h.
#include "tooling/check_session.h"

#include <filesystem>
#include <utility>

namespace lazygen::gen::hook_check {
namespace {

// The declaration on a single line (the header maps line i + 1 to hook i), ending in ';'.
std::string one_line_declaration(const std::string& declaration) {
  std::string out = declaration;
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  const auto last = out.find_last_not_of(" \t");
  out.erase(last == std::string::npos ? 0 : last + 1);
  if (out.empty() || out.back() != ';') out += ';';
  return out;
}

// One line: the expected declaration inside its marker namespace, nested in the hook's namespace
// with C++98 syntax so that sources compiled with any -std accept it.
std::string injected_line(const HookSpec& hook, std::size_t index) {
  std::string open;
  std::string close;
  for (const std::string& part : split_qualified(namespace_of(hook.qualified_name))) {
    open += "namespace " + part + " { ";
    close += " }";
  }
  return open + "namespace " + CheckSession::marker_namespace(index) + " { " +
         one_line_declaration(hook.declaration) + " }" + close + "\n";
}

std::string injected_text(const std::vector<HookSpec>& hooks) {
  std::string out;
  for (std::size_t i = 0; i < hooks.size(); ++i) out += injected_line(hooks[i], i);
  return out;
}

// `file` relative to `root` when it lies below it, else unchanged.
std::string relative_to(const std::string& file, const std::string& root) {
  if (root.empty() || file.empty()) return file;
  const std::filesystem::path rel =
      std::filesystem::path(file).lexically_normal().lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") return file;
  return rel.generic_string();
}

}  // namespace

std::vector<std::string> split_qualified(const std::string& qualified_name) {
  std::vector<std::string> parts;
  if (qualified_name.empty()) return parts;  // the global namespace has no components
  std::size_t start = qualified_name.rfind("::", 0) == 0 ? 2 : 0;
  while (start <= qualified_name.size()) {
    const std::size_t end = qualified_name.find("::", start);
    parts.push_back(qualified_name.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 2;
  }
  return parts;
}

std::string namespace_of(const std::string& qualified_name) {
  std::vector<std::string> parts = split_qualified(qualified_name);
  if (!parts.empty()) parts.pop_back();
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : "::") + part;
  return out;
}

std::string unqualified_name(const std::string& qualified_name) {
  const std::vector<std::string> parts = split_qualified(qualified_name);
  return parts.empty() ? "" : parts.back();
}

CheckSession::CheckSession(const std::vector<HookSpec>& hooks, std::vector<std::string> sources,
                           std::string root_dir)
    : hooks_(hooks), root_dir_(std::move(root_dir)), injected_header_(injected_text(hooks)) {
  reports_.resize(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i) reports_[i].source = std::move(sources[i]);
}

const char* CheckSession::injected_header_path() {
  // Absolute and nonexistent: only ever served from memory (see hook_frontend.cpp).
  return "/lazygen-hook-check/expected_hooks.h";
}

std::string CheckSession::marker_namespace(std::size_t hook) {
  return "lazygen_expected_" + std::to_string(hook) + "_";
}

void CheckSession::begin_source(const std::string& source, std::string command) {
  current_ = nullptr;
  for (TuReport& report : reports_) {
    if (report.source == source) current_ = &report;
  }
  if (current_ != nullptr) current_->command = std::move(command);
}

TuReport* CheckSession::current() {
  return current_;
}

void CheckSession::record_error(const std::string& file, int line, int col,
                                const std::string& text) {
  if (current_ == nullptr) return;
  if (file == injected_header_path()) {
    // Only the first error per hook: later ones are usually consequences of it.
    if (line >= 1 && static_cast<std::size_t>(line) <= hooks_.size())
      current_->injection_errors.emplace(static_cast<std::size_t>(line - 1), text);
    return;
  }
  current_->errors.push_back(ClangError{display_loc(file, line, col), text});
}

SourceLoc CheckSession::display_loc(const std::string& file, int line, int col) const {
  return SourceLoc{relative_to(file, root_dir_), line, col};
}

bool CheckSession::is_generated(const std::string& file) const {
  // Judged below the root so that a checkout that itself lives under ".../generated/..." still
  // counts its hand-written sources.
  for (const auto& part : std::filesystem::path(relative_to(file, root_dir_))) {
    if (part == "generated") return true;
  }
  return false;
}

}  // namespace lazygen::gen::hook_check
