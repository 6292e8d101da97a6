// Emits aot_kernels.cpp for `lazygen --kernels`: one kernel per manifest key, computing the
// group's ops per element with the ops' scalar functors, and the registry entries (See Note
// [AOT kernels] in runtime/backend/cpu/fusion/aot_kernel.h).
#include <map>

#include "api/names.h"
#include "dest/common.h"
#include "dest/emit.h"

namespace lazygen::gen::dest {
namespace {

const std::map<std::string, std::string> kCppTypes = {
    {"float32", "float"}, {"float64", "double"}, {"int64", "int64_t"}, {"int32", "int32_t"}};

// How the loop body reads an operand: a contiguous tile by element, a broadcast one as its value.
std::string operand(const KernelKey& key, const KeyRef& r) {
  if (r.kind == 'l' && key.loads[static_cast<size_t>(r.index)].stride_class != 'b') return r.str() + "[i]";
  return r.str();
}

// A reduction's values go to `r` whatever its layout (reduce=sum(v1) or sum.lead(v1)): the
// interpreter folds them, so the kernel body is the same for both.
std::vector<std::string> declarations(const KernelKey& key) {
  std::vector<std::string> out;
  for (size_t k = 0; k < key.loads.size(); ++k) {
    const std::string l = "l" + std::to_string(k), in = "a.in[" + std::to_string(k) + "]";
    out.push_back(key.loads[k].stride_class == 'b' ? "const T " + l + " = *static_cast<const T*>(" + in + ");"
                                                   : "const T* __restrict " + l + " = static_cast<const T*>(" + in + ");");
  }
  for (const KeyOp& op : key.ops) {
    for (const KeyRef& r : op.args) {
      if (r.kind == 's') out.push_back("const T " + r.str() + " = a.scalars[" + std::to_string(r.index) + "].to<T>();");
    }
  }
  for (size_t j = 0; j < key.outputs.size(); ++j) {
    const std::string o = std::to_string(j);
    out.push_back("T* __restrict o" + o + " = static_cast<T*>(a.out[" + o + "]);");
  }
  if (!key.reduce.empty() && key.reduce_from.kind == 'v') out.push_back("T* __restrict r = static_cast<T*>(a.reduce);");
  return out;
}

std::vector<std::string> body(const EmitContext& ctx, const KernelKey& key) {
  std::vector<std::string> out;
  for (size_t k = 0; k < key.ops.size(); ++k) {
    std::vector<std::string> args;
    for (const KeyRef& r : key.ops[k].args) args.push_back(operand(key, r));
    const std::string functor = api::functor_name(key_op(ctx, key.ops[k]).schema.name);
    out.push_back("const T v" + std::to_string(k) + " = static_cast<T>(kernels::" + functor + "{}.operator()<T>(" +
                  join(args, ", ") + "));");
  }
  for (size_t j = 0; j < key.outputs.size(); ++j) {
    out.push_back("o" + std::to_string(j) + "[i] = v" + std::to_string(key.outputs[j].value) + ";");
  }
  if (!key.reduce.empty() && key.reduce_from.kind == 'v') out.push_back("r[i] = " + key.reduce_from.str() + ";");
  return out;
}

std::string hex64(uint64_t v) {
  return KeyHash{0, v}.hex().substr(16);
}

}  // namespace

const OpEntry& key_op(const EmitContext& ctx, const KeyOp& k) {
  for (const OpEntry& op : ctx.ops) {
    if (op.schema.name.str() != k.name) continue;
    if (!op.pointwise)
      throw GenError(source_loc(k.loc), "'" + k.name + "' is not a pointwise op",
                     "only `pointwise:` ops fuse");
    const PointwiseInputs in = pointwise_inputs(op);
    size_t scalars = 0;
    for (const KeyRef& r : k.args) scalars += r.kind == 's' ? 1 : 0;
    if (k.args.size() - scalars != in.tensors.size() || scalars != in.scalars.size()) {
      throw GenError(source_loc(k.loc),
                     "'" + k.name + "' takes " + std::to_string(in.tensors.size()) +
                         " tensor and " + std::to_string(in.scalars.size()) + " Scalar operand(s)",
                     "the manifest was recorded with another ops.yaml; record it again");
    }
    return op;
  }
  throw GenError(source_loc(k.loc), "unknown op '" + k.name + "'",
                 "the manifest was recorded with another ops.yaml; record it again");
}

std::string op_fingerprint(const OpEntry& op) {
  return hex64(text_hash("lazygen kernels " + std::to_string(kManifestVersion) + "\n" + op.func + "\n" + *op.pointwise +
                         "\n" + std::string(dtype_rule_name(op.dtype)) + "\n"));
}

std::string kernel_fingerprint(const EmitContext& ctx, const KernelKey& key) {
  std::vector<std::string> parts;
  for (const KeyOp& k : key.ops) parts.push_back(op_fingerprint(key_op(ctx, k)));
  return join(parts, ",");
}

std::vector<GeneratedFile> emit_aot_kernels(const EmitContext& ctx, const std::vector<KernelKey>& keys,
                                            const std::string& ops_source) {
  std::vector<std::string> kernels, entries;
  std::vector<const OpEntry*> ops;
  for (const KernelKey& key : keys) {
    for (const KeyOp& k : key.ops) ops.push_back(&key_op(ctx, k));
    const std::string text = print_key(key);
    const KeyHash hash = key_hash(text);
    kernels.push_back(ctx.templates.render("aot_kernel.cpp.tmpl", {{"key", text},
                                                                   {"hash", hash.hex()},
                                                                   {"type", kCppTypes.at(key.dtype)},
                                                                   {"declarations", declarations(key)},
                                                                   {"body", body(ctx, key)}}));
    entries.push_back("AotEntry{\"" + text + "\", 0x" + hex64(hash.hi) + "ULL, 0x" + hex64(hash.lo) + "ULL, " +
                      std::to_string(kManifestVersion) + ", \"" + kernel_fingerprint(ctx, key) + "\", &kernel_" + hash.hex() + "},");
  }
  return {{"aot_kernels.cpp", ctx.templates.render("aot_kernels.cpp.tmpl", {{"source", ctx.source},
                                                                            {"ops_source", ops_source},
                                                                            {"functor_includes", pointwise_includes(ops)},
                                                                            {"kernels", kernels},
                                                                            {"entries", entries}})}};
}

}  // namespace lazygen::gen::dest
