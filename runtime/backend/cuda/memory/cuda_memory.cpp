// The CUDA runtime wrappers, device query and device memory of cuda_memory.h.
#include "backend/cuda/memory/cuda_memory.h"

#include <mutex>
#include <stdexcept>

#include "lazygen/cuda.h"

namespace lazygen::cuda {
namespace {

struct DeviceQuery {
  int count = 0;
  std::string reason;  // why count is 0
};

// Asked once: cudaGetDeviceCount is safe without a driver (it returns an error, never crashes).
const DeviceQuery& device_query() {
  static const DeviceQuery query = [] {
    DeviceQuery q;
    const cudaError_t err = cudaGetDeviceCount(&q.count);
    if (err != cudaSuccess) {
      q.count = 0;
      q.reason = "no CUDA device: cudaGetDeviceCount returned " + error_text(err);
      cudaGetLastError();  // the error is sticky for the calling thread otherwise
    } else if (q.count == 0) {
      q.reason = "no CUDA device: cudaGetDeviceCount found 0 devices";
    }
    return q;
  }();
  return query;
}

class CudaMalloc final : public RawDeviceMemory {
 public:
  void* allocate(int device, std::size_t bytes) override {
    DeviceGuard guard(device);
    void* ptr = nullptr;
    const cudaError_t err = cudaMalloc(&ptr, bytes);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      return nullptr;
    }
    check(err, "cudaMalloc");
    return ptr;
  }
  void free(int device, void* ptr) override {
    DeviceGuard guard(device);
    check(cudaFree(ptr), "cudaFree");
  }
  void synchronize(int device) override {
    DeviceGuard guard(device);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
};

void release_block(void* data, std::size_t /*capacity*/) {
  device_allocator().release(data);
}

}  // namespace

std::string error_text(cudaError_t err) {
  return std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")";
}

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + error_text(err));
}

int device_count() {
  return device_query().count;
}

std::string unavailable_reason() {
  return device_query().reason;
}

int require_device(Device device) {
  if (!device.is_cuda()) throw std::invalid_argument(device.str() + " is not a CUDA device");
  const DeviceQuery& q = device_query();
  if (q.count == 0) throw std::runtime_error(q.reason);
  if (device.index >= q.count) {
    throw std::runtime_error(device.str() + " is not available: " + std::to_string(q.count) +
                             " CUDA device" + (q.count == 1 ? "" : "s") + " visible");
  }
  return device.index;
}

DeviceGuard::DeviceGuard(int device) {
  check(cudaGetDevice(&previous_), "cudaGetDevice");
  if (previous_ != device) check(cudaSetDevice(device), "cudaSetDevice");
}

DeviceGuard::~DeviceGuard() {
  int now = -1;
  if (cudaGetDevice(&now) == cudaSuccess && now != previous_) cudaSetDevice(previous_);
}

DeviceCachingAllocator& device_allocator() {
  static auto* raw = new CudaMalloc();
  static auto* allocator = new DeviceCachingAllocator(*raw);
  return *allocator;
}

std::shared_ptr<Storage> allocate_storage(std::size_t nbytes, Device device) {
  const int index = require_device(device);
  void* data = device_allocator().allocate(index, nbytes, StreamId{0});
  const std::size_t capacity = DeviceCachingAllocator::size_class(nbytes);
  return std::make_shared<Storage>(data, nbytes, capacity, device, &release_block);
}

void copy_to_host(void* dst, const void* src, std::size_t nbytes) {
  if (nbytes > 0) check(cudaMemcpy(dst, src, nbytes, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
}

void copy_to_device(void* dst, const void* src, std::size_t nbytes) {
  if (nbytes > 0)
    check(cudaMemcpy(dst, src, nbytes, cudaMemcpyHostToDevice), "cudaMemcpy to device");
}

void copy_on_device(void* dst, const void* src, std::size_t nbytes) {
  if (nbytes > 0) {
    check(cudaMemcpy(dst, src, nbytes, cudaMemcpyDeviceToDevice), "cudaMemcpy on device");
  }
}

void synchronize() {
  for (int d = 0; d < device_count(); ++d) {
    DeviceGuard guard(d);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
}

MemoryStats memory_stats() {
  const DeviceAllocatorStats s = device_allocator().stats();
  return MemoryStats{s.hits, s.misses, s.bytes_in_use, s.peak_bytes_in_use, s.bytes_cached};
}

void reset_peak_memory() {
  device_allocator().reset_peak();
}

void empty_cache() {
  device_allocator().empty_cache();
}

}  // namespace lazygen::cuda
