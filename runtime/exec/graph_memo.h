// GraphMemo: the graphs of the last few syncs, found again by the identity of their roots.
//
// Note [Graph memo]
// A training loop syncs the same roots every step: the trie cache hands back the same node
// objects (Note [Trie cache]), so the roots of step N+1 are the very nodes of step N. Nodes are
// immutable apart from the input rebinding of Note [Trie reuse of input nodes], which keeps
// shapes and dtypes; so equal roots (same node objects, same output indexes, same order) mean an
// equal graph, and the post-order, positions, hash and computation-cache entry of the earlier
// sync serve again as they are. Building a 100-node Graph costs ~10 us; this lookup well under
// one. The memo holds its graphs, and so their nodes, alive: that is what makes pointer identity
// sound (a remembered node cannot be freed and its address reused by a different node).
//
// Bounded: kCapacity entries, most recently used first: at least as many as the sizes a trie
// position keeps (ir::TrieCache::kMaxVariants; checked in graph_executor.cpp), so that a loop
// moving among that many sizes finds each size's graph again as it finds each size's nodes.
// Payload: what the executor keeps beside the graph (its computation-cache key and entry; the
// executor honours the cache's evictions by using a memo entry only while the cache still holds
// it). Thread safety: none; the executor's lock guards it.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "backend/graph.h"

namespace lazygen::exec {

template <class Payload>
class GraphMemo {
 public:
  static constexpr size_t kCapacity = 32;

  struct Entry {
    std::shared_ptr<const Graph> graph;
    Payload payload;
  };

  // The entry whose graph has exactly these roots (moved to the front), or nullptr.
  const Entry* find(const std::vector<ir::Value>& roots) {
    for (size_t k = 0; k < entries_.size(); ++k) {
      if (!same_roots(entries_[k].graph->roots(), roots)) continue;
      if (k != 0) {
        Entry hit = std::move(entries_[k]);
        entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(k));
        entries_.insert(entries_.begin(), std::move(hit));
      }
      return &entries_.front();
    }
    return nullptr;
  }

  // Remembers `entry` first, forgetting the least recently used beyond kCapacity.
  const Entry& add(Entry entry) {
    entries_.insert(entries_.begin(), std::move(entry));
    if (entries_.size() > kCapacity) entries_.pop_back();
    return entries_.front();
  }

  // Forgets the entry find() just returned.
  void erase_front() { entries_.erase(entries_.begin()); }
  void clear() { entries_.clear(); }
  size_t size() const { return entries_.size(); }

 private:
  static bool same_roots(const std::vector<ir::Value>& a, const std::vector<ir::Value>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].node.get() != b[i].node.get() || a[i].index != b[i].index) return false;
    }
    return true;
  }

  std::vector<Entry> entries_;
};

}  // namespace lazygen::exec
