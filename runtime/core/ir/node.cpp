// Node and Value (core/ir/node.h): the op-kind name tables built from the generated op list, and
// the two hashes every node computes once at construction. See Note [IR hashing] in hash.h.
#include "core/ir/node.h"

#include <array>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>

#include "core/ir/hash.h"
#include "lazygen/metrics.h"
#include "lazygen/tls.h"

namespace lazygen::ir {
namespace {

constexpr const char* kOpNames[] = {
#define LAZYGEN_OP(op_id, schema_name, ClassName) schema_name,
#include "lazygen/generated/op_list.inc"
#undef LAZYGEN_OP
    "device_data",
    "scalar_param",
};

constexpr const char* kClassNames[] = {
#define LAZYGEN_OP(op_id, schema_name, ClassName) #ClassName,
#include "lazygen/generated/op_list.inc"
#undef LAZYGEN_OP
    "DeviceData",
    "ScalarParam",
};

static_assert(std::size(kOpNames) == static_cast<size_t>(OpKind::kNumOpKinds));
static_assert(std::size(kClassNames) == static_cast<size_t>(OpKind::kNumOpKinds));

constexpr auto kNumGenerated = static_cast<size_t>(OpKind::kNumOpKinds);

// Kinds registered at run time. Entries are written once, under the lock, before `count`
// publishes them, so readers need no lock.
struct ExtensionKinds {
  std::mutex mutex;
  std::array<std::string, kMaxExtensionOpKinds> names;
  std::array<std::string, kMaxExtensionOpKinds> class_names;
  std::atomic<size_t> count{0};
};

ExtensionKinds& extension_kinds() {
  static ExtensionKinds* kinds = new ExtensionKinds;  // leaked: names outlive static destructors
  return *kinds;
}

// Stands for an absent optional operand in dag hashes.
constexpr hash_t kAbsentValueHash = 0x6a09e667f3bcc908ULL;

const char* lookup(const char* const* table, bool class_name, OpKind k) {
  auto i = static_cast<size_t>(k);
  if (i < kNumGenerated) return table[i];
  ExtensionKinds& ext = extension_kinds();
  size_t e = i - kNumGenerated - 1;  // kNumOpKinds itself names nothing
  if (i == kNumGenerated || e >= ext.count.load(std::memory_order_acquire)) {
    throw std::out_of_range("invalid OpKind " + std::to_string(i));
  }
  return (class_name ? ext.class_names[e] : ext.names[e]).c_str();
}

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
  return lookup(kOpNames, false, k);
}
const char* op_kind_class_name(OpKind k) {
  return lookup(kClassNames, true, k);
}

OpKind register_op_kind(const char* name, const char* class_name) {
  ExtensionKinds& ext = extension_kinds();
  std::lock_guard<std::mutex> lock(ext.mutex);
  size_t e = ext.count.load(std::memory_order_relaxed);
  if (e == kMaxExtensionOpKinds) {
    throw std::length_error("register_op_kind: more than " + std::to_string(kMaxExtensionOpKinds) +
                            " extension op kinds");
  }
  ext.names[e] = name;
  ext.class_names[e] = class_name;
  ext.count.store(e + 1, std::memory_order_release);
  return static_cast<OpKind>(kNumGenerated + 1 + e);
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
