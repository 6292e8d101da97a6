// Internal to lazygen_tooling: how each hand-written source is compiled for the hook check.
//
// Commands come from compile_commands.json when the source is in it, else from the caller's
// fallback arguments; only the first command of a source is used (a file built by two targets is
// parsed once). The adjuster turns a build command into a quiet Clang 14 syntax-only parse: it
// drops a compiler launcher (ccache), removes options Clang's driver rejects (gcc-only ones such as
// -fconcepts-diagnostics-depth=), includes a GCC-precompiled prefix header as text, disables
// warnings (a gcc -Werror build must not fail on a Clang-only warning) and points Clang at its
// resource directory, which a LibTooling program cannot locate from its own path.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>

#include "tooling/check_session.h"

namespace lazygen::gen::hook_check {

// Clang 14's resource directory (builtin headers): $LAZYGEN_CLANG_RESOURCE_DIR, else the one
// found at configure time. Throws GenError when it holds no builtin headers.
std::string clang_resource_dir();

// The database the ClangTool run uses. `json_dir` may be "" (no compile_commands.json); relative
// paths in `fallback_args` resolve against `fallback_dir`. Throws GenError when `json_dir` is set
// but its compile_commands.json cannot be loaded.
std::unique_ptr<clang::tooling::CompilationDatabase> make_compilation_database(
    const std::string& json_dir, std::vector<std::string> fallback_args, std::string fallback_dir);

// The adjuster described above; it also tells `session` which source is about to be parsed.
clang::tooling::ArgumentsAdjuster make_arguments_adjuster(CheckSession& session,
                                                          std::string resource_dir);

// `args` without the options Clang's driver does not know (argv[0] is kept).
std::vector<std::string> strip_unknown_driver_options(const std::vector<std::string>& args);

}  // namespace lazygen::gen::hook_check
