// Emits aot_kernels.cu for `lazygen --kernels --cuda`: per CUDA key, the kernel the runtime's
// NVRTC JIT compiles for that group, written by the runtime's own text writer (See Note [Shared
// CUDA kernel text] in runtime/backend/cuda_text/group_kernel_text.h), and the registry entries
// (See Note [CUDA AOT kernels] in runtime/backend/cuda/aot/cuda_aot_kernel.h).
//
// One .cu per manifest set, not one per group: nvcc's fixed cost per translation unit (host
// compiler, cicc, ptxas, fatbinary) dwarfs a group kernel's, and the math header and functors are
// compiled once instead of once per group. Each group sits in its own namespace, so entry points
// never collide.
#include <algorithm>

#include "api/names.h"
#include "backend/cuda_text/group_kernel_text.h"
#include "dest/common.h"
#include "dest/emit.h"

namespace lazygen::gen::dest {
namespace {

// What the kernel's code depends on besides the chain (See Note [CUDA group keys]).
cuda::KernelLayout layout_of(const KernelKey& key) {
  cuda::KernelLayout l;
  l.dtype = key.dtype;
  for (size_t k = 0; k < key.loads.size(); ++k) l.inputs.push_back({key.loads[k].dtype, key.cuda_access[k]});
  for (const KeyOutput& o : key.outputs) l.outputs.push_back(o.dtype);
  if (!key.reduce.empty()) l.outputs.push_back(key.dtype);  // the folded reduction's input
  l.dims = static_cast<size_t>(key.cuda_rank);
  for (const KeyOp& op : key.ops) {
    for (const KeyRef& r : op.args) {
      if (r.kind == 's') l.scalars = std::max(l.scalars, static_cast<size_t>(r.index) + 1);
    }
  }
  l.vector_width = cuda::vector_width_of(l);
  return l;
}

// The chain over the key's own value names, which are the JIT's (l<k>, v<k>, s<k>).
cuda::KernelChain chain_of(const EmitContext& ctx, const KernelKey& key) {
  cuda::KernelChain c;
  for (const KeyOp& k : key.ops) {
    const OpEntry& op = key_op(ctx, k);
    cuda::KernelChain::Op out{api::functor_name(op.schema.name), {}};
    for (const KeyRef& r : k.args) out.args.push_back(r.str());
    c.ops.push_back(std::move(out));
    const std::string source = device_function_source(ctx, op);
    if (std::find(c.sources.begin(), c.sources.end(), source) == c.sources.end()) c.sources.push_back(source);
  }
  for (const KeyOutput& o : key.outputs) c.output_values.push_back("v" + std::to_string(o.value));
  if (!key.reduce.empty()) c.output_values.push_back(key.reduce_from.str());
  return c;
}

std::string hex_literal(uint64_t v) {
  return "0x" + KeyHash{0, v}.hex().substr(16) + "ULL";
}

}  // namespace

std::vector<GeneratedFile> emit_aot_cuda_kernels(const EmitContext& ctx, const std::vector<KernelKey>& keys,
                                                 const std::string& ops_source) {
  std::vector<std::string> functors, kernels, entries;
  for (const KernelKey& key : keys) {
    const std::string text = print_key(key);
    const KeyHash hash = key_hash(text);
    const cuda::KernelLayout layout = layout_of(key);
    const cuda::KernelChain chain = chain_of(ctx, key);
    for (const std::string& source : chain.sources) {
      if (std::find(functors.begin(), functors.end(), source) == functors.end()) functors.push_back(source);
    }
    // The entry stands for the JIT's source: the runtime compares this hash with its own text's.
    const KeyHash source_hash = key_hash(cuda::group_kernel_text(layout, chain));
    const std::string ns = "lazygen_aot_" + hash.hex();
    kernels.push_back(ctx.templates.render("aot_cuda_kernel.cu.tmpl", {
        {"key", text}, {"namespace", ns}, {"body", cuda::group_kernel_body(layout, chain, cuda::kAotEntry)}}));
    entries.push_back("CudaAotEntry{\"" + text + "\", " + hex_literal(hash.hi) + ", " + hex_literal(hash.lo) + ", " +
                      std::to_string(kManifestVersion) + ", \"" + kernel_fingerprint(ctx, key) + "\", " + hex_literal(source_hash.hi) +
                      ", " + hex_literal(source_hash.lo) + ", reinterpret_cast<const void*>(&" + ns +
                      "::lazygen_group_i32), reinterpret_cast<const void*>(&" + ns + "::lazygen_group_i64)},");
  }
  return {{"aot_kernels.cu", ctx.templates.render("aot_cuda_kernels.cu.tmpl", {{"source", ctx.source},
                                                                              {"ops_source", ops_source},
                                                                              {"functors", functors},
                                                                              {"kernels", kernels},
                                                                              {"entries", entries}})}};
}

}  // namespace lazygen::gen::dest
