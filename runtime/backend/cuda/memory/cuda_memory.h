// The CUDA runtime as the rest of the CUDA backend uses it: error checking, the device query
// behind lazygen/cuda.h, the process-wide caching device allocator over cudaMalloc, device
// storages, and host<->device copies.
//
// All eager work goes to the legacy default stream (stream 0), so kernels and cudaMemcpy calls
// run in issue order and a device-to-host copy returns finished data.
// Thread safety: all functions may be called concurrently.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>

#include "backend/cuda/memory/device_allocator.h"
#include "lazygen/device.h"
#include "lazygen/types.h"

namespace lazygen::cuda {

// "cudaErrorInvalidValue (invalid argument)".
std::string error_text(cudaError_t err);
// Throws std::runtime_error "<what>: <error_text>" unless err is cudaSuccess.
void check(cudaError_t err, const char* what);

// Throws std::runtime_error unless `device` is a usable CUDA device: "no CUDA device: ..." (see
// unavailable_reason()) or "cuda:3 is not available: 1 CUDA device visible". Returns its index.
int require_device(Device device);

// The stream eager kernels and copies are queued on.
inline cudaStream_t current_stream() {
  return nullptr;
}

// Makes `device` current for the guard's lifetime (cudaSetDevice), restoring the previous one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

// The process-wide caching allocator over cudaMalloc/cudaFree. Never destroyed: storages freed
// during static destruction stay valid and no cudaFree runs after the runtime has unloaded.
DeviceCachingAllocator& device_allocator();

// `nbytes` of memory on `device` (null data for 0 bytes), handed back to device_allocator()
// when the last tensor using it goes. Throws as require_device(), or DeviceOutOfMemory.
std::shared_ptr<Storage> allocate_storage(std::size_t nbytes, Device device);

// Synchronous copies of `nbytes` (cudaMemcpy on the default stream).
void copy_to_host(void* dst, const void* src, std::size_t nbytes);
void copy_to_device(void* dst, const void* src, std::size_t nbytes);
void copy_on_device(void* dst, const void* src, std::size_t nbytes);

}  // namespace lazygen::cuda
