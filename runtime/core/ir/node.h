// The IR: nodes recorded by lazy tensors, hashed at construction.
//
// A Node is one op application: its kind, its operands (Values: node + output index), its
// non-tensor attributes (members of the generated subclass, one class per op in ops.yaml; see
// generated/ir_nodes.h) and the Shapes of its outputs. Scalars passed to ops are not attributes
// but operands produced by ScalarParam nodes, so a new scalar value reuses the same graph.
//
// Two hashes (See Note [IR hashing]):
//   node_hash: op kind + attributes (bitwise for floats) + operand presence + output shapes.
//   dag_hash:  node_hash combined with the operands' dag_hashes and output indices: equal dag
//              hashes mean structurally equal graphs. Both are computed once, at construction.
// Nodes are immutable after construction except ScalarParam's value (updated on trie reuse).
// Thread safety: immutable nodes may be shared across threads; the trie cache is per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lazygen/shape.h"

namespace lazygen::ir {

using hash_t = uint64_t;

enum class OpKind : uint16_t {
#define LAZYGEN_OP(op_id, schema_name, ClassName) op_id,
#include "lazygen/generated/op_list.inc"
#undef LAZYGEN_OP
  device_data,   // an input: a materialized tensor fed to the graph
  scalar_param,  // an input: a scalar value, fed at execution (not part of the graph hash)
  kNumOpKinds,
};

// The schema name ("add.Tensor") or internal name ("device_data") of a kind.
const char* op_kind_name(OpKind k);

class Node;
using NodePtr = std::shared_ptr<Node>;

// One output of a node. A default-constructed Value is "absent": it stands for an optional
// tensor argument passed as None, and its absence is part of the node's identity.
struct Value {
  NodePtr node;
  uint32_t index = 0;

  bool present() const { return node != nullptr; }
  const Shape& shape() const;
  hash_t hash() const;  // dag hash of the node mixed with the index; a fixed constant if absent
  friend bool operator==(const Value& a, const Value& b) {
    return a.node == b.node && a.index == b.index;
  }
};

class Node {
 public:
  Node(OpKind op, std::vector<Value> operands, std::vector<Shape> shapes, hash_t attrs_hash);
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  OpKind op() const { return op_; }
  const std::vector<Value>& operands() const { return operands_; }
  const std::vector<Shape>& shapes() const { return shapes_; }
  const Shape& shape(size_t i = 0) const { return shapes_.at(i); }
  size_t num_outputs() const { return shapes_.size(); }
  hash_t node_hash() const { return node_hash_; }
  hash_t dag_hash() const { return dag_hash_; }

  // "AddTensor" plus attributes, e.g. "SumDimIntlist(dim=[1], keepdim=1, dtype=None)".
  virtual std::string to_string() const;
  // The attribute part of to_string ("dim=[1], keepdim=1"); empty for ops without attributes.
  virtual std::string attrs_string() const { return {}; }

 protected:
  // True when `operands` are the very same values as this node's (identity, presence included).
  bool operands_match(const std::vector<Value>& operands) const;

 private:
  OpKind op_;
  std::vector<Value> operands_;
  std::vector<Shape> shapes_;
  hash_t node_hash_;
  hash_t dag_hash_;
};

}  // namespace lazygen::ir
