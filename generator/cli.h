// Command-line options of the lazygen driver.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "model/op_entry.h"

namespace lazygen::gen {

struct Options {
  std::string input;                // the first ops file: output and style default beside it
  std::vector<std::string> inputs;  // every ops file, merged in order (e.g. lazygen's + yours)
  std::string out_dir;       // default: <dir of input>/generated
  std::string template_dir;  // default: the templates/ lazygen was built with
  std::string style_file;    // default: <dir of input>/.clang-format if present
  std::vector<std::string> select;
  bool check = false;
  bool dump_schema = false;
  bool native = false;
  bool ir_only = false;
  bool format = true;
  bool help = false;
  bool functions = false;                  // --functions: list what pointwise expressions may call
  std::vector<std::string> manifests;      // --kernels: emit AOT kernels for these manifests
  bool cuda = false;                       // --cuda: and CUDA AOT kernels (aot_kernels.cu)
  std::vector<std::string> hook_sources;   // --hooks: hand-written sources to verify
  std::vector<std::string> torch_hook_sources;  // --torch-hooks: sources of the PyTorch adapters
  std::string compile_commands_dir;        // --compile-commands
  std::string stubs_file;                  // --stubs
  std::vector<std::string> hook_includes;  // --hook-includes: -I dirs for sources not in the database
};

// "ops.yaml" or "ops.yaml, my_ops.yaml": what generated banners name.
std::string source_names(const Options& opt);

// Throws GenError (with the usage hint) on unknown flags or missing values. With --kernels the
// ops file defaults to the ops.yaml lazygen was built with, and -o is required.
Options parse_options(int argc, char** argv);
void print_usage(std::ostream& os);
// The functions `pointwise:` expressions may call (See Note [Pointwise functions]), one a line.
void print_functions(std::ostream& os);
// Throws GenError when two ops derive the same C++ names.
void check_op_names(const OpsFile& file);

}  // namespace lazygen::gen
