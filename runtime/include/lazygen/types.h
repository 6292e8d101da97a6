// Small value types that operator schemas mention besides tensors and scalars: the memory layout
// and format enums, the random-number Generator, a tensor's Storage and an execution Stream.
//
// The generator maps schema types onto these (`Layout?` -> std::optional<Layout>, `Generator?` ->
// std::optional<Generator>, ...). Each one compares with operator== so IR nodes holding them as
// attributes can be reused; hash_value overloads live with the IR hashing (core/ir/hash.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "lazygen/device.h"

namespace lazygen {

enum class Layout : uint8_t { Strided, Sparse };
enum class MemoryFormat : uint8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

// A stream of work on a device; id 0 is the default stream.
struct Stream {
  int64_t id = 0;
  friend bool operator==(const Stream&, const Stream&) = default;
};

// The state of a counter-based Philox4x32-10 generator (Salmon et al., "Parallel random numbers:
// as easy as 1, 2, 3", SC'11): a 64-bit key (the seed) and a 64-bit counter (the offset).
// See Note [Random numbers] in core/tensor/random.cpp for how factories consume it. Equal seeds
// give equal streams on every machine and for any thread count.
// Thread safety: a Generator is a plain value; share one across threads only under a lock (the
// default generator is locked internally by the factories).
class Generator {
 public:
  static constexpr uint64_t kDefaultSeed = 67280421310721ULL;  // PyTorch's default seed

  explicit Generator(uint64_t seed = kDefaultSeed) : seed_(seed) {}
  // Restarts the stream of `seed` from its beginning.
  void manual_seed(uint64_t seed) {
    seed_ = seed;
    offset_ = 0;
  }
  uint64_t seed() const { return seed_; }
  // How many 128-bit Philox blocks have been consumed since seeding.
  uint64_t offset() const { return offset_; }
  // Claims `blocks` consecutive counters and returns the first one.
  uint64_t reserve(uint64_t blocks) {
    uint64_t first = offset_;
    offset_ += blocks;
    return first;
  }
  friend bool operator==(const Generator&, const Generator&) = default;

 private:
  uint64_t seed_;
  uint64_t offset_ = 0;
};

// The process-wide generator used when a factory is given none.
Generator& default_generator();
// Seeds the default generator (like torch.manual_seed).
void manual_seed(uint64_t seed);

// One block of memory holding a tensor's elements; tensors (and views of them) share it through
// std::shared_ptr. A Storage owns its block when it has a deleter and hands it back on
// destruction (cpu blocks go back to the caching allocator, core/tensor/allocator.h); without a
// deleter it merely refers to memory someone else owns (from_blob).
class Storage {
 public:
  // Called with the block's data pointer and its capacity (the allocator's size class).
  using Deleter = void (*)(void* data, std::size_t capacity);

  Storage(void* data, std::size_t nbytes, std::size_t capacity, Device device, Deleter deleter)
      : data_(data), nbytes_(nbytes), capacity_(capacity), device_(device), deleter_(deleter) {}
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  // `nbytes` of 64-byte aligned cpu memory from the caching allocator (null data when 0 bytes).
  static std::shared_ptr<Storage> allocate_cpu(std::size_t nbytes);
  // A non-owning storage over memory the caller keeps alive for as long as any tensor uses it.
  static std::shared_ptr<Storage> wrap(void* data, std::size_t nbytes, Device device = kCPU);

  void* data() const { return data_; }
  std::size_t nbytes() const { return nbytes_; }
  std::size_t capacity() const { return capacity_; }
  Device device() const { return device_; }
  bool owns_data() const { return deleter_ != nullptr; }
  // Storages are compared by identity: two tensors alias iff they share one Storage.
  friend bool operator==(const Storage& a, const Storage& b) { return &a == &b; }

 private:
  void* data_;
  std::size_t nbytes_;
  std::size_t capacity_;
  Device device_;
  Deleter deleter_;
};

}  // namespace lazygen
