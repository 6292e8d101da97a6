// LruCache: a bounded map that forgets its least recently used entry when full.
//
// get, add and erase are O(1) (a hash map into a recency list). Values are shared_ptrs so a
// caller may keep using a value after it was evicted. Capacity 0 stores nothing.
// Used by the executor's computation cache (key: graph hash); generic so other caches (kernels)
// can reuse it.
// Thread safety: every method locks; the cache may be shared across threads.
#pragma once

#include <cstddef>
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
  explicit LruCache(size_t capacity) : capacity_(capacity) {}

  // The value of `key`, now the most recently used; null when absent.
  std::shared_ptr<Value> get(const Key& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return it->second->second;
  }

  // Inserts (or replaces) `key` as the most recently used entry. Returns how many entries were
  // evicted to stay within capacity.
  size_t add(Key key, std::shared_ptr<Value> value) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = index_.find(key); it != index_.end()) {
      it->second->second = std::move(value);
      order_.splice(order_.begin(), order_, it->second);
      return 0;
    }
    order_.emplace_front(key, std::move(value));
    index_.emplace(std::move(key), order_.begin());
    return shrink_locked();
  }

  // Removes `key`; false when it was absent.
  bool erase(const Key& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    order_.erase(it->second);
    index_.erase(it);
    return true;
  }

  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    index_.clear();
    order_.clear();
  }

  // Changes the capacity, evicting least recently used entries as needed; returns how many.
  size_t set_capacity(size_t capacity) {
    std::lock_guard<std::mutex> lock(mutex_);
    capacity_ = capacity;
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

 private:
  size_t shrink_locked() {
    size_t evicted = 0;
    while (index_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
      ++evicted;
    }
    return evicted;
  }

  mutable std::mutex mutex_;
  size_t capacity_;
  std::list<std::pair<Key, std::shared_ptr<Value>>> order_;  // most recently used first
  std::unordered_map<Key, typename std::list<std::pair<Key, std::shared_ptr<Value>>>::iterator,
                     Hash>
      index_;
};

}  // namespace lazygen::exec
