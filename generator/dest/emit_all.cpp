// emit_all and sources.cmake: the fixed order in which every generated file is produced.
#include <map>
#include <string>

#include "dest/common.h"
#include "dest/emit.h"

namespace lazygen::gen::dest {

namespace {

// Generated C++ sources by family (a file's name up to its shard number), each with the
// sources.cmake.tmpl variable listing the runtime library it compiles into (Note [Runtime layers]
// in runtime/CMakeLists.txt). The others compile elsewhere: src/cuda_* in lazygen_cuda
// (runtime/backend/cuda/CMakeLists.txt), src/torch_* in the PyTorch device
// (runtime/pytorch/CMakeLists.txt).
const std::map<std::string, std::string>& layer_families() {
  static const std::map<std::string, std::string> kFamilies = {
      {"src/shape_inference", "shape_sources"},
      {"src/cpu_kernels", "kernel_sources"},
      {"src/lowering", "exec_sources"},
      {"src/pointwise_facts", "fusion_sources"},
      {"src/tile_kernels", "cpu_sources"},
      {"src/chain_dispatch", "cpu_sources"},
      {"src/ops", "ops_sources"},
      {"src/lazy_ops", "ops_sources"},
      {"src/op_info", "ops_sources"},
      {"src/backward", "ops_sources"},
  };
  return kFamilies;
}

// The variable of layer_families() listing `path`, or "" for a source compiled elsewhere.
std::string layer_sources_of(const std::string& path) {
  if (!path.ends_with(".cpp")) return "";
  std::string family = path.substr(0, path.size() - 4);
  const size_t last = family.find_last_not_of("0123456789");
  if (last + 1 < family.size() && family[last] == '_') family.resize(last);  // shard "_<k>"
  const auto it = layer_families().find(family);
  return it == layer_families().end() ? "" : it->second;
}

}  // namespace

GeneratedFile emit_sources(const EmitContext& ctx, const std::vector<GeneratedFile>& files) {
  std::map<std::string, std::vector<std::string>> sources;  // every variable, even if empty
  for (const auto& [family, var] : layer_families()) sources[var];
  for (const GeneratedFile& f : files) {
    const std::string var = layer_sources_of(f.path);
    if (!var.empty()) sources[var].push_back("${CMAKE_CURRENT_LIST_DIR}/" + f.path);
  }
  TemplateEnv env = {{"source", ctx.source}};
  for (auto& [var, list] : sources) env[var] = std::move(list);
  return {"sources.cmake", ctx.templates.render("sources.cmake.tmpl", env)};
}

std::vector<GeneratedFile> emit_all(const EmitContext& ctx, bool ir_only) {
  std::vector<GeneratedFile> files;
  auto add = [&](std::vector<GeneratedFile> more) {
    for (auto& f : more) files.push_back(std::move(f));
  };
  add(emit_op_list(ctx));
  add(emit_ir_nodes(ctx));
  if (ir_only) return files;
  add(emit_shapes(ctx));
  add(emit_op_api(ctx));
  add(emit_pointwise(ctx));
  add(emit_lazy_ops(ctx));
  add(emit_lowering(ctx));
  add(emit_backward(ctx));
  add(emit_tile_kernels(ctx));
  add(emit_cuda(ctx));
  add(emit_op_info(ctx));
  add(emit_torch_kernels(ctx));
  files.push_back(emit_sources(ctx, files));
  return files;
}

}  // namespace lazygen::gen::dest
