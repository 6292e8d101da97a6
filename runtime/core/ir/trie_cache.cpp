// TrieCache (core/ir/trie_cache.h): per-thread instances, insertion, and teardown that stays
// iterative however long the recorded traces are.
#include "core/ir/trie_cache.h"

#include <array>
#include <atomic>
#include <stdexcept>
#include <string>

namespace lazygen::ir {

TrieCache::TrieCache() = default;

TrieCache::~TrieCache() {
  destroy_children(root_);
}

namespace {
thread_local TrieCache* t_bound = nullptr;
}  // namespace

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

void TrieCache::insert(NodePtr node) {
  static metrics::Counter& misses = metrics::counter("trie_cache.miss");
  static metrics::Counter& forks = metrics::counter("trie_cache.fork");
  misses.add();
  ++stats_.misses;
  if (!current_->children.empty()) {
    forks.add();
    ++stats_.forks;
  }
  auto entry = std::make_unique<Entry>();
  entry->kind = node->op();
  entry->node = std::move(node);
  current_->children.push_back(std::move(entry));
  current_ = current_->children.back().get();
  ++size_;
}

void TrieCache::reset_position() {
  current_ = &root_;
}

void TrieCache::reset() {
  destroy_children(root_);
  current_ = &root_;
  size_ = 0;
}

// Entries are collected breadth-first into one list and freed from its end, so that freeing a
// deep trie never recurses once per level (each Entry owns its children).
void TrieCache::destroy_children(Entry& entry) {
  std::vector<std::unique_ptr<Entry>> order;
  for (auto& child : entry.children) order.push_back(std::move(child));
  entry.children.clear();
  for (size_t i = 0; i < order.size(); ++i) {
    for (auto& child : order[i]->children) order.push_back(std::move(child));
    order[i]->children.clear();
  }
  while (!order.empty()) order.pop_back();
}

void count_traced_op(OpKind k) {
  // One slot per generated and extension kind, filled on first use. Two threads racing to fill
  // a slot store the same counter (metrics::counter returns one object per name).
  constexpr size_t kSlots = static_cast<size_t>(OpKind::kNumOpKinds) + 1 + kMaxExtensionOpKinds;
  static std::array<std::atomic<metrics::Counter*>, kSlots> slots{};
  auto i = static_cast<size_t>(k);
  if (i >= kSlots) throw std::out_of_range("invalid OpKind " + std::to_string(i));
  metrics::Counter* c = slots[i].load(std::memory_order_acquire);
  if (c == nullptr) {
    c = &metrics::counter(std::string("lazy.op.") + op_kind_name(k));
    slots[i].store(c, std::memory_order_release);
  }
  c->add();
}

}  // namespace lazygen::ir
