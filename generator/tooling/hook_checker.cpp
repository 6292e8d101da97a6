// See hook_checker.h. This file drives the ClangTool run and turns the per-source reports of
// check_session.h into one finding per hook; the Clang side lives in hook_frontend.cpp and
// compile_setup.cpp.
#include "tooling/hook_checker.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

#include <clang/Tooling/Tooling.h>
#include <llvm/Support/VirtualFileSystem.h>

#include "tooling/check_session.h"
#include "tooling/compile_setup.h"
#include "tooling/hook_frontend.h"

namespace lazygen::gen {
namespace {

using hook_check::CheckSession;
using hook_check::SeenDefinition;
using hook_check::TuReport;

constexpr std::size_t kErrorsShownPerSource = 5;

std::string absolute(const std::string& path, const std::filesystem::path& cwd) {
  if (path.empty()) return path;
  return (cwd / path).lexically_normal().string();
}

// Absolute, deduplicated, existing sources, in input order.
std::vector<std::string> absolute_sources(const std::vector<std::string>& sources,
                                          const std::filesystem::path& cwd) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& source : sources) {
    const std::string path = absolute(source, cwd);
    if (!std::filesystem::is_regular_file(path)) {
      throw GenError(SourceLoc{source}, "hand-written source '" + source + "' does not exist",
                     "fix the list of hand-written sources given to the hook check");
    }
    if (seen.insert(path).second) out.push_back(path);
  }
  return out;
}

void run_clang(CheckSession& session, const std::vector<std::string>& sources,
               const HookCheckInput& input, const std::filesystem::path& cwd) {
  const std::string resource_dir = hook_check::clang_resource_dir();
  const auto database = hook_check::make_compilation_database(
      absolute(input.compile_commands_dir, cwd), input.fallback_args, cwd.string());
  // A private physical file system: ClangTool moves its working directory to each command's
  // directory, and the real file system's working directory is the whole process's.
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> file_system(
      llvm::vfs::createPhysicalFileSystem().release());
  clang::tooling::ClangTool tool(*database, sources,
                                 std::make_shared<clang::PCHContainerOperations>(), file_system);
  tool.appendArgumentsAdjuster(hook_check::make_arguments_adjuster(session, resource_dir));
  const auto collector = hook_check::make_error_collector(session);
  tool.setDiagnosticConsumer(collector.get());
  tool.setPrintErrorMessage(false);
  const auto factory = hook_check::make_hook_action_factory(session);
  tool.run(factory.get());  // failures are in the session's reports, checked next
}

std::string describe_errors(const CheckSession& session, const TuReport& report) {
  const std::string file = session.display_loc(report.source, 0, 0).file;
  std::string out = "hand-written source '" + file +
                    "' does not compile, so its hooks cannot be "
                    "checked:";
  for (std::size_t i = 0; i < report.errors.size() && i < kErrorsShownPerSource; ++i) {
    const std::string where = report.errors[i].loc.str();
    out += "\n    " + (where.empty() ? "" : where + ": ") + "error: " + report.errors[i].text;
  }
  if (report.errors.size() > kErrorsShownPerSource)
    out += "\n    ... and " + std::to_string(report.errors.size() - kErrorsShownPerSource) +
           " more error(s)";
  if (report.errors.empty()) out += "\n    Clang did not accept its compile command";
  return out;
}

// A source whose hand-written code does not compile makes every finding untrustworthy.
void throw_on_compile_errors(const CheckSession& session) {
  std::string message;
  std::string hint;
  SourceLoc loc;
  for (const TuReport& report : session.reports()) {
    if (report.parsed && report.errors.empty()) continue;
    if (message.empty()) {
      loc = report.errors.empty() || report.errors[0].loc.file.empty()
                ? session.display_loc(report.source, 0, 0)
                : report.errors[0].loc;
      hint = "fix the error(s); Clang 14 parsed it with: " + report.command;
    } else {
      message += "\n  ";
    }
    message += describe_errors(session, report);
  }
  if (!message.empty()) throw GenError(loc, message, hint);
}

// Adds `seen` unless its location is known; a compared result replaces an uncompared one.
void merge_definition(const SeenDefinition& seen, std::vector<SeenDefinition>& merged) {
  for (SeenDefinition& existing : merged) {
    if (existing.found.loc.str() != seen.found.loc.str()) continue;
    if (!existing.compared && seen.compared) existing = seen;
    return;
  }
  merged.push_back(seen);
}

// Why the expected declaration of hook `index` could not be compared, from the first source
// where it failed next to a definition.
std::string comparison_problem(const CheckSession& session, std::size_t index) {
  for (const TuReport& report : session.reports()) {
    for (const SeenDefinition& seen : report.definitions) {
      if (seen.hook != index || seen.compared) continue;
      const std::string file = session.display_loc(report.source, 0, 0).file;
      const auto error = report.injection_errors.find(index);
      return "the expected declaration does not compile in " + file + ": " +
             (error == report.injection_errors.end()
                  ? "it declares no function named '" +
                        hook_check::unqualified_name(session.hooks()[index].qualified_name) + "'"
                  : error->second);
    }
  }
  return "";
}

HookFinding summarize_hook(const CheckSession& session, std::size_t index) {
  std::vector<SeenDefinition> merged;
  for (const TuReport& report : session.reports()) {
    for (const SeenDefinition& seen : report.definitions) {
      if (seen.hook == index) merge_definition(seen, merged);
    }
  }
  HookFinding finding;
  finding.spec = session.hooks()[index];
  bool matched = false;
  bool uncompared = false;
  for (const SeenDefinition& seen : merged) {
    matched = matched || seen.matches;
    uncompared = uncompared || !seen.compared;
    finding.found.push_back(seen.found);
  }
  finding.status = matched          ? HookFinding::Status::Ok
                   : merged.empty() ? HookFinding::Status::Missing
                                    : HookFinding::Status::Mismatch;
  if (finding.status == HookFinding::Status::Mismatch && uncompared)
    finding.problem = comparison_problem(session, index);
  return finding;
}

// ---- message() -----------------------------------------------------------------------------

std::string prefix(const SourceLoc& loc, const std::string& severity) {
  const std::string where = loc.str();
  return (where.empty() ? "" : where + ": ") + severity + ": ";
}

std::string subject(const HookSpec& spec) {
  return spec.op + ": " + spec.kind + " '" + spec.qualified_name + "'";
}

std::string namespace_phrase(const HookSpec& spec) {
  const std::string ns = hook_check::namespace_of(spec.qualified_name);
  return ns.empty() ? "at global scope" : "in namespace " + ns;
}

// The declaration without its ';', trimmed.
std::string bare_declaration(const HookSpec& spec) {
  std::string out = spec.declaration;
  const auto last = out.find_last_not_of(" \t\r\n;");
  out.erase(last == std::string::npos ? 0 : last + 1);
  return out.substr(std::min(out.size(), out.find_first_not_of(" \t\r\n")));
}

std::string missing_message(const HookFinding& finding) {
  const HookSpec& spec = finding.spec;
  return prefix(spec.origin, "error") + subject(spec) +
         " is not defined in any hand-written source\n  hint: add this definition (" +
         namespace_phrase(spec) + "):\n    " + bare_declaration(spec) + " { ... }";
}

std::string mismatch_message(const HookFinding& finding) {
  const HookSpec& spec = finding.spec;
  std::string out = prefix(spec.origin, "error") + subject(spec) +
                    " is defined, but not with the expected signature\n  expected (" +
                    namespace_phrase(spec) + "):\n    " + bare_declaration(spec) + ";";
  for (const FoundDefinition& found : finding.found) {
    out += "\n" + prefix(found.loc, "note") + "found: " + found.signature;
    if (!found.difference.empty()) out += "\n  " + found.difference;
  }
  if (!finding.problem.empty()) {
    out += "\n  note: " + finding.problem +
           "\n  hint: make the types the declaration names visible there (include their "
           "headers), and define the function with exactly that declaration";
  } else {
    out +=
        "\n  hint: change the definition to the expected declaration; the generated code "
        "calls it with exactly these types";
  }
  return out;
}

}  // namespace

std::string HookFinding::message() const {
  switch (status) {
    case Status::Ok: {
      // found.difference is "" for the matching definition.
      const auto match = std::find_if(found.begin(), found.end(), [](const FoundDefinition& f) {
        return f.difference.empty();
      });
      return prefix(spec.origin, "note") + subject(spec) + " is defined" +
             (match == found.end() ? "" : " at " + match->loc.str());
    }
    case Status::Missing:
      return missing_message(*this);
    case Status::Mismatch:
      return mismatch_message(*this);
  }
  return "";
}

std::vector<HookFinding> check_hooks(const std::vector<HookSpec>& hooks,
                                     const HookCheckInput& input) {
  if (hooks.empty()) return {};
  const std::filesystem::path cwd = std::filesystem::current_path();
  const std::vector<std::string> sources = absolute_sources(input.sources, cwd);
  CheckSession session(hooks, sources,
                       absolute(input.root_dir.empty() ? cwd.string() : input.root_dir, cwd));
  if (!sources.empty()) run_clang(session, sources, input, cwd);
  throw_on_compile_errors(session);
  std::vector<HookFinding> findings;
  for (std::size_t i = 0; i < hooks.size(); ++i) findings.push_back(summarize_hook(session, i));
  return findings;
}

}  // namespace lazygen::gen
