// See hook_frontend.h.
#include "tooling/hook_frontend.h"

#include <string>
#include <vector>

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Type.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

namespace lazygen::gen::hook_check {
namespace {

// Where a location is: absolute, dot-free file path (the file loc for macro expansions), 1-based
// line and column. Empty file for locations outside any file (builtins, command line).
struct FilePos {
  std::string file;
  int line = 0;
  int col = 0;
};

FilePos file_pos(const clang::SourceManager& sm, clang::SourceLocation loc) {
  if (loc.isInvalid()) return {};
  const clang::SourceLocation file_loc = sm.getFileLoc(loc);
  llvm::SmallString<256> path(sm.getFilename(file_loc));
  if (path.empty()) return {};
  // Relative names are relative to the command's directory, which the file manager knows.
  sm.getFileManager().makeAbsolutePath(path);
  llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/true);
  return {path.str().str(), static_cast<int>(sm.getSpellingLineNumber(file_loc)),
          static_cast<int>(sm.getSpellingColumnNumber(file_loc))};
}

// ---- Looking hooks up ----------------------------------------------------------------------

const clang::DeclContext* child_namespace(clang::ASTContext& ctx, const clang::DeclContext& scope,
                                          const std::string& name) {
  for (const clang::NamedDecl* decl : scope.lookup(&ctx.Idents.get(name))) {
    if (const auto* ns = llvm::dyn_cast<clang::NamespaceDecl>(decl)) return ns;
  }
  return nullptr;
}

// Every function entity named by `path` (namespaces, then the function name).
std::vector<const clang::FunctionDecl*> functions_named(clang::ASTContext& ctx,
                                                        const std::vector<std::string>& path) {
  if (path.empty() || path.back().empty()) return {};
  const clang::DeclContext* scope = ctx.getTranslationUnitDecl();
  for (std::size_t i = 0; i + 1 < path.size() && scope != nullptr; ++i)
    scope = child_namespace(ctx, *scope, path[i]);
  std::vector<const clang::FunctionDecl*> out;
  if (scope == nullptr) return out;
  for (const clang::NamedDecl* decl : scope->lookup(&ctx.Idents.get(path.back()))) {
    if (const auto* fn = llvm::dyn_cast<clang::FunctionDecl>(decl)) out.push_back(fn);
  }
  return out;
}

// The definitions among all redeclarations. A skipped body (in a header) still is a body.
std::vector<const clang::FunctionDecl*> definitions_of(
    const std::vector<const clang::FunctionDecl*>& functions) {
  std::vector<const clang::FunctionDecl*> out;
  for (const clang::FunctionDecl* fn : functions) {
    for (const clang::FunctionDecl* redecl : fn->redecls()) {
      if (redecl->doesThisDeclarationHaveABody() || redecl->hasSkippedBody()) out.push_back(redecl);
    }
  }
  return out;
}

// ---- Printing and comparing ----------------------------------------------------------------

// Types as written (no implicit scopes), so messages read like the source.
clang::PrintingPolicy display_policy(const clang::ASTContext& ctx) {
  clang::PrintingPolicy policy(ctx.getLangOpts());
  policy.SuppressScope = true;
  return policy;
}

std::string print_type(clang::QualType type, const clang::PrintingPolicy& policy,
                       const std::string& name = "") {
  std::string out;
  llvm::raw_string_ostream os(out);
  type.print(os, policy, name);
  return os.str();
}

// 'int64_t' (aka 'long'): the aka only when a typedef hides what the type is.
std::string quoted_type(clang::QualType type, const clang::ASTContext& ctx) {
  std::string out = "'" + print_type(type, display_policy(ctx)) + "'";
  clang::QualType base = type.getNonReferenceType();
  while (base->isPointerType()) base = base->getPointeeType();
  if (base->getAs<clang::TypedefType>() != nullptr)
    out += " (aka '" +
           print_type(type.getCanonicalType(), clang::PrintingPolicy(ctx.getLangOpts())) + "')";
  return out;
}

std::string signature_of(const clang::FunctionDecl& fn) {
  const clang::PrintingPolicy policy = display_policy(fn.getASTContext());
  std::string out = print_type(fn.getReturnType(), policy) + " " + fn.getNameAsString() + "(";
  for (unsigned i = 0; i < fn.getNumParams(); ++i) {
    const clang::ParmVarDecl* param = fn.getParamDecl(i);
    out += (i == 0 ? "" : ", ") + print_type(param->getType(), policy, param->getNameAsString());
  }
  if (fn.isVariadic()) out += fn.getNumParams() == 0 ? "..." : ", ...";
  return out + ")";
}

std::string parameter_label(const clang::FunctionDecl& fn, unsigned i) {
  const std::string name = fn.getParamDecl(i)->getNameAsString();
  return "parameter " + std::to_string(i + 1) + (name.empty() ? "" : " '" + name + "'");
}

// Parameter types as the function's type sees them: decayed, without top-level const.
bool same_parameter_type(const clang::ASTContext& ctx, clang::QualType a, clang::QualType b) {
  return ctx.getCanonicalParamType(a) == ctx.getCanonicalParamType(b);
}

// Why `found`'s type is not `expected`'s; "" when they are the same. Parameter names and typedef
// spellings never matter; neither does top-level const of a by-value parameter, which
// FunctionProtoType keeps as written but the canonical parameter type drops.
std::string type_difference(const clang::FunctionDecl& expected, const clang::FunctionDecl& found) {
  const clang::ASTContext& ctx = found.getASTContext();
  const auto* want = expected.getType()->getAs<clang::FunctionProtoType>();
  const auto* have = found.getType()->getAs<clang::FunctionProtoType>();
  if (want == nullptr || have == nullptr)
    return ctx.hasSameType(expected.getType(), found.getType()) ? "" : "its type differs";
  if (!ctx.hasSameType(want->getReturnType(), have->getReturnType()))
    return "it returns " + quoted_type(found.getReturnType(), ctx) + ", expected " +
           quoted_type(expected.getReturnType(), ctx);
  if (want->getNumParams() != have->getNumParams())
    return "it takes " + std::to_string(have->getNumParams()) + " parameter(s), expected " +
           std::to_string(want->getNumParams());
  for (unsigned i = 0; i < want->getNumParams(); ++i) {
    if (!same_parameter_type(ctx, want->getParamType(i), have->getParamType(i)))
      return parameter_label(found, i) + " has type " +
             quoted_type(found.getParamDecl(i)->getType(), ctx) + ", expected " +
             quoted_type(expected.getParamDecl(i)->getType(), ctx);
  }
  if (want->isVariadic() != have->isVariadic())
    return have->isVariadic() ? "it is variadic, expected not" : "it is not variadic, expected so";
  return "";
}

// ---- Frontend ------------------------------------------------------------------------------

class HookConsumer : public clang::ASTConsumer {
 public:
  explicit HookConsumer(CheckSession& session) : session_(session) {}

  bool shouldSkipFunctionBody(clang::Decl* decl) override {
    return !decl->getASTContext().getSourceManager().isInMainFile(decl->getLocation());
  }

  void HandleTranslationUnit(clang::ASTContext& ctx) override {
    TuReport* report = session_.current();
    if (report == nullptr) return;
    report->parsed = true;
    for (std::size_t i = 0; i < session_.hooks().size(); ++i) record_hook(ctx, i, *report);
  }

 private:
  // The injected declaration of hook `index`, or nullptr when it did not come out usable.
  const clang::FunctionDecl* expected_declaration(clang::ASTContext& ctx, std::size_t index,
                                                  const TuReport& report) const {
    if (report.injection_errors.count(index) != 0) return nullptr;
    const std::string& name = session_.hooks()[index].qualified_name;
    std::vector<std::string> path = split_qualified(namespace_of(name));
    path.push_back(CheckSession::marker_namespace(index));
    path.push_back(unqualified_name(name));
    const std::vector<const clang::FunctionDecl*> found = functions_named(ctx, path);
    return found.size() == 1 && !found[0]->isInvalidDecl() ? found[0] : nullptr;
  }

  void record_hook(clang::ASTContext& ctx, std::size_t index, TuReport& report) const {
    const auto definitions = definitions_of(
        functions_named(ctx, split_qualified(session_.hooks()[index].qualified_name)));
    if (definitions.empty()) return;
    const clang::FunctionDecl* expected = expected_declaration(ctx, index, report);
    for (const clang::FunctionDecl* definition : definitions) {
      const FilePos pos = file_pos(ctx.getSourceManager(), definition->getLocation());
      if (session_.is_generated(pos.file)) continue;
      SeenDefinition seen;
      seen.hook = index;
      seen.found.signature = signature_of(*definition);
      seen.found.loc = session_.display_loc(pos.file, pos.line, pos.col);
      seen.compared = expected != nullptr;
      if (seen.compared) seen.found.difference = type_difference(*expected, *definition);
      seen.matches = seen.compared && seen.found.difference.empty();
      report.definitions.push_back(std::move(seen));
    }
  }

  CheckSession& session_;
};

class HookAction : public clang::ASTFrontendAction {
 public:
  explicit HookAction(CheckSession& session) : session_(session) {}

 protected:
  // Runs before the preprocessor exists: the last moment to remap files and set parse options.
  bool BeginInvocation(clang::CompilerInstance& ci) override {
    ci.getFrontendOpts().SkipFunctionBodies = true;  // narrowed by shouldSkipFunctionBody()
    ci.getDiagnosticOpts().ShowCarets = false;       // no "N errors generated." on stderr
    const auto& inputs = ci.getFrontendOpts().Inputs;
    if (inputs.size() != 1 || !inputs[0].isFile()) return true;
    const std::string main_file = inputs[0].getFile().str();
    auto original = ci.getFileManager().getBufferForFile(main_file);
    if (!original) return true;  // Clang itself reports the unreadable file
    const std::string header = CheckSession::injected_header_path();
    // Appended, so everything the source declares is visible to the expected declarations.
    const std::string text = (*original)->getBuffer().str() + "\n#include \"" + header + "\"\n";
    auto& options = ci.getPreprocessorOpts();
    options.addRemappedFile(main_file,
                            llvm::MemoryBuffer::getMemBufferCopy(text, main_file).release());
    options.addRemappedFile(
        header, llvm::MemoryBuffer::getMemBufferCopy(session_.injected_header(), header).release());
    return true;
  }

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance&,
                                                        llvm::StringRef) override {
    return std::make_unique<HookConsumer>(session_);
  }

 private:
  CheckSession& session_;
};

class HookActionFactory : public clang::tooling::FrontendActionFactory {
 public:
  explicit HookActionFactory(CheckSession& session) : session_(session) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<HookAction>(session_);
  }

 private:
  CheckSession& session_;
};

// Keeps errors (warnings are off anyway) and prints nothing: check_hooks() reports them.
class ErrorCollector : public clang::DiagnosticConsumer {
 public:
  explicit ErrorCollector(CheckSession& session) : session_(session) {}

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error) return;
    llvm::SmallString<256> text;
    info.FormatDiagnostic(text);
    const FilePos pos =
        info.hasSourceManager() ? file_pos(info.getSourceManager(), info.getLocation()) : FilePos{};
    session_.record_error(pos.file, pos.line, pos.col, text.str().str());
  }

 private:
  CheckSession& session_;
};

}  // namespace

std::unique_ptr<clang::tooling::FrontendActionFactory> make_hook_action_factory(
    CheckSession& session) {
  return std::make_unique<HookActionFactory>(session);
}

std::unique_ptr<clang::DiagnosticConsumer> make_error_collector(CheckSession& session) {
  return std::make_unique<ErrorCollector>(session);
}

}  // namespace lazygen::gen::hook_check
