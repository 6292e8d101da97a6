// Emits what `pointwise:` expressions generate: the scalar functors (pointwise_ops.h), the eager
// CPU kernels and compute-dtype functions (cpu_kernels.h / src/cpu_kernels.cpp). Custom kernels
// are declared here too, so hand-written code implements a generated declaration.
#include "api/cpp_types.h"
#include "api/names.h"
#include "api/signature.h"
#include "dest/common.h"
#include "dest/emit.h"
#include "model/expr_scan.h"
#include "model/kernel_dtypes.h"
#include "model/pointwise_functions.h"

namespace lazygen::gen::dest {
namespace {

std::vector<std::string> names_of(const std::vector<const Argument*>& args, const std::string& suffix = "") {
  std::vector<std::string> out;
  for (const Argument* a : args) out.push_back(api::cpp_name(a->name) + suffix);
  return out;
}

}  // namespace

std::string pointwise_functor(const EmitContext& ctx, const OpEntry& op) {
  PointwiseInputs in = pointwise_inputs(op);
  std::vector<std::string> params;
  for (const Argument* a : in.tensors) params.push_back("T " + api::cpp_name(a->name));
  for (const Argument* a : in.scalars) params.push_back("T " + api::cpp_name(a->name));
  return ctx.templates.render("pointwise_functor.h.tmpl",
                              {
                                  {"schema", op.func},
                                  {"functor", api::functor_name(op.schema.name)},
                                  {"num_tensors", std::to_string(in.tensors.size())},
                                  {"num_scalars", std::to_string(in.scalars.size())},
                                  {"params", join(params, ", ")},
                                  {"expression", wrap_floating_literals(*op.pointwise, "fp<T>")},
                                  {"dtype_mask", hex_literal(compute_dtype_mask(op))},
                                  {"compute_dtypes", join(compute_dtypes(op), " ")},
                              });
}

// The values of an eager pointwise kernel's template (cpu_pointwise_kernel.cpp.tmpl and
// cuda_pointwise_kernel.cpp.tmpl): a functional op's result is `allocate(sizes, dtype, device)`.
TemplateEnv pointwise_kernel_env(const OpEntry& op, const std::string& allocate, const std::string& device) {
  PointwiseInputs in = pointwise_inputs(op);
  const Argument* written = written_argument(op);
  std::string out = written ? api::cpp_name(written->name) : "out";
  std::vector<std::string> out_decl;
  if (!written) out_decl.push_back("Tensor out = " + allocate + "(shapes[0].sizes, shapes[0].dtype, " + device + ");");
  std::vector<std::string> dtype_args = names_of(in.tensors, ".shape()");
  for (const Argument* a : in.scalars) dtype_args.push_back(api::cpp_name(a->name));
  api::CppSignature sig = api::op_signature(op, api::op_id(op.schema.name), api::TypeUse::Api);
  return {
      {"schema", op.func},
      {"schema_name", op.schema.name.str()},
      {"signature", sig.definition()},
      {"shape_call", shape_call(op)},
      {"out_decl", out_decl},
      {"op_id", api::op_id(op.schema.name)},
      {"out", out},
      {"tensor_args", join(names_of(in.tensors), ", ")},
      {"scalar_args", join(names_of(in.scalars), ", ")},
      {"compute_call", "compute_dtype_" + api::op_id(op.schema.name) + "(" + join(dtype_args, ", ") + ")"},
  };
}

namespace {

std::string compute_dtype_name(const OpEntry& op) { return "compute_dtype_" + api::op_id(op.schema.name); }

// DType compute_dtype_add_tensor(const Shape& self, const Shape& other, const Scalar& alpha)
std::string compute_dtype_signature(const OpEntry& op) {
  PointwiseInputs in = pointwise_inputs(op);
  std::vector<std::string> params;
  for (const Argument* a : in.tensors) params.push_back("const Shape& " + api::cpp_name(a->name));
  for (const Argument* a : in.scalars) params.push_back("const Scalar& " + api::cpp_name(a->name));
  return "DType " + compute_dtype_name(op) + "(" + join(params, ", ") + ")";
}

std::string compute_dtype_definition(const EmitContext& ctx, const OpEntry& op) {
  PointwiseInputs in = pointwise_inputs(op);
  // result_type takes pointers to the parameters.
  // Tensors and promoting Scalars decide (See Note [Scaling scalars]); an expression of Scalars
  // alone (fill_'s `value`) computes at the Scalars' full width, so no value is rounded on the way.
  std::vector<std::string> t, s;
  for (const Argument* a : in.tensors) t.push_back("&" + api::cpp_name(a->name));
  for (const Argument* a : in.scalars) {
    if (promotes(*a) || in.tensors.empty()) s.push_back("&" + api::cpp_name(a->name));
  }
  std::string expr = "shape_rules::result_type({" + join(t, ", ") + "}, {" + join(s, ", ") + "})";
  if (in.tensors.empty()) expr = "shape_rules::scalar_dtype({" + join(s, ", ") + "})";
  if (op.dtype == DTypeRule::Float) expr = "to_floating(" + expr + ")";
  return ctx.templates.render("compute_dtype.cpp.tmpl",
                              {{"schema", op.func}, {"signature", compute_dtype_signature(op)}, {"expression", expr}});
}

std::string kernel_definition(const EmitContext& ctx, const OpEntry& op) {
  TemplateEnv env = pointwise_kernel_env(op, "empty", "kCPU");
  env.erase("schema_name");  // the cpu loop names the op in run_<op id> (cpu_pointwise_run.cpp.tmpl)
  return ctx.templates.render("cpu_pointwise_kernel.cpp.tmpl", env);
}

}  // namespace

// Note [Op shards]
// Editing or adding one op should recompile a few small units, not every kernel (the rebuild a
// user pays for a YAML edit). So each `pointwise:` op's scalar functor has its own header,
// pointwise/<op id>.h, each op's API its own header, ops/<name>.h, and each op's IR node class,
// shape function, eager CPU kernel and lazy-device function theirs (ir/, shapes/, cpu/, lazy/
// <op id>.h; the all-op headers only include them), and what instantiates
// something per op is spread over kOpShards shards by fnv1a(op id) % kOpShards, stable when other
// ops are added or edited: the eager CPU kernels (src/cpu_kernels_<k>.cpp), the fused
// interpreter's tile kernels (src/tile_kernels_<k>.cpp), the eager CUDA kernels
// (src/cuda_kernels_<k>.cu) with their host side (src/cuda_ops_<k>.cpp), the OpInfo records
// (src/op_info_<k>.cpp) and the PyTorch kernels (src/torch_kernels_<k>.cpp), each shard including
// only its ops' headers (the PyTorch shards start from a precompiled header of torch's: Note
// [Torch precompiled header] in runtime/pytorch/CMakeLists.txt).
// What needs every op in one function (the register-chain dispatcher) includes only the chainable
// ops' headers, and AOT kernels only those of the ops they run; what needs every op in one list
// (op_info.cpp's order, torch_kernels.cpp's registration) holds names and calls, not code. The
// shard counts are fixed so build systems know the file names up front
// (cmake/LazygenGenerate.cmake).
int op_shard(const OpEntry& op) {
  uint32_t h = 2166136261u;
  for (unsigned char c : api::op_id(op.schema.name)) h = (h ^ c) * 16777619u;
  return static_cast<int>(h % kOpShards);
}

std::string pointwise_header(const OpEntry& op) {
  return "lazygen/generated/pointwise/" + api::op_id(op.schema.name) + ".h";
}

std::vector<std::string> pointwise_includes(const std::vector<const OpEntry*>& ops) {
  std::vector<std::string> headers;
  for (const OpEntry* op : ops) headers.push_back(pointwise_header(*op));
  return include_lines(std::move(headers));
}

std::vector<std::vector<const OpEntry*>> op_shards(const std::vector<OpEntry>& ops) {
  std::vector<std::vector<const OpEntry*>> shards(kOpShards);
  for (const OpEntry& op : ops) shards[static_cast<size_t>(op_shard(op))].push_back(&op);
  return shards;
}

std::vector<std::vector<const OpEntry*>> pointwise_shards(const std::vector<OpEntry>& ops) {
  std::vector<std::vector<const OpEntry*>> shards = op_shards(ops);
  for (auto& shard : shards) std::erase_if(shard, [](const OpEntry* op) { return !op->pointwise; });
  return shards;
}

namespace {

std::string run_declaration(const OpEntry& op) {
  return "void run_" + api::op_id(op.schema.name) +
         "(const Tensor& out, std::initializer_list<Tensor> inputs, std::initializer_list<Scalar> "
         "scalars, DType compute);";
}

// src/cpu_kernels_<k>.cpp: shard k's compute-dtype functions, loop instantiations and eager kernels.
GeneratedFile cpu_kernel_shard(const EmitContext& ctx, size_t k, const std::vector<const OpEntry*>& ops) {
  std::vector<std::string> dtype_defs, runners, kernels, headers;
  for (const OpEntry* op : ops) {
    headers.push_back(pointwise_header(*op));
    headers.push_back(shape_header(*op));
    dtype_defs.push_back(compute_dtype_definition(ctx, *op));
    runners.push_back(ctx.templates.render("cpu_pointwise_run.cpp.tmpl", {
        {"schema", op->func}, {"op_id", api::op_id(op->schema.name)},
        {"functor", api::functor_name(op->schema.name)}, {"schema_name", op->schema.name.str()}}));
    kernels.push_back(kernel_definition(ctx, *op));
  }
  return {
      "src/cpu_kernels_" + std::to_string(k) + ".cpp",
      ctx.templates.render("cpu_kernels.cpp.tmpl", {{"source", ctx.source},
                                                    {"shard", std::to_string(k)},
                                                    {"num_shards", std::to_string(kOpShards)},
                                                    {"includes", include_lines(std::move(headers))},
                                                    {"compute_dtypes", dtype_defs},
                                                    {"runners", runners},
                                                    {"kernels", kernels}})};
}

// pointwise_ops.h including every functor header, the CPU kernel shards, then pointwise/<op id>.h
// for every op in shard order.
std::vector<GeneratedFile> shard_files(const EmitContext& ctx) {
  std::vector<GeneratedFile> out;
  std::vector<const OpEntry*> all;
  const std::vector<std::vector<const OpEntry*>> shards = pointwise_shards(ctx.ops);
  for (size_t k = 0; k < shards.size(); ++k) {
    all.insert(all.end(), shards[k].begin(), shards[k].end());
    out.push_back(cpu_kernel_shard(ctx, k, shards[k]));
  }
  for (const OpEntry* op : all) {
    out.push_back({std::string("include/") + pointwise_header(*op),
                   ctx.templates.render("pointwise_op.h.tmpl", {{"schema", op->func},
                                                                {"functor", pointwise_functor(ctx, *op)}})});
  }
  out.insert(out.begin(), {std::string(kIncludeDir) + "pointwise_ops.h",
                           ctx.templates.render("pointwise_ops.h.tmpl", {{"source", ctx.source},
                                                                         {"functor_includes", pointwise_includes(all)}})});
  return out;
}

}  // namespace

std::vector<GeneratedFile> emit_pointwise(const EmitContext& ctx) {
  std::vector<std::string> kernel_headers;
  std::vector<GeneratedFile> kernel_header_files;
  for (const OpEntry& op : ctx.ops) {
    api::CppSignature sig = api::op_signature(op, api::op_id(op.schema.name), api::TypeUse::Api).without_defaults();
    std::vector<std::string> decls = {"// " + op.func + (op.pointwise ? "" : " (hand-written)") +
                                      "\n" + sig.declaration()};
    if (op.pointwise) {
      decls.push_back(
          "// Its pointwise loop into `out` (which may alias an input), computing in `compute`.\n" +
          run_declaration(op));
      decls.push_back(
          "// Its compute dtype: its inputs' result type (made floating where the dtype rule says "
          "so).\n" +
          compute_dtype_signature(op) + ";");
    }
    kernel_headers.push_back(cpu_kernel_header(op));
    kernel_header_files.push_back(
        {std::string("include/") + cpu_kernel_header(op),
         ctx.templates.render(
             "cpu_kernel.h.tmpl",
             {{"schema", op.func}, {"source", ctx.source}, {"declarations", decls}})});
  }
  std::vector<GeneratedFile> files = shard_files(ctx);
  std::vector<std::string> functions;
  for (const PointwiseFunction& f : pointwise_function_table()) {
    functions.push_back("LAZYGEN_POINTWISE_FUNCTION(" + std::string(f.name) + ", " + std::to_string(f.arity) + ", " +
                        (f.expensive ? "true" : "false") + ", " + (f.chainable ? "true" : "false") + ", " +
                        (f.domain == PointwiseFunction::Domain::Integral ? "true" : "false") + ")");
  }
  files.push_back({std::string(kIncludeDir) + "pointwise_functions.inc",
                   ctx.templates.render("pointwise_functions.inc.tmpl", {{"functions", functions}})});
  files.insert(
      files.begin() + 1,
      {std::string(kIncludeDir) + "cpu_kernels.h",
       ctx.templates.render("cpu_kernels.h.tmpl", {{"source", ctx.source},
                                                   {"includes", include_lines(kernel_headers)}})});
  files.insert(files.end(), kernel_header_files.begin(), kernel_header_files.end());
  return files;
}

}  // namespace lazygen::gen::dest
