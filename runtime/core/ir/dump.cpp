// Text and Graphviz dumps of IR graphs (core/ir/dump.h).
#include "core/ir/dump.h"

#include <unordered_map>

#include "core/ir/post_order.h"

namespace lazygen::ir {
namespace {

// Post-order numbering plus, per node, which roots it produces.
struct Numbering {
  std::vector<const Node*> order;
  std::unordered_map<const Node*, size_t> id;
  std::unordered_map<const Node*, std::vector<size_t>> roots_of;

  explicit Numbering(const std::vector<Value>& roots) : order(post_order(roots)) {
    for (size_t i = 0; i < order.size(); ++i) id.emplace(order[i], i);
    for (size_t r = 0; r < roots.size(); ++r) {
      if (roots[r].present()) roots_of[roots[r].node.get()].push_back(r);
    }
  }

  std::string ref(const Value& v) const {
    if (!v.present()) return "None";
    std::string out = "%" + std::to_string(id.at(v.node.get()));
    if (v.node->num_outputs() > 1) out += "." + std::to_string(v.index);
    return out;
  }
};

std::string shapes_str(const Node& n) {
  if (n.num_outputs() == 1) return n.shape().str();
  std::string out = "(";
  for (size_t i = 0; i < n.num_outputs(); ++i) out += (i ? ", " : "") + n.shape(i).str();
  return out + ")";
}

std::string join_indices(const std::vector<size_t>& xs) {
  std::string out;
  for (size_t x : xs) out += (out.empty() ? "" : ", ") + std::to_string(x);
  return out;
}

std::string text_line(const Numbering& num, const Node& n) {
  std::string args;
  for (const Value& v : n.operands()) args += (args.empty() ? "" : ", ") + num.ref(v);
  std::string attrs = n.attrs_string();
  if (!attrs.empty()) args += (args.empty() ? "" : ", ") + attrs;
  std::string line = "  %" + std::to_string(num.id.at(&n)) + " = " + op_kind_class_name(n.op()) +
                     "(" + args + ") : " + shapes_str(n);
  if (auto it = num.roots_of.find(&n); it != num.roots_of.end()) {
    line += "  # root " + join_indices(it->second);
  }
  return line + "\n";
}

std::string dot_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string dot_node(const Numbering& num, const Node& n) {
  size_t id = num.id.at(&n);
  std::string label = dot_escape("%" + std::to_string(id) + " " + n.to_string()) + "\\n" +
                      dot_escape(shapes_str(n));  // "\n": a line break inside a dot label
  std::string out = "  n" + std::to_string(id) + " [label=\"" + label + "\"";
  if (num.roots_of.count(&n)) out += ", style=bold";
  out += "];\n";
  for (size_t i = 0; i < n.operands().size(); ++i) {
    const Value& v = n.operands()[i];
    if (!v.present()) continue;
    std::string edge_label = std::to_string(i);
    if (v.node->num_outputs() > 1) edge_label += " (out " + std::to_string(v.index) + ")";
    out += "  n" + std::to_string(num.id.at(v.node.get())) + " -> n" + std::to_string(id) +
           " [label=\"" + edge_label + "\"];\n";
  }
  return out;
}

}  // namespace

std::string dump_text(const std::vector<Value>& roots) {
  Numbering num(roots);
  std::string out = "IR {\n";
  for (const Node* n : num.order) out += text_line(num, *n);
  return out + "}\n";
}

std::string dump_dot(const std::vector<Value>& roots) {
  Numbering num(roots);
  std::string out = "digraph IR {\n  node [shape=box, fontname=monospace];\n";
  for (const Node* n : num.order) out += dot_node(num, *n);
  return out + "}\n";
}

}  // namespace lazygen::ir
