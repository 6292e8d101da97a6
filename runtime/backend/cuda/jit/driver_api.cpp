// Loading the CUDA driver API with dlopen (driver_api.h).
#include "backend/cuda/jit/driver_api.h"

#include <dlfcn.h>

#include <memory>
#include <mutex>

namespace lazygen::cuda {
namespace {

std::string dl_error() {
  const char* text = ::dlerror();
  return text != nullptr ? text : "unknown dlopen error";
}

template <class Fn>
void resolve(void* handle, const DriverApi& api, const char* symbol, Fn& fn) {
  ::dlerror();
  void* address = ::dlsym(handle, symbol);
  if (address == nullptr) {
    throw DriverUnavailable("no CUDA device: " + api.library + " has no " + symbol + " (" +
                            dl_error() + "); the driver is older than CUDA 13 expects");
  }
  fn = reinterpret_cast<Fn>(address);
}

void resolve_all(void* h, DriverApi& api) {
  resolve(h, api, "cuInit", api.init);
  resolve(h, api, "cuGetErrorName", api.get_error_name);
  resolve(h, api, "cuGetErrorString", api.get_error_string);
  resolve(h, api, "cuDeviceGet", api.device_get);
  resolve(h, api, "cuDeviceGetAttribute", api.device_get_attribute);
  resolve(h, api, "cuDevicePrimaryCtxRetain", api.primary_ctx_retain);
  resolve(h, api, "cuCtxSetCurrent", api.ctx_set_current);
  resolve(h, api, "cuModuleLoadData", api.module_load_data);
  resolve(h, api, "cuModuleGetFunction", api.module_get_function);
  resolve(h, api, "cuModuleUnload", api.module_unload);
  resolve(h, api, "cuLaunchKernel", api.launch_kernel);
}

}  // namespace

DriverApi DriverApi::load(const std::string& library) {
  DriverApi api;
  api.library = library;
  // Never closed: modules and contexts created through it live until the process exits.
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    throw DriverUnavailable("no CUDA device: cannot load the CUDA driver " + library + " (" +
                            dl_error() + ")");
  }
  resolve_all(handle, api);
  const CUresult init = api.init(0);
  if (init != CUDA_SUCCESS) {
    throw DriverUnavailable("no CUDA device: cuInit failed in " + library + ": " +
                            result_text(api, init));
  }
  return api;
}

const DriverApi& driver_api() {
  static std::once_flag once;
  static std::unique_ptr<DriverApi> api;
  static std::string error;
  std::call_once(once, [] {
    try {
      api = std::make_unique<DriverApi>(DriverApi::load("libcuda.so.1"));
    } catch (const DriverUnavailable& e) {
      error = e.what();
    }
  });
  if (api == nullptr) throw DriverUnavailable(error);
  return *api;
}

std::string result_text(const DriverApi& api, CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.get_error_name == nullptr || api.get_error_name(result, &name) != CUDA_SUCCESS ||
      name == nullptr) {
    return "CUresult " + std::to_string(static_cast<int>(result));
  }
  std::string out = name;
  if (api.get_error_string(result, &text) == CUDA_SUCCESS && text != nullptr) {
    out += std::string(" (") + text + ")";
  }
  return out;
}

void check(CUresult result, const DriverApi& api, const char* what) {
  if (result != CUDA_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + result_text(api, result));
}

int compute_capability(const DriverApi& api, int device) {
  CUdevice dev = 0;
  check(api.device_get(&dev, device), api, "cuDeviceGet");
  int major = 0, minor = 0;
  check(api.device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), api,
        "cuDeviceGetAttribute");
  check(api.device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), api,
        "cuDeviceGetAttribute");
  return major * 10 + minor;
}

}  // namespace lazygen::cuda
