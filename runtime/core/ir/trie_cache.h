// The trie cache: IR node reuse across iterations of a traced loop.
//
// Note [Trie cache]
// A training loop traces the same op sequence every step. The trie records that sequence: each
// trie entry holds one IR node and its children are the nodes traced right after it in earlier
// traces. Tracing an op asks the current position for a child of the same kind that
// can_reuse() the op's arguments; a hit returns that very node (no allocation, no hashing) and
// advances; a miss constructs the node, adds it as a new child (a fork when siblings exist) and
// advances. mark_step returns the position to the root, so from the second step on a repeated
// trace returns the same node objects, and a step that diverges grows a sibling branch while
// both branches stay reusable.
//
// Reuse is exact: op kind, attributes bitwise (generated can_reuse) and operands by identity,
// with an absent optional operand never matching a present one. PyTorch's lazy core drops
// absent optional operands from the operand list, so f(x, w, None) and f(x, None, w) both have
// operands (x, w) and the trie returned the first node for the second call (wrong results);
// here absent operands keep their slot. See the TrieCache tests.
//
// Note [Trie reuse of input nodes]
// DeviceData and ScalarParam nodes go through the trie too, matched on shape only and rebound to
// the new data or scalar value (see builtin_nodes.h); otherwise every op consuming them would
// miss from the second step on. Rebinding mutates a node that earlier graphs may reference.
// That is safe because the position only moves down within a trace (no entry is used twice
// before the next reset_position), and reset_position is only called by mark_step after every
// live tensor was synced, so no pending graph still refers to a node from before.
//
// Note [Bounded trie]
// A program whose traces keep changing (other ops, or other shapes with dynamic shapes off: See
// Note [Trie reuse across sizes]) adds a branch per new trace, so the trie would grow for as long
// as it runs. Each entry remembers the last trace that visited it; a visit to an entry visits its
// parent in the same trace, so a parent is never older than its children and "every entry last
// used before trace t" is a set of whole subtrees (an entry's variants remember their own last
// uses, and go one by one as they age). When a trace ends (reset_position) with more
// cached nodes (variants included) than the capacity (set_capacity; LAZYGEN_TRIE_CACHE_SIZE,
// default kDefaultCapacity, shared by every thread's trie), the least recently used subtrees go
// until at most 3/4 of the capacity is left, never the last trace's own entries (when those
// alone exceed the capacity, the next eviction waits until the trie has grown by another quarter
// of it, so that each trace end does not walk the whole trie again). Evicting only drops the
// trie's references: pending graphs own their nodes, and a later trace of an evicted branch
// builds it again (a miss per node).
// Metric: trie_cache.evict (nodes evicted).
//
// Note [Trie reuse across sizes]
// A program whose sizes change (a new batch size, a sequence length) traces the same ops with
// other shapes. Exact reuse fails there (input nodes match on shape; every op after them then
// has other operands), so the trace would grow a new branch per size. Instead, with dynamic
// shapes on (See Note [Dynamic shapes] in backend/graph.h; set_reuse_across_sizes), a probe that
// finds no exact match takes a child of the same kind whose node has the same structure
// (generated same_structure(): every attribute but sizes equal, and each operand either the very
// same value or a value of a node cached at the same trie position, i.e. the same op at other
// sizes: Node::trie_slot). It builds the op's node from the call's own arguments, as a miss
// does, so shapes are inferred (and shape errors raised) with the concrete sizes, and makes it
// that entry's node; the entry keeps its earlier nodes as variants, at most kMaxVariants nodes
// in all, the least recently used dropped. Exact probes try the variants too, so a program that
// moves among up to kMaxVariants sizes (a bucketed sequence length, the short last batch of an
// epoch) hits every node once each size was traced. A position keeps kBaseVariants nodes, and
// one more each time one of its variants is reused: a program whose sizes recur keeps every
// size, while one whose sizes are all new keeps few, each dropped node used only a few traces
// earlier (a node 32 traces old is out of cache: dropping it made a trace at a new size 10%
// slower). The trie thus holds one branch per structure, not per size. Correctness never rests
// on the structural match: a matched node is always either exactly reusable or built from the
// call's arguments; a wrong correspondence could only cost reuse. Metric: trie_cache.resize
// (nodes built at a new size in place of an earlier one).
//
// Note [Operand keys]
// Probing a position's variants one by one would chase each variant's node and operand list
// through memory. Each cached node is instead filed with the operand key of the call that made
// or last reused it: a hash of its operands' identities (node address and output index, in
// argument order; attributes left out). An exact reuse has the very same operands, so only
// nodes with the probe's key are tested with can_reuse, the entry's current node included (at a
// position that moves among sizes the current node is usually another size's, and testing it
// would chase it and its operand list out of cache); the key is a filter, never a reason to
// reuse. The key is computed only when a position has variants, so the warm path (a position
// with one node, reused) costs what it did.
//
// Thread safety: one TrieCache per thread (current()); not shared, except by threads a front end
// binds to one trace context and serializes (Binding; See Note [Trace contexts] in
// core/lazy/trace_context.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/ir/node.h"
#include "lazygen/metrics.h"

namespace lazygen::ir {

class TrieCache {
 public:
  struct Stats {
    int64_t hits = 0;    // nodes reused
    int64_t misses = 0;  // nodes constructed
    int64_t forks = 0;   // misses at a position that already had children
    int64_t resized = 0;  // nodes built at a new size in place of an earlier one
  };

  TrieCache();
  ~TrieCache();
  TrieCache(const TrieCache&) = delete;
  TrieCache& operator=(const TrieCache&) = delete;

  // This thread's cache: the one a Binding installed, else the thread's own.
  static TrieCache& current();

  // Makes `cache` the calling thread's current() until destroyed; bindings nest.
  class Binding {
   public:
    explicit Binding(TrieCache& cache);
    ~Binding();
    Binding(const Binding&) = delete;
    Binding& operator=(const Binding&) = delete;

   private:
    TrieCache* previous_;
  };

  // The child of the current position of kind `kind` whose node, or one of whose variants filed
  // under `key()` (made its node), satisfies `reusable`, after advancing to it; nullptr (and no
  // move) when there is none. `key` returns the call's operand key (See Note [Operand keys]); it
  // is only called for a child that has variants.
  template <class Key, class Reusable>
  const NodePtr* find(OpKind kind, Key&& key, Reusable&& reusable);
  // When reuse_across_sizes(): the first child of kind `kind` whose node satisfies
  // `same_structure` gets the node `make()` returns as its node, filed under `key` (the old one
  // becoming a variant), and the position advances to it; nullptr (no move, make not called)
  // when there is none or reuse across sizes is off. If make throws, nothing changed. See Note
  // [Trie reuse across sizes].
  template <class SameStructure, class Make>
  const NodePtr* resize(OpKind kind, uint64_t key, SameStructure&& same_structure, Make&& make);
  // Adds `node`, filed under `key`, as a child of the current position and advances to it.
  void insert(NodePtr node, uint64_t key);
  // Moves back to the root, ending a trace, and evicts when over capacity (See Note [Bounded
  // trie]). REQUIRES: no live tensor holds a pending value traced since the last reset
  // (mark_step guarantees it). See Note [Trie reuse of input nodes].
  void reset_position();
  // Forgets every cached node and moves to the root. Always safe: pending graphs own their nodes.
  void reset();

  const Stats& stats() const { return stats_; }
  size_t size() const { return size_; }  // cached nodes, variants included

  // Nodes one position keeps: the current one and older variants (See Note [Trie reuse across
  // sizes]): kBaseVariants, and one more for each time it reused a variant, up to kMaxVariants.
  static constexpr size_t kBaseVariants = 4;
  static constexpr size_t kMaxVariants = 32;
  // Structural reuse at new sizes, for every thread's trie (on unless LAZYGEN_DYNAMIC=0; the lazy
  // device's set_dynamic_shapes sets it).
  static void set_reuse_across_sizes(bool on);
  static bool reuse_across_sizes();

  // The most nodes a trie keeps between traces, for every thread's trie (See Note [Bounded
  // trie]). REQUIRES: capacity >= 1.
  static constexpr size_t kDefaultCapacity = size_t{1} << 18;
  static void set_capacity(size_t capacity);
  static size_t capacity();
  bool at_root() const { return current_ == &root_; }
  // The node at the current position. REQUIRES: !at_root().
  const NodePtr& current_node() const { return current_->node; }

 private:
  struct Variant {  // an earlier node of an entry, at other sizes
    NodePtr node;
    uint64_t key = 0;   // its operand key (See Note [Operand keys])
    uint64_t used = 0;  // the last trace that used it
  };
  struct Entry {
    OpKind kind{};
    NodePtr node;                   // the node used last
    uint64_t key = 0;               // node's operand key
    std::vector<Variant> variants;  // in no order
    uint64_t used = 0;              // the last trace that visited it (and used node)
    uint32_t reused = 0;            // times a variant was reused (saturating at kMaxVariants)
    std::vector<std::unique_ptr<Entry>> children;

    size_t nodes() const { return 1 + variants.size(); }
    size_t max_nodes() const { return std::min(kMaxVariants, kBaseVariants + reused); }
    // variants[variant] becomes the node, the node a variant. REQUIRES: before move_to.
    void promote(size_t variant);
    void drop_least_recent_variant();
  };

  void move_to(Entry& entry) {  // the position, and the entry's last use
    current_ = &entry;
    entry.used = trace_;
  }
  const NodePtr* advance(Entry& entry);  // moves to `entry` and counts a hit
  void replace(Entry& entry, NodePtr node, uint64_t key);
  void note_hit();
  size_t destroy_children(Entry& entry);  // the number of entries freed
  void evict();
  // The oldest trace whose entries can stay, so that at most `keep` entries do.
  uint64_t eviction_threshold(size_t keep) const;

  Entry root_;
  Entry* current_ = &root_;
  size_t size_ = 0;
  uint64_t trace_ = 1;        // the trace being recorded
  size_t evict_above_ = 0;    // no eviction before size_ exceeds it (and the capacity)
  Stats stats_;
};

// The metric `lazy.op.<schema name>`, which counts the traced ops of kind `k`.
metrics::Counter& traced_op_counter(OpKind k);

namespace detail {

inline std::vector<Shape> take_shapes(std::vector<Shape> shapes) {
  return shapes;
}
template <class ShapeFn, std::enable_if_t<std::is_invocable_v<ShapeFn&>, int> = 0>
std::vector<Shape> take_shapes(ShapeFn&& fn) {
  return fn();
}

// See Note [Operand keys]: the operands' identities, in order; other arguments are attributes.
inline uint64_t mix_operand(uint64_t h, const Value& v) {
  const auto id = reinterpret_cast<uintptr_t>(v.node.get()) + v.index;
  return (h ^ id) * 0x9e3779b97f4a7c15ULL;
}
template <class Arg>
uint64_t mix_operands(uint64_t h, const Arg& arg) {
  if constexpr (std::is_same_v<Arg, Value>) {
    return mix_operand(h, arg);
  } else if constexpr (std::is_same_v<Arg, std::vector<Value>>) {
    for (const Value& v : arg) h = mix_operand(h, v);
    return h;
  } else {
    return h;
  }
}
template <class... Args>
uint64_t operand_key(const Args&... args) {
  uint64_t h = 0xcbf29ce484222325ULL;
  ((h = mix_operands(h, args)), ...);
  return h;
}

template <class NodeT, class Tuple, size_t... I>
const NodePtr& cached_node_impl(Tuple&& args, std::index_sequence<I...>) {
  TrieCache& trie = TrieCache::current();
  // The operand key, computed once and only when needed (never on the warm path).
  std::optional<uint64_t> memo_key;
  auto key = [&] {
    if (!memo_key) memo_key = operand_key(std::get<I>(args)...);
    return *memo_key;
  };
  const NodePtr* hit = trie.find(NodeT::kKind, key, [&](const Node& n) {
    return static_cast<const NodeT&>(n).can_reuse(std::get<I>(args)...);
  });
  if (!is_input(NodeT::kKind)) {
    static metrics::Counter& traced = traced_op_counter(NodeT::kKind);  // one lookup per class
    traced.add();
  }
  if (hit != nullptr) {
    if constexpr (requires(NodeT & n) { n.rebind(std::get<I>(args)...); }) {
      static_cast<NodeT&>(**hit).rebind(std::get<I>(args)...);
    }
    return *hit;
  }
  constexpr size_t kShapes = sizeof...(I);
  // Called at most once: on a miss, or when the node replaces one of another size.
  auto make = [&] {
    return std::make_shared<NodeT>(std::get<I>(args)...,
                                   take_shapes(std::get<kShapes>(std::move(args))));
  };
  if constexpr (requires(const NodeT& n) { n.same_structure(std::get<I>(args)...); }) {
    const NodePtr* resized = trie.resize(
        NodeT::kKind, key(),
        [&](const Node& n) {
          return static_cast<const NodeT&>(n).same_structure(std::get<I>(args)...);
        },
        make);
    if (resized != nullptr) return *resized;
  }
  trie.insert(make(), key());
  return trie.current_node();
}

}  // namespace detail

// cached_node<NodeT>(args..., shapes): the node for this op at the current trie position,
// reused when a child there (or one of its variants) can_reuse(args...), else
// `std::make_shared<NodeT>(args..., shapes)`, which replaces the node of a child that has its
// same_structure(args...) (when NodeT has one; See Note [Trie reuse across sizes]) or is
// inserted as a new child; either way the position advances to it. The result refers to the
// trie's own pointer (valid until the trie is reset): copy it to keep the node. `shapes` is a
// std::vector<Shape> or a callable returning one; a callable is only invoked on a miss, which
// saves shape inference on the warm path (a hit has identical operands and attributes, so its
// shapes were already checked). See Note [Trie cache].
template <class NodeT, class... Args>
const NodePtr& cached_node(Args&&... args) {
  static_assert(sizeof...(Args) >= 1, "cached_node<NodeT>(args..., shapes)");
  return detail::cached_node_impl<NodeT>(std::forward_as_tuple(std::forward<Args>(args)...),
                                         std::make_index_sequence<sizeof...(Args) - 1>{});
}

template <class Key, class Reusable>
const NodePtr* TrieCache::find(OpKind kind, Key&& key, Reusable&& reusable) {
  for (const std::unique_ptr<Entry>& child : current_->children) {
    if (child->kind != kind) continue;
    if (child->variants.empty()) {
      if (reusable(*child->node)) return advance(*child);
      continue;
    }
    const uint64_t k = key();
    if (child->key == k && reusable(*child->node)) return advance(*child);
    for (size_t j = 0; j < child->variants.size(); ++j) {
      const Variant& v = child->variants[j];
      if (v.key == k && reusable(*v.node)) {
        if (child->reused < kMaxVariants) ++child->reused;
        child->promote(j);
        return advance(*child);
      }
    }
  }
  return nullptr;
}

template <class SameStructure, class Make>
const NodePtr* TrieCache::resize(OpKind kind, uint64_t key, SameStructure&& same_structure,
                                 Make&& make) {
  if (!reuse_across_sizes()) return nullptr;
  for (const std::unique_ptr<Entry>& child : current_->children) {
    if (child->kind == kind && same_structure(*child->node)) {
      replace(*child, make(), key);
      return &child->node;
    }
  }
  return nullptr;
}

inline const NodePtr* TrieCache::advance(Entry& entry) {
  move_to(entry);
  note_hit();
  return &entry.node;
}

inline void TrieCache::note_hit() {
  static metrics::Counter& hits = metrics::counter("trie_cache.hit");
  hits.add();
  ++stats_.hits;
}

}  // namespace lazygen::ir
