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
  // Where the PyTorch adapters (`torch: adapter`) are defined; they are checked only when given
  // (they need PyTorch's headers), and get no stubs.
  std::vector<std::string> torch_sources;
};

// Checks every custom hook of `file.ops` against `sources` (when given) and every PyTorch adapter
// against `torch_sources` (when given); prints each problem to stderr. Returns the number of
// problems. Writes `stubs_file` (definitions of the missing op hooks that throw) when asked.
int check_and_stub_hooks(const OpsFile& file, const HookOptions& options);

}  // namespace lazygen::gen
