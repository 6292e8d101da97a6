// LruCache: a bounded map that forgets its least recently used entry when full.
//
// get, add and erase are O(1) (a hash map into a recency list). Values are shared_ptrs so a
// caller may keep using a value after it was evicted. Capacity 0 stores nothing. Entries may
// also weigh something (bytes, say): the cache then keeps its total weight within a second
// bound too, evicting least recently used entries, but never the one just added (an entry
// heavier than the bound alone stays until the next add).
// Used by the executor's computation cache (key: graph hash); generic so other caches (kernels)
// can reuse it.
// Thread safety: every method locks; the cache may be shared across threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace lazygen::exec {

template <class Key, class Value, class Hash = std::hash<Key>>
class LruCache {
 public:
  static constexpr size_t kUnbounded = SIZE_MAX;
  explicit LruCache(size_t capacity, size_t weight_capacity = kUnbounded)
      : capacity_(capacity), weight_capacity_(weight_capacity) {}

  // The value of `key`, now the most recently used; null when absent.
  std::shared_ptr<Value> get(const Key& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return it->second->value;
  }

  // Inserts (or replaces) `key` as the most recently used entry, weighing `weight`. Returns how
  // many entries were evicted to stay within the capacities.
  size_t add(Key key, std::shared_ptr<Value> value, size_t weight = 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = index_.find(key); it != index_.end()) {
      weight_ -= it->second->weight;
      it->second->value = std::move(value);
      it->second->weight = weight;
      weight_ += weight;
      order_.splice(order_.begin(), order_, it->second);
      return shrink_locked();
    }
    order_.push_front(Entry{key, std::move(value), weight});
    index_.emplace(std::move(key), order_.begin());
    weight_ += weight;
    return shrink_locked();
  }

  // Removes `key`; false when it was absent.
  bool erase(const Key& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    weight_ -= it->second->weight;
    order_.erase(it->second);
    index_.erase(it);
    return true;
  }

  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    index_.clear();
    order_.clear();
    weight_ = 0;
  }

  // Changes the capacities, evicting least recently used entries as needed; returns how many.
  size_t set_capacity(size_t capacity, size_t weight_capacity = kUnbounded) {
    std::lock_guard<std::mutex> lock(mutex_);
    capacity_ = capacity;
    weight_capacity_ = weight_capacity;
    return shrink_locked();
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return index_.size();
  }
  size_t capacity() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return capacity_;
  }
  // The entries' total weight.
  size_t weight() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return weight_;
  }

 private:
  struct Entry {
    Key key;
    std::shared_ptr<Value> value;
    size_t weight = 0;
  };

  size_t shrink_locked() {
    size_t evicted = 0;
    while (index_.size() > capacity_ || (weight_ > weight_capacity_ && index_.size() > 1)) {
      weight_ -= order_.back().weight;
      index_.erase(order_.back().key);
      order_.pop_back();
      ++evicted;
    }
    return evicted;
  }

  mutable std::mutex mutex_;
  size_t capacity_;
  size_t weight_capacity_;
  size_t weight_ = 0;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<Key, typename std::list<Entry>::iterator, Hash> index_;
};

}  // namespace lazygen::exec
