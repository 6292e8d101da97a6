// Internal to lazygen_tooling: the Clang frontend side of the hook check.
//
// The action appends `#include "<injected header>"` to each main file (through a remapped buffer,
// so nothing is written to disk) and parses it syntax-only, skipping function bodies outside the
// main file (headers are needed for their declarations only; the main file's bodies are parsed so
// its errors are seen). After parsing it looks every hook's qualified name up in the AST, and for
// each definition found compares its type with the injected expected declaration's, recording the
// result in the session's current TuReport. The collector routes Clang's errors to the session.
#pragma once

#include <memory>

#include <clang/Basic/Diagnostic.h>
#include <clang/Tooling/Tooling.h>

#include "tooling/check_session.h"

namespace lazygen::gen::hook_check {

std::unique_ptr<clang::tooling::FrontendActionFactory> make_hook_action_factory(
    CheckSession& session);

std::unique_ptr<clang::DiagnosticConsumer> make_error_collector(CheckSession& session);

}  // namespace lazygen::gen::hook_check
