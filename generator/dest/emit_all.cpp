// emit_all and sources.cmake: the fixed order in which every generated file is produced.
#include "dest/common.h"
#include "dest/emit.h"

namespace lazygen::gen::dest {

GeneratedFile emit_sources(const EmitContext& ctx, const std::vector<GeneratedFile>& files) {
  std::vector<std::string> sources;
  for (const GeneratedFile& f : files) {
    // src/cuda_*: the CUDA side, compiled by lazygen_cuda (runtime/backend/cuda/CMakeLists.txt);
    // src/torch_*: the PyTorch device, compiled by lazygen_torch (runtime/pytorch/CMakeLists.txt).
    const bool elsewhere = f.path.starts_with("src/cuda_") || f.path.starts_with("src/torch_");
    if (f.path.ends_with(".cpp") && !elsewhere) sources.push_back("${CMAKE_CURRENT_LIST_DIR}/" + f.path);
  }
  return {"sources.cmake", ctx.templates.render("sources.cmake.tmpl", {{"source", ctx.source}, {"sources", sources}})};
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
