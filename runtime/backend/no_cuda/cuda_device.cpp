// The CUDA device of a lazygen built without the CUDA toolkit (LAZYGEN_CUDA=OFF, or AUTO without
// a toolkit): lazygen/cuda.h reports no device, and moving a tensor to cuda throws a message that
// says why, instead of "cuda device not linked". Mirrors
// runtime/backend/cuda/memory/cuda_device.cpp, including the force-linked initializer (see there).
#include <stdexcept>
#include <string>

#include "core/tensor/device_hooks.h"
#include "exec/backend_registry.h"
#include "lazygen/cuda.h"

namespace lazygen::cuda {
namespace {

constexpr const char* kReason =
    "no CUDA device: lazygen was built without CUDA (LAZYGEN_CUDA=OFF, or no CUDA toolkit found "
    "when it was configured)";

Tensor no_device_to_cpu(const Tensor& /*t*/) {
  throw std::runtime_error(kReason);
}
Tensor no_device_from_cpu(const Tensor& /*cpu*/, Device /*target*/) {
  throw std::runtime_error(kReason);
}

std::shared_ptr<exec::Backend> no_lazy_backend() {
  throw std::runtime_error(kReason);
}

bool register_no_cuda_device() {
  DeviceHooks hooks;
  hooks.to_cpu = &no_device_to_cpu;
  hooks.from_cpu = &no_device_from_cpu;
  set_device_hooks(DeviceType::CUDA, hooks);
  exec::register_backend_factory("cuda", &no_lazy_backend);
  return true;
}

}  // namespace

int device_count() {
  return 0;
}
std::string unavailable_reason() {
  return kReason;
}
void synchronize() {}
MemoryStats memory_stats() {
  return {};
}
void reset_peak_memory() {}
void empty_cache() {}

}  // namespace lazygen::cuda

extern "C" {
extern const bool lazygen_cuda_device_linked;
const bool lazygen_cuda_device_linked = lazygen::cuda::register_no_cuda_device();
}
