// Emits the CUDA side of `pointwise:` ops: NVRTC device-function sources
// (cuda_device_functions.inc), eager CUDA kernel launchers (cuda_kernels.h and
// src/cuda_kernels_<shard>.cu, See Note [Op shards] in pointwise.cpp) and their host side
// (src/cuda_ops.cpp: shape, dtype, allocation, launch, registration with the op dispatch). The
// functor text is rendered from the same template as pointwise_ops.h, so CPU and CUDA compute one
// expression. View ops (`shape: view`) register their cpu kernels for CUDA.
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

}  // namespace

std::string device_function_source(const EmitContext& ctx, const OpEntry& op) {
  return ctx.templates.render("cuda_device_source.cu.tmpl", {{"functor_source", pointwise_functor(ctx, op)}});
}

std::vector<GeneratedFile> emit_cuda(const EmitContext& ctx) {
  std::vector<std::string> entries, decls, kernels, registrations;
  for (const OpEntry& op : ctx.ops) {
    // Views only compute sizes and strides over the storage: their cpu kernels serve any device.
    if (op.shape == ShapeRule::View) {
      registrations.push_back("detail::register_device_kernel(DeviceType::CUDA, \"" + op.schema.name.str() +
                              "\", &cpu::" + api::op_id(op.schema.name) + ");");
    }
    if (!op.pointwise) continue;
    std::string id = api::op_id(op.schema.name);
    std::string functor = api::functor_name(op.schema.name);
    entries.push_back(ctx.templates.render("cuda_device_function.inc.tmpl", {
        {"schema", op.func}, {"op_id", id}, {"schema_name", op.schema.name.str()}, {"functor", functor}, {"device_source", device_function_source(ctx, op)}}));
    decls.push_back("// " + op.func + "\nvoid launch_" + id + "(const PointwiseArgs& args, cudaStream_t stream);");
    std::string kernel = host_kernel(ctx, op);
    if (kernel.empty()) continue;
    kernels.push_back(kernel);
    registrations.push_back("detail::register_device_kernel(DeviceType::CUDA, \"" + op.schema.name.str() + "\", &" + id + ");");
  }
  const std::vector<std::vector<const OpEntry*>> shards = pointwise_shards(ctx.ops);
  std::vector<GeneratedFile> files;
  for (size_t k = 0; k < shards.size(); ++k) {
    std::vector<std::string> defs;
    for (const OpEntry* op : shards[k]) {
      defs.push_back(ctx.templates.render("cuda_kernel.cu.tmpl", {{"schema", op->func},
                                                                  {"op_id", api::op_id(op->schema.name)},
                                                                  {"functor", api::functor_name(op->schema.name)}}));
    }
    files.push_back({"src/cuda_kernels_" + std::to_string(k) + ".cu",
                     ctx.templates.render("cuda_kernels.cu.tmpl", {{"source", ctx.source},
                                                                   {"shard", std::to_string(k)},
                                                                   {"num_shards", std::to_string(shards.size())},
                                                                   {"functor_includes", pointwise_includes(shards[k])},
                                                                   {"definitions", defs}})});
  }
  std::vector<GeneratedFile> rest = {
      {std::string(kIncludeDir) + "cuda_device_functions.inc",
       ctx.templates.render("cuda_device_functions.inc.tmpl", {{"source", ctx.source}, {"entries", entries}})},
      {std::string(kIncludeDir) + "cuda_kernels.h",
       ctx.templates.render("cuda_kernels.h.tmpl", {{"source", ctx.source}, {"declarations", decls}})},
      {"src/cuda_ops.cpp", ctx.templates.render("cuda_ops.cpp.tmpl", {{"source", ctx.source},
                                                                      {"kernels", kernels},
                                                                      {"registrations", registrations}})},
  };
  files.insert(files.begin(), rest.begin(), rest.end());
  return files;
}

}  // namespace lazygen::gen::dest
