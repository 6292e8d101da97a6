// Node and Value (core/ir/node.h): the op-kind name table (the built-in kinds of builtin_kinds.h
// and registered ones), and the two hashes every node computes once at construction. See Note [IR
// hashing] in hash.h.
#include "core/ir/node.h"

#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/ir/builtin_kinds.h"
#include "core/ir/hash.h"
#include "lazygen/metrics.h"
#include "lazygen/tls.h"

namespace lazygen::ir {
namespace {

// Every kind's names: the built-in table's, then registered ones (their strings owned by the table,
// which is leaked, so the pointers handed out stay valid through static destruction).
struct KindTable {
  std::mutex mutex;
  std::unordered_map<uint32_t, KindNames> names;
  std::deque<std::string> strings;  // registered names; a deque never moves its elements
};

KindTable& kind_table() {
  static KindTable* table = [] {
    auto* t = new KindTable;
    for (const KindNames& k : builtin_kinds()) t->names.emplace(static_cast<uint32_t>(k.kind), k);
    return t;
  }();
  return *table;
}

const KindNames& lookup(OpKind k) {
  KindTable& table = kind_table();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto it = table.names.find(static_cast<uint32_t>(k));
  if (it == table.names.end()) {
    throw std::out_of_range("invalid OpKind " + std::to_string(static_cast<uint32_t>(k)));
  }
  return it->second;
}

// Stands for an absent optional operand in dag hashes.
constexpr hash_t kAbsentValueHash = 0x6a09e667f3bcc908ULL;

// Op kind, attributes, operand count and presence, output shapes: everything but the operands'
// identities. See Note [IR hashing].
hash_t compute_node_hash(OpKind op, hash_t attrs_hash, const std::vector<Value>& operands,
                         const std::vector<Shape>& shapes) {
  hash_t h = hash_combine(hash_value(op), attrs_hash);
  h = hash_combine(h, hash_value(operands.size()));
  for (const Value& v : operands) h = hash_combine(h, hash_value(v.present()));
  return hash_combine(h, hash_value(shapes));
}

hash_t compute_structure_hash(OpKind op, hash_t structure_attrs, const std::vector<Value>& operands,
                              const std::vector<Shape>& shapes) {
  hash_t h = hash_combine(hash_value(op), structure_attrs);
  h = hash_combine(h, hash_value(operands.size()));
  for (const Value& v : operands) h = hash_combine(h, hash_value(v.present()));
  for (const Shape& s : shapes) h = hash_combine(hash_combine(h, hash_value(s.dtype)), s.sizes.size());
  return h;
}

}  // namespace

const char* op_kind_name(OpKind k) {
  return lookup(k).name;
}
const char* op_kind_class_name(OpKind k) {
  return lookup(k).class_name;
}

OpKind register_op_kind(const char* name, const char* class_name) {
  const OpKind kind = op_kind(name);
  KindTable& table = kind_table();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto it = table.names.find(static_cast<uint32_t>(kind));
  if (it != table.names.end()) {
    const KindNames& old = it->second;
    if (std::string_view(old.name) == name && std::string_view(old.class_name) == class_name) {
      return kind;
    }
    throw std::invalid_argument("register_op_kind: '" + std::string(name) + "' (" + class_name +
                                ") has the kind of '" + old.name + "' (" + old.class_name +
                                "): choose another name");
  }
  const char* kept_name = table.strings.emplace_back(name).c_str();
  const char* kept_class = table.strings.emplace_back(class_name).c_str();
  table.names.emplace(static_cast<uint32_t>(kind), KindNames{kind, kept_name, kept_class});
  return kind;
}

const Shape& Value::shape() const {
  if (!node) throw std::logic_error("Value::shape() called on an absent value");
  return node->shape(index);
}

hash_t Value::hash() const {
  return node ? hash_combine(node->dag_hash(), index) : kAbsentValueHash;
}

Node::Node(OpKind op, std::vector<Value> operands, std::vector<Shape> shapes, AttrsHash attrs)
    : op_(op), operands_(std::move(operands)), shapes_(std::move(shapes)) {
  static metrics::Counter& created = metrics::counter("ir.nodes_created");
  created.add();
  node_hash_ = compute_node_hash(op_, attrs.all, operands_, shapes_);
  structure_hash_ = compute_structure_hash(op_, attrs.structure, operands_, shapes_);
  hash_t dag = node_hash_;
  for (const Value& v : operands_) dag = hash_combine(dag, v.hash());
  dag_hash_ = dag;
}

// Note [Iterative node destruction]
// A trace of n chained ops is a chain of n nodes, each owning the previous one. Dropping the last
// tensor that refers to it would run n nested destructors and overflow the stack for long
// traces. Instead the outermost ~Node on a thread collects operands it holds the last reference
// to into a local list and releases them one at a time; nested ~Node calls only append to it.
// use_count() == 1 is a safe test: a node whose only owner is being destroyed cannot be copied
// concurrently, and a wrong "no" merely releases the operand recursively as before.
Node::~Node() {
  // Non-null inside the outermost ~Node.
  thread_local std::vector<NodePtr>* deferred LAZYGEN_FAST_TLS = nullptr;
  auto defer = [](std::vector<Value>& operands, std::vector<NodePtr>& out) {
    for (Value& v : operands) {
      if (v.node != nullptr && v.node.use_count() == 1) out.push_back(std::move(v.node));
    }
  };
  if (deferred != nullptr) {
    defer(operands_, *deferred);
    return;
  }
  std::vector<NodePtr> local;
  deferred = &local;
  defer(operands_, local);
  while (!local.empty()) {
    NodePtr last = std::move(local.back());
    local.pop_back();
    last.reset();  // may append its own operands to `local`
  }
  deferred = nullptr;
}

std::string Node::to_string() const {
  return std::string(op_kind_class_name(op_)) + "(" + attrs_string() + ")";
}

bool Node::operands_match(const std::vector<Value>& operands) const {
  return operands == operands_;  // Value equality is identity: node pointer and output index
}

}  // namespace lazygen::ir
