// The CUDA device as a program sees it: whether there is one, why not, and its memory.
//
// Tensors move to a GPU with `t.to(Device("cuda"))` (or `Device("cuda:1")`) and back with
// `t.cpu()`; pointwise ops, mm/addmm/bmm and sum/mean run on the device (see docs/cuda.md, "CUDA
// tensors"). Defined by the lazygen_cuda library: runtime/backend/cuda/ when lazygen is built
// with the CUDA toolkit, runtime/backend/no_cuda/ (no device, ever) otherwise.
// Thread safety: all functions may be called concurrently.
#pragma once

#include <cstdint>
#include <string>

namespace lazygen::cuda {

// Visible CUDA devices; 0 when there is no device, no driver, or lazygen was built without CUDA.
// The answer is asked once per process and then cached.
int device_count();
inline bool is_available() {
  return device_count() > 0;
}
// Why no device can be used ("" when one can), e.g. "no CUDA device: cudaGetDeviceCount returned
// cudaErrorInsufficientDriver (CUDA driver version is insufficient for CUDA runtime version)".
// Moving a tensor to cuda throws std::runtime_error with this text.
std::string unavailable_reason();

// Waits until all work queued on every visible device is done. No-op without a device.
void synchronize();

struct MemoryStats {
  uint64_t hits = 0;               // allocations served from the cache
  uint64_t misses = 0;             // allocations that called cudaMalloc
  uint64_t bytes_in_use = 0;       // held by tensors (size classes)
  uint64_t peak_bytes_in_use = 0;  // since the process started or reset_peak_memory()
  uint64_t bytes_cached = 0;       // freed by tensors, kept for reuse
};
// The caching device allocator's counters, summed over devices.
MemoryStats memory_stats();
void reset_peak_memory();
// Gives every cached (unused) block back to the driver.
void empty_cache();

}  // namespace lazygen::cuda
