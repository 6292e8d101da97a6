// Emits the CUDA side of `pointwise:` ops: NVRTC device-function sources
// (cuda_device_functions.inc), eager CUDA kernel launchers (cuda/<op id>.h, all included by
// cuda_kernels.h, defined in src/cuda_kernels_<shard>.cu, See Note [Op shards] in pointwise.cpp)
// and their host side (src/cuda_ops_<shard>.cpp: shape, dtype, allocation, launch, registration
// with the op dispatch; src/cuda_ops.cpp registers every shard's). The functor text is rendered
// from the same template as pointwise_ops.h, so CPU and CUDA compute one expression. View ops
// (`shape: view`) register their cpu kernels for CUDA.
#include "api/names.h"
#include "dest/common.h"
#include "dest/emit.h"

namespace lazygen::gen::dest {
namespace {

// The eager host kernel of `op`, or "" when it has no tensor to take the device from.
std::string host_kernel(const EmitContext& ctx, const OpEntry& op) {
  PointwiseInputs in = pointwise_inputs(op);
  const Argument* written = written_argument(op);
  if (!written && in.tensors.empty()) return "";
  std::string device = api::cpp_name((written ? written : in.tensors.front())->name) + ".device()";
  return ctx.templates.render("cuda_pointwise_kernel.cpp.tmpl", pointwise_kernel_env(op, "empty_device", device));
}

// The statement registering `kernel` as `op`'s CUDA kernel (See Note [Device kernels] in
// runtime/core/dispatch.h).
std::string registration(const OpEntry& op, const std::string& kernel) {
  return "detail::register_device_kernel(DeviceType::CUDA, \"" + op.schema.name.str() + "\", &" +
         kernel + ");";
}

}  // namespace

std::string device_function_source(const EmitContext& ctx, const OpEntry& op) {
  return ctx.templates.render("cuda_device_source.cu.tmpl", {{"functor_source", pointwise_functor(ctx, op)}});
}

std::vector<GeneratedFile> emit_cuda(const EmitContext& ctx) {
  std::vector<std::string> entries, launcher_headers;
  std::vector<GeneratedFile> launcher_files;
  for (const OpEntry& op : ctx.ops) {
    if (!op.pointwise) continue;
    std::string id = api::op_id(op.schema.name);
    std::string functor = api::functor_name(op.schema.name);
    entries.push_back(ctx.templates.render("cuda_device_function.inc.tmpl", {
        {"schema", op.func}, {"op_id", id}, {"schema_name", op.schema.name.str()}, {"functor", functor}, {"device_source", device_function_source(ctx, op)}}));
    launcher_headers.push_back(cuda_kernel_header(op));
    launcher_files.push_back(
        {"include/" + cuda_kernel_header(op),
         ctx.templates.render("cuda_kernel.h.tmpl",
                              {{"schema", op.func}, {"source", ctx.source}, {"op_id", id}})});
  }
  std::vector<GeneratedFile> files;
  const std::vector<std::vector<const OpEntry*>> shards = op_shards(ctx.ops);
  std::vector<std::string> shard_declarations, shard_calls;
  for (size_t k = 0; k < shards.size(); ++k) {
    const std::string shard = std::to_string(k);
    std::vector<const OpEntry*> pointwise;
    std::vector<std::string> defs, kernels, registrations, headers;
    for (const OpEntry* op : shards[k]) {
      const std::string id = api::op_id(op->schema.name);
      // Views only compute sizes and strides over the storage: their cpu kernels serve any device.
      if (op->shape == ShapeRule::View) {
        registrations.push_back(registration(*op, "cpu::" + id));
        headers.push_back(cpu_kernel_header(*op));
      }
      if (!op->pointwise) continue;
      pointwise.push_back(op);
      defs.push_back(ctx.templates.render(
          "cuda_kernel.cu.tmpl",
          {{"schema", op->func}, {"op_id", id}, {"functor", api::functor_name(op->schema.name)}}));
      std::string kernel = host_kernel(ctx, *op);
      if (kernel.empty()) continue;
      kernels.push_back(kernel);
      registrations.push_back(registration(*op, id));
      headers.insert(headers.end(),
                     {cpu_kernel_header(*op), shape_header(*op), cuda_kernel_header(*op)});
    }
    files.push_back({"src/cuda_kernels_" + shard + ".cu",
                     ctx.templates.render("cuda_kernels.cu.tmpl",
                                          {{"source", ctx.source},
                                           {"shard", shard},
                                           {"num_shards", std::to_string(shards.size())},
                                           {"functor_includes", pointwise_includes(pointwise)},
                                           {"definitions", defs}})});
    files.push_back({"src/cuda_ops_" + shard + ".cpp",
                     ctx.templates.render("cuda_ops_shard.cpp.tmpl",
                                          {{"source", ctx.source},
                                           {"shard", shard},
                                           {"includes", include_lines(std::move(headers))},
                                           {"kernels", kernels},
                                           {"registrations", registrations}})});
    shard_declarations.push_back("void register_pointwise_kernels_" + shard + "();");
    shard_calls.push_back("register_pointwise_kernels_" + shard + "();");
  }
  std::vector<GeneratedFile> rest = {
      {std::string(kIncludeDir) + "cuda_device_functions.inc",
       ctx.templates.render("cuda_device_functions.inc.tmpl",
                            {{"source", ctx.source}, {"entries", entries}})},
      {std::string(kIncludeDir) + "cuda_kernels.h",
       ctx.templates.render(
           "cuda_kernels.h.tmpl",
           {{"source", ctx.source}, {"includes", include_lines(launcher_headers)}})},
      {"src/cuda_ops.cpp",
       ctx.templates.render("cuda_ops.cpp.tmpl", {{"source", ctx.source},
                                                  {"shard_declarations", shard_declarations},
                                                  {"shard_calls", shard_calls}})},
  };
  files.insert(files.begin(), rest.begin(), rest.end());
  files.insert(files.end(), launcher_files.begin(), launcher_files.end());
  return files;
}

}  // namespace lazygen::gen::dest
