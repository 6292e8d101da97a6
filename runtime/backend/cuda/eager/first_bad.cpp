// FirstBad (first_bad.h): one int64 of device memory, all bits set for "none".
#include "backend/cuda/eager/first_bad.h"

#include <cuda_runtime_api.h>

#include "backend/cuda/eager/eager_kernels.h"
#include "backend/cuda/memory/cuda_memory.h"

namespace lazygen::cuda {

FirstBad::FirstBad(Device device) : word_(empty_device({1}, DType::Int64, device)) {
  DeviceGuard guard(device.index);
  check(cudaMemsetAsync(word_.raw_data(), 0xFF, sizeof(int64_t), current_stream()),
        "cudaMemsetAsync");
}

unsigned long long* FirstBad::slot() const {
  return static_cast<unsigned long long*>(word_.raw_data());
}

std::optional<int64_t> FirstBad::read() const {
  unsigned long long v = 0;
  DeviceGuard guard(word_.device().index);
  copy_to_host(&v, word_.raw_data(), sizeof(v));
  if (v == ~0ULL) return std::nullopt;
  return static_cast<int64_t>(v);
}

int64_t read_int64(const Tensor& t, int64_t pos) {
  int64_t v = 0;
  DeviceGuard guard(t.device().index);
  copy_to_host(&v, t.data_ptr<int64_t>() + pos, sizeof(v));
  return v;
}

}  // namespace lazygen::cuda
