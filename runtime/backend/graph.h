// Graph: one pending computation, in the form the executor hashes and backends compile.
//
// Built from the IR values to compute (the roots), it lists every reachable node in post-order
// (operands first; see core/ir/post_order.h) and gives positions instead of pointers: each
// node's operands as ValueRefs into that list, the inputs (DeviceData and ScalarParam nodes) in
// the order execute() receives their tensors, and the outputs in the order roots were given.
//
// Note [Graph hash]
// The computation cache is keyed by hash(): for each node in post-order its node_hash (op,
// attributes, operand presence, output shapes) and the positions of its operands, then the
// output positions. Position-based hashing captures sharing, which dag hashes do not: add(x, y)
// and add(x, x) have equal dag hashes when x and y have equal shapes, yet one takes two inputs
// and the other one. Input data and scalar values are not hashed (they are fed at execution),
// input shapes and dtypes are (through DeviceData / ScalarParam node hashes). The executor adds
// the backend's name.
//
// Note [Dynamic shapes]
// structure_hash() is hash() without sizes: each node's structure_hash (op, attributes other
// than sizes, operand presence, output dtypes and ranks) and the same positions. Graphs that
// differ only in sizes (a new batch size, sequence length, the short last batch of an epoch)
// share it. The executor keeps, per structure, the last few computations compiled for it, and
// asks the backend to specialize one of them to a new graph of the same structure
// (Backend::specialize) before compiling anew: the fused CPU backend reuses its fusion plan and
// only re-derives what depends on sizes (fusion/specialize.h). Each specialization is cached
// under the graph's own hash(), so a size seen before costs a lookup. LAZYGEN_DYNAMIC=0 turns
// the structure lookup off (every new size compiles, for A/B checks).
// Nodes carry concrete sizes: a new size builds new IR nodes, in the trie positions of the same
// ops at earlier sizes (Note [Trie reuse across sizes] in core/ir/trie_cache.h), which the same
// switch turns off.
//
// A Graph keeps its roots, and so every node, alive. It is immutable once built.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/ir/node.h"

namespace lazygen::exec {

// Output `output` of the node at position `node`; node == kAbsent for an absent operand.
struct ValueRef {
  static constexpr uint32_t kAbsent = UINT32_MAX;
  uint32_t node = kAbsent;
  uint32_t output = 0;
  bool present() const { return node != kAbsent; }
  friend bool operator==(const ValueRef&, const ValueRef&) = default;
};

class Graph {
 public:
  // REQUIRES: every root is present. Throws ir::IrCycleError on a cyclic graph.
  explicit Graph(std::vector<ir::Value> roots);

  const std::vector<ir::Value>& roots() const { return roots_; }
  // Every node, operands before users.
  const std::vector<const ir::Node*>& nodes() const { return nodes_; }
  const ir::Node& node(size_t i) const { return *nodes_[i]; }
  std::span<const ValueRef> operands(size_t i) const;
  // Positions of the DeviceData and ScalarParam nodes, in post-order.
  const std::vector<uint32_t>& inputs() const { return inputs_; }
  // One per root, in root order.
  const std::vector<ValueRef>& outputs() const { return outputs_; }
  // Input shapes in `inputs()` order (what execute() must be fed).
  std::vector<Shape> input_shapes() const;
  ir::hash_t hash() const { return hash_; }  // See Note [Graph hash]
  ir::hash_t structure_hash() const { return structure_hash_; }  // See Note [Dynamic shapes]
  // Every output of every node numbered in node order (the value slots backends index their
  // value tables with): first_output_slots()[i] is node i's first; *count gets the total.
  std::vector<uint32_t> first_output_slots(uint32_t* count) const;

 private:
  std::vector<ir::Value> roots_;
  std::vector<const ir::Node*> nodes_;
  std::vector<ValueRef> operand_refs_;   // all nodes' operands, concatenated
  std::vector<uint32_t> operand_begin_;  // node i's operands: [begin[i], begin[i + 1])
  std::vector<uint32_t> inputs_;
  std::vector<ValueRef> outputs_;
  ir::hash_t hash_ = 0;
  ir::hash_t structure_hash_ = 0;
};

}  // namespace lazygen::exec
