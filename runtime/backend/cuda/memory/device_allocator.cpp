// The caching device allocator of device_allocator.h.
#include "backend/cuda/memory/device_allocator.h"

#include <bit>
#include <string>

namespace lazygen::cuda {

// Note [Stream-ordered reuse]
// A block belongs to the stream it was allocated for, and a released block is only handed out
// again to that stream: work queued on one stream runs in order, so a later kernel on the same
// stream cannot overtake the last use of the block, and no event or synchronization is needed.
// Handing it to another stream would need an event recorded at release (PyTorch's
// record_stream); callers that use a block on a second stream must synchronize that stream before
// releasing the block. Blocks only go back to the provider after the device is synchronized.

namespace {

constexpr std::size_t kSmallStep = 512;
constexpr std::size_t kSmallLimit = std::size_t{1} << 20;

std::string mib(uint64_t bytes) {
  return std::to_string(bytes / (1024 * 1024)) + " MiB";
}

}  // namespace

std::size_t DeviceCachingAllocator::size_class(std::size_t nbytes) {
  if (nbytes <= kSmallLimit) return (nbytes + kSmallStep - 1) / kSmallStep * kSmallStep;
  const std::size_t power = std::bit_floor(nbytes);  // 2^k <= nbytes < 2^(k+1)
  const std::size_t step = power / 4;
  return (nbytes + step - 1) / step * step;
}

DeviceCachingAllocator::~DeviceCachingAllocator() {
  empty_cache();
}

void* DeviceCachingAllocator::take_cached(const FreeKey& key) {
  auto it = free_lists_.find(key);
  if (it == free_lists_.end() || it->second.empty()) return nullptr;
  void* ptr = it->second.back();
  it->second.pop_back();
  stats_.bytes_cached -= std::get<2>(key);
  return ptr;
}

void* DeviceCachingAllocator::allocate_new(int device, std::size_t capacity) {
  void* ptr = raw_.allocate(device, capacity);
  if (ptr != nullptr) return ptr;
  ++stats_.oom_retries;
  free_cached(device);
  ptr = raw_.allocate(device, capacity);
  if (ptr != nullptr) return ptr;
  throw DeviceOutOfMemory("CUDA out of memory on cuda:" + std::to_string(device) +
                          ": tried to allocate " + std::to_string(capacity) + " bytes (" +
                          mib(capacity) + "); " + mib(stats_.bytes_in_use) +
                          " in use by tensors, cache emptied");
}

void* DeviceCachingAllocator::allocate(int device, std::size_t nbytes, StreamId stream) {
  if (nbytes == 0) return nullptr;
  const std::size_t capacity = size_class(nbytes);
  std::lock_guard<std::mutex> lock(mutex_);
  void* ptr = take_cached({device, stream, capacity});
  if (ptr != nullptr) {
    ++stats_.hits;
  } else {
    ptr = allocate_new(device, capacity);
    ++stats_.misses;
  }
  in_use_.emplace(ptr, InUse{device, capacity, stream});
  stats_.bytes_in_use += capacity;
  if (stats_.bytes_in_use > stats_.peak_bytes_in_use) {
    stats_.peak_bytes_in_use = stats_.bytes_in_use;
  }
  return ptr;
}

void DeviceCachingAllocator::release(void* ptr) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = in_use_.find(ptr);
  if (it == in_use_.end()) {
    throw std::invalid_argument("DeviceCachingAllocator::release: pointer was not allocated here");
  }
  const InUse block = it->second;
  in_use_.erase(it);
  free_lists_[{block.device, block.stream, block.capacity}].push_back(ptr);
  ++stats_.releases;
  stats_.bytes_in_use -= block.capacity;
  stats_.bytes_cached += block.capacity;
}

std::size_t DeviceCachingAllocator::capacity(void* ptr) const {
  if (ptr == nullptr) return 0;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = in_use_.find(ptr);
  return it == in_use_.end() ? 0 : it->second.capacity;
}

void DeviceCachingAllocator::free_cached(int device) {
  bool synced = false;
  for (auto& [key, blocks] : free_lists_) {
    if (std::get<0>(key) != device || blocks.empty()) continue;
    if (!synced) raw_.synchronize(device);
    synced = true;
    for (void* ptr : blocks) raw_.free(device, ptr);
    stats_.bytes_cached -= std::get<2>(key) * blocks.size();
    blocks.clear();
  }
}

void DeviceCachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<int> devices;  // free_lists_ is ordered by device first
  for (const auto& [key, blocks] : free_lists_) {
    const int device = std::get<0>(key);
    if (!blocks.empty() && (devices.empty() || devices.back() != device)) devices.push_back(device);
  }
  for (int device : devices) free_cached(device);
}

DeviceAllocatorStats DeviceCachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void DeviceCachingAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peak_bytes_in_use = stats_.bytes_in_use;
}

}  // namespace lazygen::cuda
