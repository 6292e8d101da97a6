// See cli.h.
#include "cli.h"

#include <filesystem>
#include <ostream>
#include <sstream>

#include "api/names.h"
#include "model/pointwise_functions.h"

namespace fs = std::filesystem;

namespace lazygen::gen {
namespace {

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

void fill_defaults(Options& opt) {
  fs::path dir = fs::path(opt.input).parent_path();
  if (opt.out_dir.empty()) opt.out_dir = (dir / "generated").string();
  if (opt.template_dir.empty()) opt.template_dir = LAZYGEN_TEMPLATE_DIR;
  if (opt.style_file.empty() && fs::exists(dir / ".clang-format")) opt.style_file = (dir / ".clang-format").string();
  if (opt.style_file.empty()) opt.style_file = LAZYGEN_STYLE_FILE;
}

}  // namespace

void print_usage(std::ostream& os) {
  os << "usage: lazygen [options] OPS_YAML...   (several files are merged in order)\n"
        "  -o, --out DIR        where generated files go (default: generated/ beside OPS_YAML)\n"
        "  --check              write nothing; exit 1 with a diff if the output is stale\n"
        "  --dump-schema        print every entry's schema in canonical form, one per line\n"
        "  --functions          list the functions `pointwise:` expressions may call\n"
        "  --native             OPS_YAML is PyTorch's native_functions.yaml (its keys are ignored)\n"
        "  --ops A,B,...        generate only these ops (schema names, e.g. add.Tensor,mm)\n"
        "  --ir-only            emit only the op list and the IR node classes\n"
        "  --templates DIR      templates to use (default: the ones lazygen was built with)\n"
        "  --style FILE         .clang-format for the output (default: beside OPS_YAML)\n"
        "  --no-format          do not run clang-format on the output\n"
        "  --hooks P,...        verify custom hooks (shape: custom|view, kernel: custom) in these\n"
        "                       hand-written sources or directories, with Clang LibTooling\n"
        "  --torch-hooks P,...  verify the PyTorch device's adapters (torch: adapter) in these\n"
        "                       sources or directories (they need PyTorch's headers)\n"
        "  --compile-commands D the build directory holding compile_commands.json\n"
        "  --stubs FILE         write throwing definitions of missing hooks to FILE\n"
        "  --hook-includes D,.. include dirs for hook sources absent from compile_commands.json\n"
        "  --kernels M,...      write DIR/aot_kernels.cpp (-o DIR) with an AOT kernel for each\n"
        "                       fusion group of these manifests (LAZYGEN_RECORD writes them);\n"
        "                       OPS_YAML defaults to the ops.yaml lazygen was built with\n"
        "  --cuda               with --kernels: also write DIR/aot_kernels.cu, a CUDA kernel for\n"
        "                       each CUDA key (cuda=...) of the manifests\n";
}

void print_functions(std::ostream& os) {
  os << "Functions a `pointwise:` expression may call (runtime/include/lazygen/kernels/pointwise_math.h):\n";
  for (const PointwiseFunction& f : pointwise_function_table()) {
    std::string call = std::string(f.name) + "(";
    for (int i = 0; i < f.arity; ++i) call += std::string(i ? ", " : "") + static_cast<char>('a' + i);
    call += ")";
    os << "  " << call << std::string(call.size() < 28 ? 28 - call.size() : 1, ' ')
       << (f.domain == PointwiseFunction::Domain::Integral ? "bool and integral dtypes only" : "any dtype")
       << (f.expensive ? ", expensive (fusion stores its value)" : "")
       << (f.integral_operand == PointwiseFunction::IntegralOperand::Nonzero
               ? "; integral: b must not be 0 (ZeroDivisionError)"
           : f.integral_operand == PointwiseFunction::IntegralOperand::NonnegativeScalar
               ? "; integral: a Scalar b must not be negative"
               : "")
       << "\n";
  }
}

Options parse_options(int argc, char** argv) {
  Options opt;
  auto value = [&](int& i, const std::string& flag) -> std::string {
    if (i + 1 >= argc) throw GenError({}, flag + " needs a value", "see lazygen --help");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") opt.help = true;
    else if (a == "-o" || a == "--out") opt.out_dir = value(i, a);
    else if (a == "--check") opt.check = true;
    else if (a == "--dump-schema") opt.dump_schema = true;
    else if (a == "--functions") opt.functions = true;
    else if (a == "--native") opt.native = true;
    else if (a == "--ops") opt.select = split_commas(value(i, a));
    else if (a == "--ir-only") opt.ir_only = true;
    else if (a == "--templates") opt.template_dir = value(i, a);
    else if (a == "--style") opt.style_file = value(i, a);
    else if (a == "--no-format") opt.format = false;
    else if (a == "--hooks") opt.hook_sources = split_commas(value(i, a));
    else if (a == "--torch-hooks") opt.torch_hook_sources = split_commas(value(i, a));
    else if (a == "--compile-commands") opt.compile_commands_dir = value(i, a);
    else if (a == "--stubs") opt.stubs_file = value(i, a);
    else if (a == "--hook-includes") opt.hook_includes = split_commas(value(i, a));
    else if (a == "--kernels") opt.manifests = split_commas(value(i, a));
    else if (a == "--cuda") opt.cuda = true;
    else if (!a.empty() && a[0] == '-') throw GenError({}, "unknown option '" + a + "'", "see lazygen --help");
    else if (a.empty()) throw GenError({}, "an empty ops file path was given (argument " + std::to_string(i) + ")", "pass the path of an ops.yaml, e.g. lazygen ops.yaml; check that a shell or CMake variable is set");
    else opt.inputs.push_back(a);
  }
  if (opt.help || opt.functions) return opt;
  if (!opt.manifests.empty() && opt.out_dir.empty()) throw GenError({}, "--kernels needs -o DIR", "usage: lazygen --kernels MANIFEST -o DIR [OPS_YAML]");
  if (opt.cuda && opt.manifests.empty()) throw GenError({}, "--cuda needs --kernels", "usage: lazygen --kernels MANIFEST --cuda -o DIR");
  if (!opt.manifests.empty() && opt.inputs.empty()) opt.inputs.push_back(LAZYGEN_OPS_YAML);
  if (opt.inputs.empty()) throw GenError({}, "no ops file given", "usage: lazygen [options] OPS_YAML...");
  opt.input = opt.inputs.front();
  fill_defaults(opt);
  return opt;
}

std::string source_names(const Options& opt) {
  std::vector<std::string> names;
  for (const auto& in : opt.inputs) names.push_back(fs::path(in).filename().string());
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

void check_op_names(const OpsFile& file) { api::check_unique_ids(file.ops); }

}  // namespace lazygen::gen
