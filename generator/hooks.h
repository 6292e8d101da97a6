// The driver's half of the hook check: which hand-written functions ops.yaml asks for (from the
// api layer's signatures), running the LibTooling checker over the hand-written sources, and
// emitting stubs for missing hooks so the tree still builds ("not implemented: <op>").
#pragma once

#include <string>
#include <vector>

#include "model/op_entry.h"

namespace lazygen::gen {

struct HookOptions {
  std::vector<std::string> sources;  // files or directories (searched for .cpp)
  std::string compile_commands_dir;
  std::string stubs_file;            // "" = no stubs
  std::vector<std::string> include_dirs;  // -I for sources absent from the compile database
};

// Checks every custom hook; prints each problem to stderr. Returns the number of problems.
// Writes `stubs_file` (definitions of the missing hooks that throw) when asked.
int check_and_stub_hooks(const std::vector<OpEntry>& ops, const HookOptions& options);

}  // namespace lazygen::gen
