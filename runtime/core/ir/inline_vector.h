// InlineVector<T, N>: a sequence that holds up to N elements inside itself and more on the heap.
//
// A node's operands and output shapes live in it (core/ir/node.h), so that the trie cache's
// reuse test and a new tensor's shape read a node's own cache lines instead of two more heap
// blocks, and a node built at a new size makes two allocations fewer (See Note [Node layout] in
// node.h). Only what nodes need: construction from a list or a std::vector, push_back, moves,
// contiguous access. Elements are default-constructed in the inline slots, so T must be cheap to
// default-construct and to move (Value, Shape).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace lazygen::ir {

template <class T, size_t N>
class InlineVector {
 public:
  InlineVector() = default;
  InlineVector(std::initializer_list<T> init) {
    reserve(init.size());
    for (const T& x : init) push_back(x);
  }
  InlineVector(std::vector<T>&& v) {  // NOLINT: implicit, so std::vector callers keep working
    reserve(v.size());
    for (T& x : v) push_back(std::move(x));
  }
  InlineVector(InlineVector&& other) noexcept { take(std::move(other)); }
  InlineVector& operator=(InlineVector&& other) noexcept {
    if (this != &other) {
      clear();
      take(std::move(other));
    }
    return *this;
  }
  InlineVector(const InlineVector&) = delete;
  InlineVector& operator=(const InlineVector&) = delete;
  ~InlineVector() = default;

  // Makes room for `n` elements; moves them to the heap when n > N.
  void reserve(size_t n) {
    if (n <= capacity_) return;
    auto grown = std::make_unique<T[]>(n);
    for (uint32_t i = 0; i < size_; ++i) grown[i] = std::move(data()[i]);
    heap_ = std::move(grown);
    capacity_ = static_cast<uint32_t>(n);
  }
  void push_back(T x) {
    if (size_ == capacity_) reserve(size_t{capacity_} * 2);
    data()[size_++] = std::move(x);
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return heap_ != nullptr ? heap_.get() : inline_.data(); }
  const T* data() const { return heap_ != nullptr ? heap_.get() : inline_.data(); }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  const T& operator[](size_t i) const { return data()[i]; }
  // Throws std::out_of_range for i >= size().
  const T& at(size_t i) const {
    if (i >= size_) throw std::out_of_range("InlineVector::at: index out of range");
    return data()[i];
  }
  std::span<const T> span() const { return {data(), size_}; }

 private:
  void clear() {
    for (T& x : *this) x = T();
    heap_.reset();
    size_ = 0;
    capacity_ = N;
  }
  // REQUIRES: *this is empty with inline capacity.
  void take(InlineVector&& other) {
    size_ = other.size_;
    if (other.heap_ != nullptr) {
      heap_ = std::move(other.heap_);
      capacity_ = other.capacity_;
      other.size_ = 0;
      other.capacity_ = N;
    } else {
      for (uint32_t i = 0; i < other.size_; ++i) inline_[i] = std::move(other.inline_[i]);
      other.clear();
    }
  }

  uint32_t size_ = 0;
  uint32_t capacity_ = N;
  std::array<T, N> inline_{};
  std::unique_ptr<T[]> heap_;
};

}  // namespace lazygen::ir
