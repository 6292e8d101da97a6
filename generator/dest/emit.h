// The emitters: one per kind of generated output. Each turns the validated ops into template
// values and renders templates/ files; none touches the disk (the FileWriter does).
#pragma once

#include <string>
#include <vector>

#include "model/manifest.h"
#include "model/op_entry.h"
#include "writer/template.h"

namespace lazygen::gen::dest {

struct GeneratedFile {
  std::string path;  // relative to the output directory
  std::string content;
};

struct EmitContext {
  const std::vector<OpEntry>& ops;
  TemplateDir& templates;
  std::string source;  // what generated comments name, e.g. "ops.yaml"
  // The adapter-only entries of the ops files (OpsFile::torch_adapters); null: none.
  const std::vector<OpEntry>* torch_adapters = nullptr;
};

std::vector<GeneratedFile> emit_op_list(const EmitContext& ctx);
std::vector<GeneratedFile> emit_op_api(const EmitContext& ctx);
std::vector<GeneratedFile> emit_shapes(const EmitContext& ctx);
std::vector<GeneratedFile> emit_pointwise(const EmitContext& ctx);
std::vector<GeneratedFile> emit_ir_nodes(const EmitContext& ctx);
std::vector<GeneratedFile> emit_lazy_ops(const EmitContext& ctx);
std::vector<GeneratedFile> emit_lowering(const EmitContext& ctx);
std::vector<GeneratedFile> emit_backward(const EmitContext& ctx);
std::vector<GeneratedFile> emit_tile_kernels(const EmitContext& ctx);
// Whether a `pointwise:` expression runs in register chains (See Note [Lane semantics] in the
// runtime's backend/cpu/fusion/lanes.h): only operators + - * / and comparisons, parentheses,
// commas, names, integer literals and calls to max, min, where and abs.
bool chainable_expression(std::string_view expr);
std::vector<GeneratedFile> emit_cuda(const EmitContext& ctx);
// src/torch_kernels.cpp: the PyTorch device's kernels and their registration (runtime/pytorch/),
// and include/lazygen/generated/torch_adapters.h: the hand-written adapters' declarations.
std::vector<GeneratedFile> emit_torch_kernels(const EmitContext& ctx);
// src/op_info_<shard>.cpp: every op's OpInfo record and boxed caller (lazygen/op_info.h), by
// shard; src/op_info.cpp: the table, in ops.yaml's order.
std::vector<GeneratedFile> emit_op_info(const EmitContext& ctx);
// Units that instantiate something per op are spread over this many shards by a stable hash of
// the op id (See Note [Op shards]).
inline constexpr int kOpShards = 32;
int op_shard(const OpEntry& op);
// Every op of `ops` by shard, in their order in `ops`.
std::vector<std::vector<const OpEntry*>> op_shards(const std::vector<OpEntry>& ops);
// The `pointwise:` ops of `ops` by shard, in their order in `ops`.
std::vector<std::vector<const OpEntry*>> pointwise_shards(const std::vector<OpEntry>& ops);
// "lazygen/generated/pointwise/<op id>.h": the header holding a `pointwise:` op's functor.
std::string pointwise_header(const OpEntry& op);
// `#include` lines for the functor headers of `ops`, sorted, without repeats.
std::vector<std::string> pointwise_includes(const std::vector<const OpEntry*>& ops);
// The template values of an eager pointwise kernel (cpu_ and cuda_pointwise_kernel.cpp.tmpl):
// signature, shape call, out declaration (`allocate(sizes, dtype, device)`), inputs, compute-dtype call.
TemplateEnv pointwise_kernel_env(const OpEntry& op, const std::string& allocate, const std::string& device);
// The scalar functor of a `pointwise:` op (struct kernels::<Functor>), as pointwise_ops.h holds it.
std::string pointwise_functor(const EmitContext& ctx, const OpEntry& op);
// The CUDA source of a `pointwise:` op's device functor, as cuda_device_functions.inc holds it and
// the NVRTC JIT prepends it (namespace lazygen::kernels { struct <Functor> ... }).
std::string device_function_source(const EmitContext& ctx, const OpEntry& op);
// The op a manifest key's op names. Throws GenError at the key's op when it is not a `pointwise:`
// op of ctx.ops or takes other operands.
const OpEntry& key_op(const EmitContext& ctx, const KeyOp& k);
// The op API's autograd hook for an op with derivatives: "if (autograd::needs_grad(...)) ...".
std::string record_statement(const OpEntry& op);
// sources.cmake listing every generated .cpp among `files`.
GeneratedFile emit_sources(const EmitContext& ctx, const std::vector<GeneratedFile>& files);

// What AOT kernels tell a `pointwise:` op's version apart by: a hash of its schema, expression
// and dtype rule and of the manifest version (PointwiseInfo::fingerprint holds the runtime's).
std::string op_fingerprint(const OpEntry& op);
// The fingerprint an AOT kernel for `key` carries: its ops' op_fingerprint, in key order, joined by
// ','. The runtime uses the kernel only if its own ops give the same (ops_fingerprint in the
// runtime's backend/cpu/fusion/aot_kernel.h), so editing one op stales only the kernels running it.
std::string kernel_fingerprint(const EmitContext& ctx, const KernelKey& key);
// `lazygen --kernels`: aot_kernels.cpp with one kernel per key (cpu keys, unique, in the order
// given) and its registry entries. Throws GenError at a key's op that `ctx.ops` cannot compute.
std::vector<GeneratedFile> emit_aot_kernels(const EmitContext& ctx, const std::vector<KernelKey>& keys,
                                            const std::string& ops_source);
// `lazygen --kernels --cuda`: aot_kernels.cu with one CUDA kernel per CUDA key (unique, in the
// order given) and its registry entries (See Note [CUDA AOT kernels] in
// runtime/backend/cuda/aot/cuda_aot_kernel.h). Throws as emit_aot_kernels.
std::vector<GeneratedFile> emit_aot_cuda_kernels(const EmitContext& ctx, const std::vector<KernelKey>& keys,
                                                 const std::string& ops_source);

// Everything above, in a fixed order. `ir_only` (used for PyTorch's full file) emits only the op
// list and the IR node classes.
std::vector<GeneratedFile> emit_all(const EmitContext& ctx, bool ir_only = false);

}  // namespace lazygen::gen::dest
