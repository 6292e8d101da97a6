// Emits one IR node class per op, each in its own header (ir/<op id>.h; ir_nodes.h includes them
// all). See templates/ir_node_class.h.tmpl and the
// contract in runtime/core/ir/node.h: operands for tensors and Scalars, const members for the rest.
#include "api/cpp_types.h"
#include "api/names.h"
#include "dest/common.h"
#include "dest/emit.h"

namespace lazygen::gen::dest {
namespace {

struct NodeParts {
  std::vector<std::string> params;     // constructor / can_reuse parameters (without shapes)
  std::vector<std::string> operands;   // names passed to operand_list
  std::vector<std::string> hashed;     // attribute expressions hashed at construction
  std::vector<std::string> structural; // ... those that are not sizes (SymInt): Note [Dynamic shapes]
  std::vector<std::string> members;    // "const int64_t dim;"
  std::vector<std::string> inits;      // "dim(dim)"
  std::vector<std::string> compares;   // "attr_equal(dim, this->dim)"
  std::vector<std::string> structure_compares;  // ... of the attributes that are not sizes
  std::vector<std::string> attr_pairs; // "{\"dim\", attr_str(dim)}"
};

void add_operand(NodeParts& p, const Argument& a) {
  std::string name = member_name(a);
  bool list = a.type.is_list;
  p.params.push_back((list ? "const std::vector<Value>& " : "const Value& ") + name);
  p.operands.push_back(name);
  if (list) {  // keeps list boundaries in the identity
    p.hashed.push_back(name + ".size()");
    p.structural.push_back(name + ".size()");
  }
}

void add_attribute(NodeParts& p, const Argument& a, const SourceLoc& loc) {
  std::string name = member_name(a);
  std::string type = api::cpp_type(a, api::TypeUse::Member, loc);
  // Passed as the op API passes it (a str as std::string_view), stored as the member type.
  p.params.push_back(api::cpp_type(a, api::TypeUse::Api, loc) + " " + name);
  p.hashed.push_back(name);
  if (a.type.base != BaseType::SymInt) p.structural.push_back(name);
  p.members.push_back("const " + type + " " + name + ";");
  p.inits.push_back(name + "(" + name + ")");
  p.compares.push_back("attr_equal(" + name + ", this->" + name + ")");
  if (a.type.base != BaseType::SymInt) p.structure_compares.push_back(p.compares.back());
  p.attr_pairs.push_back("{\"" + a.name + "\", attr_str(" + name + ")}");
}

NodeParts node_parts(const OpEntry& op) {
  NodeParts p;
  for (const Argument& a : op.schema.arguments) {
    if (api::is_operand(a)) add_operand(p, a);
    else add_attribute(p, a, op.func_loc);
  }
  return p;
}

std::string class_definition(const EmitContext& ctx, const OpEntry& op) {
  NodeParts p = node_parts(op);
  std::string operands = "operand_list(" + join(p.operands, ", ") + ")";
  std::vector<std::string> ctor_params = p.params;
  ctor_params.push_back("std::vector<Shape> shapes");
  // A node with size attributes hashes them apart: its structure hash leaves them out.
  const std::string attrs = p.structural.size() == p.hashed.size()
                                ? "hash_all(" + join(p.hashed, ", ") + ")"
                                : "AttrsHash{hash_all(" + join(p.hashed, ", ") + "), hash_all(" +
                                      join(p.structural, ", ") + ")}";
  std::vector<std::string> inits = {"Node(kKind, " + operands + ", std::move(shapes), " + attrs + ")"};
  inits.insert(inits.end(), p.inits.begin(), p.inits.end());
  // The variadic operands_match compares in place: trie probes must not allocate.
  std::vector<std::string> reuse = {"operands_match(" + join(p.operands, ", ") + ")"};
  reuse.insert(reuse.end(), p.compares.begin(), p.compares.end());
  // The same op at other sizes: operands at the same trie positions, attributes but sizes equal
  // (Note [Trie reuse across sizes] in runtime/core/ir/trie_cache.h).
  std::vector<std::string> structure = {"operands_correspond(" + join(p.operands, ", ") + ")"};
  structure.insert(structure.end(), p.structure_compares.begin(), p.structure_compares.end());
  return ctx.templates.render("ir_node_class.h.tmpl", {
      {"schema", op.func},
      {"class_name", api::class_name(op.schema.name)},
      {"schema_name", op.schema.name.str()},
      {"ctor_params", join(ctor_params, ", ")},
      {"initializers", join(inits, ", ")},
      {"reuse_params", join(p.params, ", ")},
      {"reuse_condition", join(reuse, " && ")},
      {"structure_condition", join(structure, " && ")},
      {"attr_pairs", join(p.attr_pairs, ", ")},
      {"members", p.members},
  });
}

}  // namespace

std::vector<GeneratedFile> emit_ir_nodes(const EmitContext& ctx) {
  std::vector<GeneratedFile> files;
  std::vector<std::string> includes;
  for (const OpEntry& op : ctx.ops) {
    includes.push_back(include_line(ir_node_header(op)));
    files.push_back(
        {"include/" + ir_node_header(op),
         ctx.templates.render(
             "ir_node.h.tmpl",
             {{"source", ctx.source}, {"schema", op.func}, {"class", class_definition(ctx, op)}})});
  }
  files.insert(
      files.begin(),
      {std::string(kIncludeDir) + "ir_nodes.h",
       ctx.templates.render("ir_nodes.h.tmpl", {{"source", ctx.source}, {"includes", includes}})});
  return files;
}

}  // namespace lazygen::gen::dest
