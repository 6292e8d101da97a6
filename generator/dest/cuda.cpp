// Emits the CUDA side of `pointwise:` ops: NVRTC device-function sources
// (cuda_device_functions.inc) and eager CUDA kernel launchers (cuda_kernels.h / src/cuda_kernels.cu).
// The functor text is rendered from the same template as pointwise_ops.h, so CPU and CUDA compute
// one expression.
#include "api/names.h"
#include "dest/common.h"
#include "dest/emit.h"

namespace lazygen::gen::dest {

std::vector<GeneratedFile> emit_cuda(const EmitContext& ctx) {
  std::vector<std::string> entries, decls, defs;
  for (const OpEntry& op : ctx.ops) {
    if (!op.pointwise) continue;
    std::string id = api::op_id(op.schema.name);
    std::string functor = api::functor_name(op.schema.name);
    entries.push_back(ctx.templates.render("cuda_device_function.inc.tmpl", {
        {"schema", op.func}, {"op_id", id}, {"functor", functor}, {"functor_source", pointwise_functor(ctx, op)}}));
    decls.push_back("// " + op.func + "\nvoid launch_" + id + "(const PointwiseArgs& args, cudaStream_t stream);");
    defs.push_back(ctx.templates.render("cuda_kernel.cu.tmpl", {{"schema", op.func}, {"op_id", id}, {"functor", functor}}));
  }
  return {
      {std::string(kIncludeDir) + "cuda_device_functions.inc",
       ctx.templates.render("cuda_device_functions.inc.tmpl", {{"source", ctx.source}, {"entries", entries}})},
      {std::string(kIncludeDir) + "cuda_kernels.h",
       ctx.templates.render("cuda_kernels.h.tmpl", {{"source", ctx.source}, {"declarations", decls}})},
      {"src/cuda_kernels.cu", ctx.templates.render("cuda_kernels.cu.tmpl", {{"source", ctx.source}, {"definitions", defs}})},
  };
}

}  // namespace lazygen::gen::dest
