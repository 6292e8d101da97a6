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
// Nodes are immutable after construction except ScalarParam's value and DeviceData's data (updated
// on trie reuse) and the trie slot the trie cache records before sharing the node.
// Thread safety: immutable nodes may be shared across threads; the trie cache is per thread.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lazygen/shape.h"

namespace lazygen::ir {

using hash_t = uint64_t;

// An op's kind: a 32-bit FNV-1a hash of its name, the schema name for ops of ops.yaml
// ("add.Tensor"), an internal name otherwise ("device_data", "scalar_param"). See Note [Op kinds].
enum class OpKind : uint32_t {};

// The kind of the op named `name`; a constant expression, so `case op_kind("mm"):` works.
constexpr OpKind op_kind(std::string_view name) {
  uint32_t h = 2166136261u;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return static_cast<OpKind>(h);
}

// Whether no two of `kinds` are equal; a constant expression, for the build-time checks that no
// two names of an op list share a kind (See Note [Op kinds]).
template <size_t N>
constexpr bool kinds_distinct(std::array<OpKind, N> kinds) {
  std::sort(kinds.begin(), kinds.end());
  return std::adjacent_find(kinds.begin(), kinds.end()) == kinds.end();
}

// True for DeviceData and ScalarParam: nodes the executor feeds rather than computes.
constexpr bool is_input(OpKind k) {
  return k == op_kind("device_data") || k == op_kind("scalar_param");
}

// Note [Op kinds]
// A kind is a hash of the op's name, not its position in ops.yaml, so that the core knows no list
// of ops: this header, included by every unit that touches the IR, does not change when an op is
// added to ops.yaml, and adding or reordering ops renumbers nothing. Names are looked up in a
// table built from the generated op list (node.cpp, the one unit that includes it); a build
// whose ops.yaml holds two names of one hash fails there (static_assert), and register_op_kind
// rejects a name whose kind is taken by another name.

// The schema name ("add.Tensor") or internal name ("device_data") of a kind. Throws
// std::out_of_range for a kind that names no op.
const char* op_kind_name(OpKind k);
// The IR class name of a kind ("AddTensor", "DeviceData"), as IR dumps print it.
const char* op_kind_class_name(OpKind k);

// Kinds for nodes defined outside ops.yaml (test nodes, backend-internal nodes such as fusion
// groups): returns op_kind(name) and records the names for op_kind_name and op_kind_class_name.
// Registering a name again with the same class name returns the same kind; a name whose kind is
// another name's throws std::invalid_argument. Thread-safe; typically called once per class:
//   static inline const OpKind kKind = register_op_kind("test.binary", "TestBinary");
OpKind register_op_kind(const char* name, const char* class_name);

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

// A node's attributes as hashed: `all` of them, and the `structure` part, which leaves out
// attributes that are sizes (SymInt in the schema: view's size, slice's bounds). Nodes without
// size attributes pass one hash for both. See Note [Dynamic shapes] in backend/graph.h.
struct AttrsHash {
  AttrsHash(hash_t all_attrs) : all(all_attrs), structure(all_attrs) {}  // NOLINT: implicit
  AttrsHash(hash_t all_attrs, hash_t structure_attrs) : all(all_attrs), structure(structure_attrs) {}
  hash_t all;
  hash_t structure;
};

class Node {
 public:
  Node(OpKind op, std::vector<Value> operands, std::vector<Shape> shapes, AttrsHash attrs);
  // Iterative: releasing the last reference to a long chain of nodes does not recurse once
  // per node (See Note [Iterative node destruction] in node.cpp).
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  OpKind op() const { return op_; }
  const std::vector<Value>& operands() const { return operands_; }
  const std::vector<Shape>& shapes() const { return shapes_; }
  const Shape& shape(size_t i = 0) const { return shapes_.at(i); }
  size_t num_outputs() const { return shapes_.size(); }
  hash_t node_hash() const { return node_hash_; }
  hash_t dag_hash() const { return dag_hash_; }
  // node_hash without sizes: op, structural attributes, operand presence, and each output's
  // dtype and rank (See Note [Dynamic shapes] in backend/graph.h).
  hash_t structure_hash() const { return structure_hash_; }

  // "AddTensor" plus attributes, e.g. "SumDimIntlist(dim=[1], keepdim=1, dtype=None)".
  virtual std::string to_string() const;
  // The attribute part of to_string ("dim=[1], keepdim=1"); empty for ops without attributes.
  virtual std::string attrs_string() const { return {}; }

  // Appends an operand without rehashing. Only for tests that need malformed graphs (a cycle);
  // real nodes receive every operand at construction.
  void add_operand_for_testing(Value v) { operands_.push_back(std::move(v)); }

  // The trie cache entry this node was cached under: an identity for matching operands across
  // sizes, never dereferenced; null for nodes no trie cache holds (See Note [Trie reuse across
  // sizes] in trie_cache.h). Set by the trie cache before the node is shared.
  const void* trie_slot() const { return trie_slot_; }
  void set_trie_slot(const void* slot) { trie_slot_ = slot; }

 protected:
  // True when `operands` are the very same values as this node's (identity, presence included).
  bool operands_match(const std::vector<Value>& operands) const;
  // operands_match(operand_list(parts...)) without building the list: each part is a Value or a
  // std::vector<Value> (a Tensor[] argument). This runs on every trie cache probe, so it must
  // not allocate or touch reference counts.
  template <class... Parts>
  bool operands_match(const Parts&... parts) const {
    size_t i = 0;
    return (match_part(i, parts) && ...) && i == operands_.size();
  }
  // operands_match, except that an operand also matches a value of a node cached at the same
  // trie position (the node traced there at other sizes): what the generated same_structure()
  // checks (See Note [Trie reuse across sizes] in trie_cache.h). Allocates nothing.
  template <class... Parts>
  bool operands_correspond(const Parts&... parts) const {
    size_t i = 0;
    return (correspond_part(i, parts) && ...) && i == operands_.size();
  }

 private:
  bool match_part(size_t& i, const Value& v) const {
    return i < operands_.size() && operands_[i++] == v;
  }
  bool match_part(size_t& i, const std::vector<Value>& vs) const {
    for (const Value& v : vs) {
      if (!match_part(i, v)) return false;
    }
    return true;
  }
  static bool correspond(const Value& cached, const Value& v) {
    if (cached == v) return true;
    return cached.index == v.index && cached.present() && v.present() &&
           cached.node->trie_slot_ != nullptr && cached.node->trie_slot_ == v.node->trie_slot_;
  }
  bool correspond_part(size_t& i, const Value& v) const {
    return i < operands_.size() && correspond(operands_[i++], v);
  }
  bool correspond_part(size_t& i, const std::vector<Value>& vs) const {
    for (const Value& v : vs) {
      if (!correspond_part(i, v)) return false;
    }
    return true;
  }

  OpKind op_;
  std::vector<Value> operands_;
  std::vector<Shape> shapes_;
  hash_t node_hash_;
  hash_t dag_hash_;
  hash_t structure_hash_;
  const void* trie_slot_ = nullptr;
};

}  // namespace lazygen::ir
