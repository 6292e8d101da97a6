// Storage: one block of tensor memory shared by a tensor and its views (lazygen/types.h).
#include <memory>

#include "core/tensor/allocator.h"
#include "lazygen/types.h"

namespace lazygen {

Storage::~Storage() {
  if (deleter_ != nullptr) deleter_(data_, capacity_);
}

std::shared_ptr<Storage> Storage::allocate_cpu(std::size_t nbytes) {
  const auto block = cpu_allocator().allocate(nbytes);
  auto deleter = [](void* data, std::size_t capacity) { cpu_allocator().release(data, capacity); };
  return std::make_shared<Storage>(block.data, nbytes, block.capacity, kCPU, deleter);
}

std::shared_ptr<Storage> Storage::wrap(void* data, std::size_t nbytes, Device device) {
  return std::make_shared<Storage>(data, nbytes, nbytes, device, nullptr);
}

}  // namespace lazygen
