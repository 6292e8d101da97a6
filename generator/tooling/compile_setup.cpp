// See compile_setup.h.
#include "tooling/compile_setup.h"

#include <cstdlib>
#include <filesystem>
#include <set>
#include <utility>

#include <clang/Driver/Options.h>
#include <clang/Tooling/JSONCompilationDatabase.h>
#include <llvm/Option/ArgList.h>
#include <llvm/Option/OptTable.h>
#include <llvm/Option/Option.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#ifndef LAZYGEN_CLANG_RESOURCE_DIR
#error "LAZYGEN_CLANG_RESOURCE_DIR must be defined by generator/tooling/CMakeLists.txt"
#endif

namespace lazygen::gen::hook_check {
namespace {

using clang::tooling::CommandLineArguments;
using clang::tooling::CompileCommand;

// compile_commands.json first, the fallback arguments otherwise; one command per source.
class HookCompilationDatabase : public clang::tooling::CompilationDatabase {
 public:
  HookCompilationDatabase(std::unique_ptr<CompilationDatabase> json,
                          std::vector<std::string> fallback_args, std::string fallback_dir)
      : json_(std::move(json)),
        fallback_args_(std::move(fallback_args)),
        fallback_dir_(std::move(fallback_dir)) {}

  std::vector<CompileCommand> getCompileCommands(llvm::StringRef file) const override {
    if (json_ != nullptr) {
      std::vector<CompileCommand> commands = json_->getCompileCommands(file);
      if (!commands.empty()) {
        commands.resize(1);
        // The adjuster identifies the source by this name; the command keeps its own spelling.
        commands[0].Filename = file.str();
        return commands;
      }
    }
    std::vector<std::string> line{"clang++"};
    line.insert(line.end(), fallback_args_.begin(), fallback_args_.end());
    line.push_back(file.str());
    return {CompileCommand(fallback_dir_, file, std::move(line), "")};
  }

 private:
  std::unique_ptr<CompilationDatabase> json_;
  std::vector<std::string> fallback_args_;
  std::string fallback_dir_;
};

// Build commands may start with a launcher ("ccache c++ ..."); Clang's driver wants the compiler.
CommandLineArguments without_launcher(CommandLineArguments args) {
  static const std::set<std::string> launchers{"ccache", "sccache", "distcc", "icecc"};
  if (args.size() > 1 && launchers.count(llvm::sys::path::filename(args[0]).str()) != 0)
    args.erase(args.begin());
  return args;
}

// `-include <header>` where a GCC build precompiled <header> (CMake's precompile_headers: a
// <header>.gch beside it) becomes a plain textual include for Clang's front end: Clang's driver
// would load the .gch as if it were its own PCH format and fail ("not a valid precompiled PCH
// file"). The prefix header's declarations stay, only the GCC-made cache is not used.
CommandLineArguments without_gcc_precompiled_headers(CommandLineArguments args) {
  CommandLineArguments out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-include" && i + 1 < args.size() &&
        llvm::sys::fs::exists(args[i + 1] + ".gch")) {
      for (const std::string& a :
           {std::string("-Xclang"), std::string("-include"), std::string("-Xclang"), args[i + 1]})
        out.push_back(a);
      ++i;
      continue;
    }
    out.push_back(args[i]);
  }
  return out;
}

std::string join_command(const CommandLineArguments& args) {
  std::string out;
  for (const std::string& arg : args) {
    if (!out.empty()) out += ' ';
    out += arg.find(' ') == std::string::npos ? arg : "'" + arg + "'";
  }
  return out;
}

}  // namespace

std::string clang_resource_dir() {
  const char* from_env = std::getenv("LAZYGEN_CLANG_RESOURCE_DIR");
  std::string dir =
      from_env != nullptr && *from_env != '\0' ? from_env : LAZYGEN_CLANG_RESOURCE_DIR;
  if (!std::filesystem::exists(std::filesystem::path(dir) / "include" / "stddef.h")) {
    throw GenError(SourceLoc{dir},
                   "Clang's resource directory (builtin headers such as <stddef.h>) is missing, "
                   "so hand-written hooks cannot be checked",
                   "install libclang-common-14-dev, or set LAZYGEN_CLANG_RESOURCE_DIR to the "
                   "output of `clang-14 -print-resource-dir`");
  }
  return dir;
}

std::unique_ptr<clang::tooling::CompilationDatabase> make_compilation_database(
    const std::string& json_dir, std::vector<std::string> fallback_args, std::string fallback_dir) {
  std::unique_ptr<clang::tooling::CompilationDatabase> json;
  if (!json_dir.empty()) {
    const std::string path = (std::filesystem::path(json_dir) / "compile_commands.json").string();
    std::string error;
    json = clang::tooling::JSONCompilationDatabase::loadFromFile(
        path, error, clang::tooling::JSONCommandLineSyntax::AutoDetect);
    if (json == nullptr) {
      throw GenError(SourceLoc{path}, "cannot load the compilation database: " + error,
                     "configure the build with CMAKE_EXPORT_COMPILE_COMMANDS=ON, or pass no "
                     "compile_commands directory to use the fallback arguments");
    }
  }
  return std::make_unique<HookCompilationDatabase>(std::move(json), std::move(fallback_args),
                                                   std::move(fallback_dir));
}

std::vector<std::string> strip_unknown_driver_options(const std::vector<std::string>& args) {
  if (args.empty()) return args;
  std::vector<const char*> argv;
  for (std::size_t i = 1; i < args.size(); ++i) argv.push_back(args[i].c_str());
  unsigned missing_index = 0;
  unsigned missing_count = 0;
  // The same option visibility as Clang's driver outside clang-cl mode.
  const unsigned excluded = clang::driver::options::CLOption |
                            clang::driver::options::NoDriverOption |
                            clang::driver::options::FlangOnlyOption;
  const llvm::opt::InputArgList parsed = clang::driver::getDriverOptTable().ParseArgs(
      argv, missing_index, missing_count, /*FlagsToInclude=*/0, excluded);
  std::set<unsigned> unknown;  // indices into argv
  for (const llvm::opt::Arg* arg : parsed) {
    if (arg->getOption().getKind() == llvm::opt::Option::UnknownClass)
      unknown.insert(arg->getIndex());
  }
  std::vector<std::string> out{args[0]};
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (unknown.count(static_cast<unsigned>(i - 1)) == 0) out.push_back(args[i]);
  }
  return out;
}

clang::tooling::ArgumentsAdjuster make_arguments_adjuster(CheckSession& session,
                                                          std::string resource_dir) {
  return [&session, resource_dir = std::move(resource_dir)](const CommandLineArguments& args,
                                                            llvm::StringRef file) {
    CommandLineArguments out =
        strip_unknown_driver_options(without_gcc_precompiled_headers(without_launcher(args)));
    // -w: no warnings at all, so a build's -Werror cannot turn a Clang-only warning into a
    // failure; -ferror-limit=0: a broken injected declaration must not end the parse early.
    for (const char* extra : {"-w", "-Wno-unknown-warning-option", "-ferror-limit=0"})
      out.emplace_back(extra);
    out.emplace_back("-resource-dir");
    out.push_back(resource_dir);
    session.begin_source(file.str(), join_command(out));
    return out;
  };
}

}  // namespace lazygen::gen::hook_check
