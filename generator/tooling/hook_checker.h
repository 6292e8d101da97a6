// Verifies hand-written hooks (`shape: custom`, `kernel: custom`, ...) against the exact C++
// declaration the generated code calls, using Clang's AST rather than grepping header text.
//
// Contract: check_hooks() parses every hand-written source once (one ClangTool run, with its
// command from compile_commands.json or else the fallback arguments) and returns one finding per
// hook, in the order given. A hook is satisfied by a *definition* (a function body) of its
// qualified name outside any `generated/` directory whose type -- return type and parameter types,
// ignoring parameter names, typedef spelling and top-level const of by-value parameters -- equals
// the type the expected declaration has when written in the hook's namespace. Setup problems (no
// resource dir, unreadable compile_commands.json, missing source) and sources that do not compile
// throw GenError naming the file; they never crash the generator.
#pragma once

#include <string>
#include <vector>

#include "model/diagnostic.h"

namespace lazygen::gen {

// One hand-written function the generated code calls.
struct HookSpec {
  std::string qualified_name;  // "lazygen::shape::compute_shape_mm": the function looked for
  // The exact declaration to paste, unqualified, in the hook's namespace:
  //   "std::vector<Shape> compute_shape_mm(const Shape& self, const Shape& mat2);"
  std::string declaration;
  std::string op;    // op name for messages: "mm"
  std::string kind;  // "shape function", "CPU kernel": for messages
  SourceLoc origin;  // ops.yaml location of the `custom` key that asks for the hook
};

// What to parse and how.
struct HookCheckInput {
  std::string compile_commands_dir;        // dir holding compile_commands.json ("" = none)
  std::vector<std::string> sources;        // hand-written sources to parse (.cpp)
  std::vector<std::string> fallback_args;  // args for sources absent from the database
  std::string root_dir;                    // paths under it print relative ("" = cwd)
};

// A definition of the hook's name seen in a hand-written source.
struct FoundDefinition {
  std::string
      signature;  // as Clang prints it: "std::vector<Shape> f(const Shape &self, int64_t x)"
  SourceLoc loc;  // file:line:col of the function name
  std::string difference;  // why its type is not the expected one ("" when it matches)
};

struct HookFinding {
  enum class Status { Ok, Missing, Mismatch };

  Status status = Status::Missing;
  HookSpec spec;
  std::vector<FoundDefinition> found;  // every same-named definition, deduplicated
  // Set when the expected declaration itself did not compile next to a definition (a type it
  // names is not visible there), so the types could not be compared.
  std::string problem;

  // The full, printable diagnostic (error for Missing/Mismatch, a note for Ok).
  std::string message() const;
};

// Checks every hook against the definitions in input.sources. Throws GenError when the sources
// cannot be parsed (see the contract above).
std::vector<HookFinding> check_hooks(const std::vector<HookSpec>& hooks,
                                     const HookCheckInput& input);

}  // namespace lazygen::gen
