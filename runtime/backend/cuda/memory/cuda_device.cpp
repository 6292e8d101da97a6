// The CUDA device's wiring into the tensor core: the device hooks (core/tensor/device_hooks.h)
// through which Tensor::to, cpu(), clone() and the factories move data between cpu and cuda
// memory, and the registration of the CUDA eager kernels with the op dispatch.
//
// Both are installed by the initializer of lazygen_cuda_device_linked, which every program
// linking lazygen_cuda keeps (the library's link options name it undefined), so a program that
// only says t.to(Device("cuda")) still finds the device.
#include "backend/cuda/eager/eager_kernels.h"
#include "backend/cuda/lazy/cuda_backend.h"
#include "backend/cuda/memory/cuda_memory.h"
#include "core/tensor/device_hooks.h"
#include "core/tensor/tensor_impl.h"
#include "exec/backend_registry.h"
#include "lazygen/generated/cpu/copy_inplace.h"
#include "lazygen/generated/cuda/copy_inplace.h"

namespace lazygen::cuda {
namespace {

std::size_t nbytes_of(const Tensor& t) {
  return static_cast<std::size_t>(t.numel()) * itemsize(t.dtype());
}

// A dense copy on the device: cudaMemcpy when t is contiguous, else the generated copy_ kernel.
Tensor clone_hook(const Tensor& t) {
  Tensor out = empty_device(t.sizes(), t.dtype(), t.device());
  if (t.is_contiguous()) {
    copy_on_device(out.numel() == 0 ? nullptr : out.raw_data(),
                   t.numel() == 0 ? nullptr : t.raw_data(), nbytes_of(t));
  } else {
    run_pointwise("clone", &launch_copy_inplace, out, {t}, {}, t.dtype());
  }
  return out;
}

// Converted on the device by the generated copy_ kernel (the cpu's conversions: C++ casts).
Tensor to_dtype_hook(const Tensor& t, DType dtype) {
  Tensor out = empty_device(t.sizes(), dtype, t.device());
  run_pointwise("to", &launch_copy_inplace, out, {t}, {},
                cpu::compute_dtype_copy_inplace(t.shape()));
  return out;
}

// Views are made dense on the device first, so only their own elements cross the bus.
Tensor to_cpu_hook(const Tensor& t) {
  const Tensor dense = t.is_contiguous() ? t : clone_hook(t);
  Tensor out = make_cpu_tensor(dense.sizes(), dense.dtype());
  if (out.numel() > 0) copy_to_host(out.raw_data(), dense.raw_data(), nbytes_of(dense));
  return out;
}

Tensor from_cpu_hook(const Tensor& cpu, Device target) {
  const Tensor src = cpu.contiguous();
  Tensor out = empty_device(src.sizes(), src.dtype(), target);
  if (out.numel() > 0) copy_to_device(out.raw_data(), src.raw_data(), nbytes_of(src));
  return out;
}

bool register_cuda_device() {
  DeviceHooks hooks;
  hooks.to_cpu = &to_cpu_hook;
  hooks.from_cpu = &from_cpu_hook;
  hooks.clone = &clone_hook;
  hooks.to_dtype = &to_dtype_hook;
  set_device_hooks(DeviceType::CUDA, hooks);
  register_eager_kernels();
  exec::register_backend_factory("cuda", &make_cuda_backend);
  return true;
}

}  // namespace
}  // namespace lazygen::cuda

extern "C" {
extern const bool lazygen_cuda_device_linked;
const bool lazygen_cuda_device_linked = lazygen::cuda::register_cuda_device();
}
