// The CUDA driver API, loaded at run time: libcuda is opened with dlopen and the few entry points
// the lazy CUDA backend needs (contexts, modules, kernel launches) are looked up by name, so
// nothing links libcuda and every lazygen program starts on machines without a driver.
//
//   const DriverApi& api = driver_api();      // throws DriverUnavailable without a driver
//   CUmodule m;  check(api.module_load_data(&m, ptx.c_str()), api, "cuModuleLoadData");
//
// Entry points are resolved by their exported names. In CUDA 13's cuda.h none of the ones used
// here is remapped to a versioned (_v2) symbol unless CUDA_API_PER_THREAD_DEFAULT_STREAM is set,
// which lazygen does not set: launches go to the legacy default stream, as the eager kernels do
// (cuda_memory.h), so lazy and eager work on one device run in issue order.
// Thread safety: load() and driver_api() may be called from any thread; a DriverApi is immutable.
#pragma once

#include <cuda.h>

#include <stdexcept>
#include <string>

namespace lazygen::cuda {

// No usable driver: the library is missing, lacks an entry point, or cuInit fails. what() starts
// with "no CUDA device: ", as lazygen/cuda.h's unavailable_reason().
class DriverUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct DriverApi {
  std::string library;  // the path it was loaded from
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuGetErrorString) get_error_string = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primary_ctx_retain = nullptr;
  decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;

  // Opens `library`, resolves every entry point and calls cuInit(0). Throws DriverUnavailable
  // saying which step failed. The library stays loaded for the rest of the process.
  static DriverApi load(const std::string& library);
};

// The process's driver: load("libcuda.so.1") once; later calls return it, or throw the first
// call's error again.
const DriverApi& driver_api();

// "CUDA_ERROR_INVALID_VALUE (invalid argument)", or "CUresult <n>" when the driver has no name.
std::string result_text(const DriverApi& api, CUresult result);
// Throws std::runtime_error "<what>: <result_text>" unless result is CUDA_SUCCESS.
void check(CUresult result, const DriverApi& api, const char* what);

// The device's compute capability as major * 10 + minor (90 for sm_90).
int compute_capability(const DriverApi& api, int device);

}  // namespace lazygen::cuda
