// lazygen: reads an ops file and writes generated/ (or checks it). Wires the layers together:
// model (load + validate) -> api (names, types) -> dest (emitters) -> writer (files).
//
//   lazygen ops.yaml                     write generated/ beside ops.yaml
//   lazygen --check ops.yaml             exit 1 with a diff when generated/ is stale
//   lazygen --dump-schema FILE           print every schema in canonical form
//   lazygen --native FILE --ops a,b -o D IR and glue for a selection of PyTorch's own file
//   lazygen --kernels app.manifest -o D  AOT kernels for the fusion groups of a manifest
//     [--cuda]                           and CUDA ones (aot_kernels.cu) for its CUDA keys
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "cli.h"
#ifdef LAZYGEN_HAVE_HOOK_CHECKER
#include "hooks.h"
#endif
#include "dest/emit.h"
#include "model/op_entry.h"
#include "model/validate.h"
#include "writer/file_writer.h"

namespace fs = std::filesystem;
using namespace lazygen::gen;

namespace {

int dump_schemas(const Options& opt) {
  OpsFile file = load_ops_file(opt.input, OpsDialect::Native);
  for (const OpEntry& op : file.ops) std::cout << print_schema(op.schema) << "\n";
  for (const OpEntry& op : file.torch_adapters) std::cout << print_schema(op.schema) << "\n";
  return 0;
}

WriterOptions writer_options(const Options& opt) {
  WriterOptions w;
  w.out_dir = opt.out_dir;
  w.source_name = source_names(opt);
  w.clang_format = opt.format ? find_clang_format() : "";
  w.style_file = opt.style_file;
  w.check = opt.check;
  w.cache_dir = default_cache_dir();
  if (opt.format && w.clang_format.empty()) {
    std::cerr << "lazygen: warning: clang-format not found; output is not formatted (apt-get install clang-format)\n";
  }
  return w;
}

// Loads every input and validates the merged list (duplicates across files are errors too).
OpsFile load_inputs(const Options& opt, OpsDialect dialect) {
  OpsFile merged{opt.input, {}, {}};
  for (const std::string& path : opt.inputs) {
    OpsFile one = load_ops_file(path, dialect, opt.inputs.size() == 1 ? opt.select : std::vector<std::string>{});
    for (auto& op : one.ops) merged.ops.push_back(std::move(op));
    for (auto& op : one.torch_adapters) merged.torch_adapters.push_back(std::move(op));
  }
  if (opt.inputs.size() > 1) {
    if (!opt.select.empty()) merged.ops = select_ops(merged, opt.select);
    validate_ops(merged, dialect);
  }
  check_op_names(merged);
  return merged;
}

// Verifies custom hooks when --hooks is given; returns the number of problems.
int run_hook_check(const OpsFile& file, const Options& opt) {
  if (opt.hook_sources.empty() && opt.torch_hook_sources.empty()) return 0;
#ifdef LAZYGEN_HAVE_HOOK_CHECKER
  HookOptions options{opt.hook_sources, opt.compile_commands_dir, opt.stubs_file, opt.hook_includes,
                      opt.torch_hook_sources};
  return check_and_stub_hooks(file, options);
#else
  throw GenError({}, "--hooks needs the LibTooling hook checker, which this lazygen was built without",
                 "rebuild with -DLAZYGEN_HOOK_CHECKER=ON (apt-get install libclang-cpp14-dev libclang-14-dev)");
#endif
}

int generate(const Options& opt) {
  auto start = std::chrono::steady_clock::now();
  OpsDialect dialect = opt.native ? OpsDialect::Native : OpsDialect::Lazygen;
  OpsFile file = load_inputs(opt, dialect);
  TemplateDir templates(opt.template_dir);
  dest::EmitContext ctx{file.ops, templates, source_names(opt), &file.torch_adapters};
  std::vector<dest::GeneratedFile> files = dest::emit_all(ctx, opt.ir_only);
  int hook_problems = run_hook_check(file, opt);
  FileWriter writer(writer_options(opt));
  for (const auto& f : files) writer.emit(f.path, f.content);
  std::string report;
  bool in_sync = writer.finish(report);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (hook_problems > 0) {
    std::cerr << "lazygen: " << hook_problems << " hand-written hook(s) missing or mismatched\n";
    return 2;
  }
  if (opt.check && !in_sync) {
    std::cerr << report << "lazygen: " << opt.out_dir << " is stale; run `lazygen " << opt.input << "` to regenerate\n";
    return 1;
  }
  std::cerr << "lazygen: " << file.ops.size() << " ops, " << files.size() << " files ("
            << (opt.check ? "all in sync" : std::to_string(writer.written()) + " written, " +
                                               std::to_string(writer.unchanged()) + " unchanged")
            << ") in " << static_cast<int>(ms) << " ms\n";
  return 0;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw GenError(SourceLoc{path}, "cannot read the manifest", "check the path");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct ManifestKeys {
  std::vector<KernelKey> cpu;   // every key's cpu part
  std::vector<KernelKey> cuda;  // the CUDA keys (See Note [CUDA group keys])
};

// The keys of every manifest, each once, sorted by their canonical text (See Note [Canonical
// manifests] in runtime/fusion/kernel_key.h): merging is deterministic.
ManifestKeys load_manifests(const std::vector<std::string>& paths) {
  std::map<std::string, KernelKey> cpu, cuda;
  for (const std::string& path : paths) {
    for (KernelKey& key : parse_manifest(read_text(path), path)) {
      if (key.cuda_rank > 0) cuda.emplace(print_key(key), key);
      KernelKey base = cpu_key(std::move(key));
      cpu.emplace(print_key(base), std::move(base));
    }
  }
  ManifestKeys keys;
  for (auto& [text, key] : cpu) keys.cpu.push_back(std::move(key));
  for (auto& [text, key] : cuda) keys.cuda.push_back(std::move(key));
  return keys;
}

int generate_kernels(const Options& opt) {
  OpsFile file = load_inputs(opt, OpsDialect::Lazygen);
  const ManifestKeys keys = load_manifests(opt.manifests);
  TemplateDir templates(opt.template_dir);
  std::vector<std::string> names;  // sorted: the output does not depend on the order given
  for (const std::string& m : opt.manifests) names.push_back(fs::path(m).filename().string());
  std::sort(names.begin(), names.end());
  std::string manifests;
  for (const std::string& n : names) manifests += (manifests.empty() ? "" : ", ") + n;
  dest::EmitContext ctx{file.ops, templates, manifests};
  std::vector<dest::GeneratedFile> files = dest::emit_aot_kernels(ctx, keys.cpu, source_names(opt));
  if (opt.cuda) {
    for (dest::GeneratedFile& f : dest::emit_aot_cuda_kernels(ctx, keys.cuda, source_names(opt))) files.push_back(std::move(f));
  }
  WriterOptions w = writer_options(opt);
  w.source_name = manifests;
  FileWriter writer(w);
  for (const auto& f : files) writer.emit(f.path, f.content);
  std::string report;
  const bool in_sync = writer.finish(report);
  if (opt.check && !in_sync) {
    std::cerr << report << "lazygen: " << opt.out_dir << " is stale\n";
    return 1;
  }
  std::cerr << "lazygen: " << keys.cpu.size() << " AOT kernel(s)";
  if (opt.cuda) std::cerr << ", " << keys.cuda.size() << " CUDA AOT kernel(s)";
  std::cerr << " in " << opt.out_dir << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options opt = parse_options(argc, argv);
    if (opt.help) return print_usage(std::cout), 0;
    if (opt.functions) return print_functions(std::cout), 0;
    if (opt.dump_schema) return dump_schemas(opt);
    if (!opt.manifests.empty()) return generate_kernels(opt);
    return generate(opt);
  } catch (const GenError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "lazygen: error: " << e.what() << "\n";
    return 2;
  }
}
