// TrieCache (core/ir/trie_cache.h): per-thread instances, insertion, and teardown that stays
// iterative however long the recorded traces are.
#include "core/ir/trie_cache.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/env_flag.h"
#include "lazygen/tls.h"

namespace lazygen::ir {

TrieCache::TrieCache() = default;

TrieCache::~TrieCache() {
  destroy_children(root_);
}

namespace {
thread_local TrieCache* t_bound LAZYGEN_FAST_TLS = nullptr;

size_t capacity_from_env() {
  const char* env = std::getenv("LAZYGEN_TRIE_CACHE_SIZE");
  if (env == nullptr) return TrieCache::kDefaultCapacity;
  const long long n = std::atoll(env);
  return n >= 1 ? static_cast<size_t>(n) : TrieCache::kDefaultCapacity;
}

std::atomic<size_t>& capacity_slot() {
  static std::atomic<size_t> capacity{capacity_from_env()};
  return capacity;
}

// LAZYGEN_DYNAMIC=0 turns it off with the executor's dynamic shapes (Note [Dynamic shapes]).
std::atomic<bool> g_reuse_across_sizes{env_flag_on("LAZYGEN_DYNAMIC")};
}  // namespace

void TrieCache::set_reuse_across_sizes(bool on) {
  g_reuse_across_sizes.store(on, std::memory_order_relaxed);
}

bool TrieCache::reuse_across_sizes() {
  return g_reuse_across_sizes.load(std::memory_order_relaxed);
}

void TrieCache::Entry::promote(size_t variant) {
  Variant& chosen = variants[variant];
  std::swap(node, chosen.node);
  std::swap(key, chosen.key);
  chosen.used = used;  // the demoted node was last used when the entry was
}

// The oldest use is kept in a register: std::min_element reloads the best element's field at
// every step, a chain of loads that cost more than the rest of the drop.
void TrieCache::Entry::drop_least_recent_variant() {
  size_t oldest = 0;
  uint64_t oldest_use = variants[0].used;
  for (size_t j = 1; j < variants.size(); ++j) {
    if (variants[j].used < oldest_use) {
      oldest_use = variants[j].used;
      oldest = j;
    }
  }
  variants[oldest] = std::move(variants.back());
  variants.pop_back();
}

// See Note [Trie reuse across sizes].
void TrieCache::replace(Entry& entry, NodePtr node, uint64_t key) {
  static metrics::Counter& resized = metrics::counter("trie_cache.resize");
  resized.add();
  ++stats_.resized;
  node->set_trie_slot(&entry);
  entry.variants.push_back(Variant{std::move(entry.node), entry.key, entry.used});
  entry.node = std::move(node);
  entry.key = key;
  if (entry.nodes() > entry.max_nodes()) {
    entry.drop_least_recent_variant();
  } else {
    ++size_;
  }
  move_to(entry);
}

void TrieCache::set_capacity(size_t capacity) {
  if (capacity < 1) throw std::invalid_argument("trie cache capacity must be at least 1");
  capacity_slot().store(capacity);
}

size_t TrieCache::capacity() { return capacity_slot().load(); }

TrieCache& TrieCache::current() {
  if (t_bound != nullptr) return *t_bound;
  thread_local TrieCache cache;
  return cache;
}

TrieCache::Binding::Binding(TrieCache& cache) : previous_(t_bound) {
  t_bound = &cache;
}

TrieCache::Binding::~Binding() {
  t_bound = previous_;
}

void TrieCache::insert(NodePtr node, uint64_t key) {
  static metrics::Counter& misses = metrics::counter("trie_cache.miss");
  static metrics::Counter& forks = metrics::counter("trie_cache.fork");
  misses.add();
  ++stats_.misses;
  if (!current_->children.empty()) {
    forks.add();
    ++stats_.forks;
  }
  auto entry = std::make_unique<Entry>();
  node->set_trie_slot(entry.get());
  entry->kind = node->op();
  entry->node = std::move(node);
  entry->key = key;
  current_->children.push_back(std::move(entry));
  move_to(*current_->children.back());
  ++size_;
}

void TrieCache::reset_position() {
  current_ = &root_;
  if (size_ > std::max(capacity(), evict_above_)) evict();
  ++trace_;
}

// See Note [Bounded trie]. The oldest trace whose entries, with every newer trace's, number at
// most `keep` (the last trace's entries always stay): one linear selection over the entries'
// last uses. An entry of the (keep + 1)-th newest use splits its trace, which therefore goes.
uint64_t TrieCache::eviction_threshold(size_t keep) const {
  std::vector<uint64_t> used;
  used.reserve(size_);
  std::vector<const Entry*> stack = {&root_};
  while (!stack.empty()) {
    const Entry* e = stack.back();
    stack.pop_back();
    for (const auto& child : e->children) {
      used.push_back(child->used);  // its node's
      for (const Variant& v : child->variants) used.push_back(v.used);
      stack.push_back(child.get());
    }
  }
  if (used.size() <= keep) return 0;
  std::nth_element(used.begin(), used.begin() + static_cast<std::ptrdiff_t>(keep), used.end(),
                   std::greater<>());
  return std::min(used[keep] + 1, trace_);
}

void TrieCache::evict() {
  static metrics::Counter& evicted = metrics::counter("trie_cache.evict");
  const uint64_t threshold = eviction_threshold(capacity() - capacity() / 4);
  const size_t before = size_;
  std::vector<Entry*> stack = {&root_};
  while (!stack.empty()) {
    Entry* e = stack.back();
    stack.pop_back();
    auto old = std::stable_partition(e->children.begin(), e->children.end(),
                                     [&](const auto& child) { return child->used >= threshold; });
    for (auto it = old; it != e->children.end(); ++it) {
      size_ -= (*it)->nodes() + destroy_children(**it);
    }
    e->children.erase(old, e->children.end());
    for (const auto& child : e->children) {
      std::vector<Variant>& vs = child->variants;
      const auto gone = std::remove_if(vs.begin(), vs.end(),
                                       [&](const Variant& v) { return v.used < threshold; });
      size_ -= static_cast<size_t>(vs.end() - gone);
      vs.erase(gone, vs.end());
      stack.push_back(child.get());
    }
  }
  evicted.add(static_cast<int64_t>(before - size_));
  evict_above_ = size_ + capacity() / 4;
}

void TrieCache::reset() {
  destroy_children(root_);
  current_ = &root_;
  size_ = 0;
  evict_above_ = 0;
}

// Entries are collected breadth-first into one list and freed from its end, so that freeing a
// deep trie never recurses once per level (each Entry owns its children). Returns how many
// nodes (variants included) it freed.
size_t TrieCache::destroy_children(Entry& entry) {
  std::vector<std::unique_ptr<Entry>> order;
  for (auto& child : entry.children) order.push_back(std::move(child));
  entry.children.clear();
  size_t freed = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    for (auto& child : order[i]->children) order.push_back(std::move(child));
    order[i]->children.clear();
    freed += order[i]->nodes();
  }
  while (!order.empty()) order.pop_back();
  return freed;
}

metrics::Counter& traced_op_counter(OpKind k) {
  return metrics::counter(std::string("lazy.op.") + op_kind_name(k));
}

}  // namespace lazygen::ir
