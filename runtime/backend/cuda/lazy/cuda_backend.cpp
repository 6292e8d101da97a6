// CudaBackend (cuda_backend.h): construction, the device context, module loading and the
// factory the lazy device selects it through. compile() is in cuda_compile.cpp, execute() in
// cuda_execute.cpp.
#include "backend/cuda/lazy/cuda_backend.h"

#include <stdexcept>

#include "backend/cuda/jit/driver_api.h"
#include "backend/cuda/lazy/cuda_executable.h"
#include "backend/cuda/memory/cuda_memory.h"
#include "lazygen/cuda.h"

namespace lazygen::cuda {
namespace {

int arch_of(const CudaBackend::Options& options) {
  if (options.arch != 0) return options.arch;
  return compute_capability(driver_api(), options.device);
}

}  // namespace

CudaBackend::CudaBackend(Options options)
    : device_(options.device),
      arch_(arch_of(options)),
      budgets_(options.budgets),
      nvrtc_(std::move(options.cache)) {
  // Group kernels read what they reduce from a member; row bands are the cpu's (row_bands.h).
  budgets_.reduce_inputs = false;
}

const DriverApi& CudaBackend::activate() {
  const DriverApi& api = driver_api();
  std::lock_guard<std::mutex> lock(context_mutex_);
  if (context_ == nullptr) {
    CUdevice dev = 0;
    check(api.device_get(&dev, device_), api, "cuDeviceGet");
    // The primary context is the one the CUDA runtime uses, so cudaMalloc'd buffers and eager
    // kernels share it with the modules loaded here. Retained for the rest of the process.
    check(api.primary_ctx_retain(&context_, dev), api, "cuDevicePrimaryCtxRetain");
  }
  check(api.ctx_set_current(context_), api, "cuCtxSetCurrent");
  return api;
}

void CudaBackend::synchronize() {
  cuda::synchronize();
}

GroupBinary::~GroupBinary() {
  if (!loaded || loaded->module == nullptr) return;
  try {
    // Unloading may fail while the process exits (context already gone); nothing to do then.
    driver_api().module_unload(loaded->module);
  } catch (const std::exception&) {
  }
}

std::shared_ptr<exec::Backend> make_cuda_backend() {
  if (!is_available()) throw std::runtime_error(unavailable_reason());
  return std::make_shared<CudaBackend>(CudaBackend::Options{});
}

}  // namespace lazygen::cuda
