// Internal to lazygen_tooling: the state one check_hooks() run shares between the Clang pieces
// (arguments adjuster, diagnostic consumer, frontend actions), and what each translation unit
// reported.
//
// The expected declarations are injected into every parsed TU through one virtual header, one hook
// per line: hook i sits on line i + 1 inside namespace `<hook namespace>::lazygen_expected_<i>_`,
// so its unqualified type names resolve exactly as in the hook's namespace, and a Clang error on
// line i + 1 of that header belongs to hook i. ClangTool parses sources one after another; the
// arguments adjuster calls begin_source() right before each one, so everything recorded afterwards
// belongs to that source's TuReport. Plain data, no Clang types: the header stays cheap to include.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "tooling/hook_checker.h"

namespace lazygen::gen::hook_check {

// A definition of hook `hook` seen in one TU.
struct SeenDefinition {
  std::size_t hook = 0;
  FoundDefinition found;
  bool matches = false;
  bool compared = false;  // false when the expected declaration was unusable in this TU
};

// An error Clang reported about the hand-written code.
struct ClangError {
  SourceLoc loc;
  std::string text;
};

// Everything one source produced.
struct TuReport {
  std::string source;   // absolute path
  std::string command;  // the command line it was parsed with, for error hints
  bool parsed = false;  // the frontend action ran (the driver accepted the command)
  std::vector<SeenDefinition> definitions;
  std::vector<ClangError> errors;                       // in hand-written code
  std::map<std::size_t, std::string> injection_errors;  // hook -> first error of its expected decl
};

class CheckSession {
 public:
  // `sources` and `root_dir` must be absolute.
  CheckSession(const std::vector<HookSpec>& hooks, std::vector<std::string> sources,
               std::string root_dir);

  const std::vector<HookSpec>& hooks() const { return hooks_; }
  const std::vector<TuReport>& reports() const { return reports_; }

  // Path of the virtual header holding the expected declarations, and its text.
  static const char* injected_header_path();
  const std::string& injected_header() const { return injected_header_; }
  // The marker namespace hook `hook`'s expected declaration lives in (one component).
  static std::string marker_namespace(std::size_t hook);

  // Starts attributing what follows to `source` (absolute) parsed with `command`.
  void begin_source(const std::string& source, std::string command);
  // The report of the source being parsed, or nullptr before the first begin_source().
  TuReport* current();

  // Records a Clang error at an absolute `file` ("" = no location); errors inside the injected
  // header go to the hook they belong to.
  void record_error(const std::string& file, int line, int col, const std::string& text);
  // `file` (absolute) for messages: relative to the root when under it.
  SourceLoc display_loc(const std::string& file, int line, int col) const;
  // True when `file` (absolute) lies in a `generated/` directory (below the root when under it).
  bool is_generated(const std::string& file) const;

 private:
  std::vector<HookSpec> hooks_;
  std::string root_dir_;
  std::string injected_header_;
  std::vector<TuReport> reports_;  // one per source, in input order
  TuReport* current_ = nullptr;
};

// "a::b::f" -> "a::b" ("" for a global function); leading "::" is ignored.
std::string namespace_of(const std::string& qualified_name);
// "a::b::f" -> "f".
std::string unqualified_name(const std::string& qualified_name);
// "a::b::f" -> {"a", "b", "f"}; "" -> {}.
std::vector<std::string> split_qualified(const std::string& qualified_name);

}  // namespace lazygen::gen::hook_check
