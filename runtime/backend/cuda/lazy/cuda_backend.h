// CudaBackend ("cuda"): runs lazy graphs on a CUDA device. Selected with
// set_lazy_backend("cuda") or LAZYGEN_LAZY_BACKEND=cuda (lazygen/lazy.h); see make_cuda_backend.
//
// compile(graph): plans fusion with the cpu backend's planner (cpu/fusion/fusion_plan.h), emits
// each group's kernel source (group_kernel_source.h) and compiles it to PTX for the device's
// compute capability through NvrtcCompiler (persistent kernel cache, single flight). Nodes no
// group computes become eager steps on cuda tensors (See Note [Lowered nodes on CUDA]); any
// other node, or a group member without a device function, fails with CompileError naming the
// op. compile() touches neither the driver nor the device, so it runs (and is tested) without a
// GPU when the compute capability is given (Options::arch).
// specialize(compiled, graph): compile's result for a graph of the same structure at other
// sizes, from compiled's fusion plan rebound to them (See Note [Specializing a fusion plan] in
// fusion/specialize.h): no planning, and each group whose kernel source is unchanged (sizes and
// strides are launch arguments: See Note [JIT group kernels]) shares compiled's binary (PTX or
// prebuilt kernel, and its module once loaded), so NVRTC runs only for a group whose source the
// new sizes change (an access kind, the collapsed rank). Null when the plan does not serve the
// new sizes; the executor then compiles.
// execute(executable, inputs): on first use of a group's kernel, loads its PTX as a module
// (cuModuleLoadData, once per kernel binary, which specializations share; unloaded with it).
// Then uploads cpu inputs (counter cuda.lazy.input_uploads), walks the steps and launches each
// group with the 32-bit or 64-bit entry point, chosen per launch (group_launch.h). A folded
// reduction runs as the group storing the reduction's input, then the eager reduction kernel.
// Every value is a cuda tensor from the caching device allocator, dropped after its last use.
// Asynchrony: kernels queue on the legacy default stream, as eager CUDA work does, so outputs are
// complete before any later copy (cpu(), item()) or eager op reads them; synchronize() waits for
// the device (the backend contract's synchronize).
// Thread safety: as backend.h asks; module loading is guarded by each kernel binary's mutex, and
// each execute makes the device's primary context current on the calling thread.
#pragma once

#include <cuda.h>

#include <memory>
#include <mutex>
#include <string>

#include "backend/backend.h"
#include "backend/cuda/jit/nvrtc_compiler.h"
#include "fusion/fusion_plan.h"
#include "fusion/node_traits.h"

namespace lazygen::cuda {

struct DriverApi;

class CudaBackend final : public exec::Backend {
 public:
  struct Options {
    int device = 0;
    int arch = 0;  // compute capability (major * 10 + minor); 0: ask the device
    fusion::Budgets budgets;
    kernel_cache::KernelCacheOptions cache;  // NVRTC's kernel cache; default: from the environment
  };

  // With arch == 0 asks the driver for the device's compute capability and throws
  // DriverUnavailable ("no CUDA device: ...") without one; with arch set, needs nothing until
  // the first execute().
  explicit CudaBackend(Options options);

  std::string name() const override { return "cuda"; }
  Device device() const override { return Device(DeviceType::CUDA, static_cast<int16_t>(device_)); }
  std::unique_ptr<exec::Executable> compile(const exec::Graph& graph) override;
  std::unique_ptr<exec::Executable> specialize(const exec::Executable& compiled,
                                               const exec::Graph& graph) override;
  std::vector<Tensor> execute(const exec::Executable& executable,
                              const std::vector<exec::Input>& inputs) override;
  void synchronize() override;
  bool recomputes_cheaply(ir::OpKind kind) const override {
    return fusion::recomputes_cheaply(kind);
  }

  int arch() const { return arch_; }
  NvrtcCompiler& nvrtc() { return nvrtc_; }

 private:
  // The driver and the device's primary context, made current on the calling thread.
  const DriverApi& activate();

  int device_;
  int arch_;
  fusion::Budgets budgets_;
  NvrtcCompiler nvrtc_;
  std::mutex context_mutex_;
  CUcontext context_ = nullptr;
};

// The lazy device's CUDA backend on device 0. Throws std::runtime_error "no CUDA device: ..."
// (lazygen/cuda.h's unavailable_reason(), or the driver loader's error) when none is usable.
std::shared_ptr<exec::Backend> make_cuda_backend();

}  // namespace lazygen::cuda
