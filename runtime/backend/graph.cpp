// Graph construction and its structural hash (backend/graph.h).
#include "backend/graph.h"

#include <stdexcept>
#include <unordered_map>

#include "core/ir/builtin_nodes.h"
#include "core/ir/hash.h"
#include "core/ir/post_order.h"

namespace lazygen::exec {

Graph::Graph(std::vector<ir::Value> roots) : roots_(std::move(roots)) {
  for (const ir::Value& r : roots_) {
    if (!r.present()) throw std::invalid_argument("Graph: an output value is absent");
  }
  nodes_ = ir::post_order(roots_);
  std::unordered_map<const ir::Node*, uint32_t> position;
  position.reserve(nodes_.size());
  auto ref = [&](const ir::Value& v) {
    return v.present() ? ValueRef{position.at(v.node.get()), v.index} : ValueRef{};
  };
  ir::hash_t h = ir::hash_value(nodes_.size());
  ir::hash_t structure = h;
  auto mix = [&](uint64_t v) {
    h = ir::hash_combine(h, v);
    structure = ir::hash_combine(structure, v);
  };
  operand_begin_.reserve(nodes_.size() + 1);
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const ir::Node* n = nodes_[i];
    position.emplace(n, i);
    operand_begin_.push_back(static_cast<uint32_t>(operand_refs_.size()));
    h = ir::hash_combine(h, n->node_hash());
    structure = ir::hash_combine(structure, n->structure_hash());
    for (const ir::Value& v : n->operands()) {
      ValueRef r = ref(v);  // operands precede their users, so they have positions already
      operand_refs_.push_back(r);
      mix(r.node);
      mix(r.output);
    }
    if (ir::is_input(n->op())) inputs_.push_back(i);
  }
  operand_begin_.push_back(static_cast<uint32_t>(operand_refs_.size()));
  for (const ir::Value& r : roots_) {
    outputs_.push_back(ref(r));
    mix(outputs_.back().node);
    mix(r.index);
  }
  hash_ = h;
  structure_hash_ = structure;
}

std::span<const ValueRef> Graph::operands(size_t i) const {
  return std::span<const ValueRef>(operand_refs_)
      .subspan(operand_begin_[i], operand_begin_[i + 1] - operand_begin_[i]);
}

std::vector<uint32_t> Graph::first_output_slots(uint32_t* count) const {
  std::vector<uint32_t> first(nodes_.size());
  uint32_t next = 0;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    first[i] = next;
    next += static_cast<uint32_t>(nodes_[i]->num_outputs());
  }
  *count = next;
  return first;
}

std::vector<Shape> Graph::input_shapes() const {
  std::vector<Shape> out;
  out.reserve(inputs_.size());
  for (uint32_t i : inputs_) out.push_back(nodes_[i]->shape());
  return out;
}

}  // namespace lazygen::exec
