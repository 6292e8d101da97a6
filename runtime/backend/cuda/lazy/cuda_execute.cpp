// CudaBackend::execute (cuda_backend.h): loads each of an executable's kernels once (modules from
// PTX, prebuilt kernels through the CUDA runtime), then walks its steps on cuda tensors.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "backend/cuda/eager/eager_kernels.h"
#include "backend/cuda/jit/driver_api.h"
#include "backend/cuda/lazy/cuda_backend.h"
#include "backend/cuda/lazy/cuda_executable.h"
#include "backend/cuda/lazy/group_launch.h"
#include "exec/lowering.h"
#include "lazygen/metrics.h"

namespace lazygen::cuda {
namespace {

// A JIT group's module and entry points, from PTX.
LoadedGroup load_ptx(const DriverApi& api, const std::string& ptx) {
  static metrics::Counter& loads = metrics::counter("cuda.lazy.module_loads");
  LoadedGroup l;
  check(api.module_load_data(&l.module, ptx.c_str()), api, "cuModuleLoadData");
  try {
    check(api.module_get_function(&l.index32, l.module, kGroupKernel32), api,
          "cuModuleGetFunction");
    check(api.module_get_function(&l.index64, l.module, kGroupKernel64), api,
          "cuModuleGetFunction");
  } catch (...) {
    api.module_unload(l.module);
    throw;
  }
  loads.add();
  return l;
}

// A prebuilt group's entry points as CUfunctions, so that it launches like a JIT group; false
// when the CUDA runtime cannot load them on this device (no image for its architecture).
bool load_prebuilt(const CudaAotEntry& e, LoadedGroup& l) {
  cudaFunction_t f32 = nullptr, f64 = nullptr;
  if (cudaGetFuncBySymbol(&f32, e.index32) != cudaSuccess ||
      cudaGetFuncBySymbol(&f64, e.index64) != cudaSuccess) {
    cudaGetLastError();  // clear the (non-sticky) error so that later runtime calls do not see it
    return false;
  }
  l.index32 = f32;
  l.index64 = f64;
  return true;
}

// Loads group g's kernel once per binary (shared by an executable and its specializations):
// a prebuilt kernel through the CUDA runtime (See Note [CUDA AOT kernels]; one that does not load
// falls back to NVRTC here), else its PTX as a module.
void load_group(const DriverApi& api, const CudaGroupStep& step, uint32_t g, NvrtcCompiler& nvrtc,
                int arch) {
  static metrics::Counter& fallbacks = metrics::counter("cuda.aot.load_fallback");
  const GroupBinary& b = *step.binary;
  std::lock_guard<std::mutex> lock(b.load_mutex);
  if (b.loaded) return;
  LoadedGroup l;
  if (b.aot != nullptr && load_prebuilt(*b.aot, l)) {
    b.loaded = l;
    return;
  }
  if (b.aot != nullptr) fallbacks.add();
  b.loaded =
      load_ptx(api, b.aot != nullptr ? compile_group_ptx(nvrtc, step.kernel, g, arch) : b.ptx);
}

class Execution {
 public:
  Execution(const DriverApi& api, const CudaExecutable& e, Device device)
      : api_(api), e_(e), device_(device), slots_(e.num_slots), scalars_(e.num_slots) {}

  void feed(const std::vector<exec::Input>& inputs);
  void run();
  std::vector<Tensor> outputs() const;

 private:
  const void* input_data(uint32_t slot, const GroupKernel::Input& in);
  void run_group(const CudaGroupStep& g, const LoadedGroup& l);
  void run_lower(const CudaLowerStep& l);

  const DriverApi& api_;
  const CudaExecutable& e_;
  Device device_;
  std::vector<Tensor> slots_;
  std::vector<double> scalars_;  // per slot: a scalar input's value
};

void Execution::feed(const std::vector<exec::Input>& inputs) {
  static metrics::Counter& uploads = metrics::counter("cuda.lazy.input_uploads");
  for (size_t k = 0; k < inputs.size(); ++k) {
    const exec::Input& in = inputs[k];
    const uint32_t slot = e_.input_slots[k];
    if (in.is_scalar()) {
      scalars_[slot] = in.scalar.to<double>();
      if (e_.input_as_tensor[k]) slots_[slot] = exec::input_as_tensor(in);
    } else if (in.tensor.device() != device_) {
      uploads.add();
      slots_[slot] = in.tensor.to(device_);
    } else {
      slots_[slot] = in.tensor;
    }
  }
}

void Execution::run() {
  for (const CudaStep& step : e_.steps) {
    if (step.is_group) {
      const CudaGroupStep& g = e_.groups[step.index];
      run_group(g, *g.binary->loaded);  // set by execute's load_group, on this thread
    } else {
      run_lower(e_.lowers[step.index]);
    }
    for (uint32_t slot : step.release) slots_[slot] = Tensor();
  }
}

std::vector<Tensor> Execution::outputs() const {
  std::vector<Tensor> out;
  for (uint32_t slot : e_.output_slots) out.push_back(slots_[slot]);
  return out;
}

// Groups read their inputs' buffers as contiguous arrays (See Note [JIT group kernels]); a
// strided tensor (a lowered view's result) goes through the host once to become one.
const void* Execution::input_data(uint32_t slot, const GroupKernel::Input& in) {
  static metrics::Counter& copies = metrics::counter("cuda.lazy.input_copies");
  Tensor& t = slots_[slot];
  if (!t.is_contiguous()) {
    copies.add();
    t = t.cpu().contiguous().to(device_);
  }
  return static_cast<const char*>(t.raw_data()) +
         in.offset * static_cast<int64_t>(itemsize(in.dtype));
}

void Execution::run_group(const CudaGroupStep& g, const LoadedGroup& l) {
  static metrics::Counter& launches = metrics::counter("cuda.lazy.launches");
  const GroupKernel& k = g.kernel;
  std::vector<const void*> in;
  for (size_t i = 0; i < k.inputs.size(); ++i)
    in.push_back(input_data(g.input_slots[i], k.inputs[i]));
  std::vector<void*> out;
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    Tensor t = empty_device(g.output_shapes[o].sizes, g.output_shapes[o].dtype, device_);
    out.push_back(t.raw_data());
    slots_[g.output_slots[o]] = std::move(t);
  }
  if (k.numel == 0) return;
  std::vector<double> scalars;
  for (uint32_t slot : g.scalar_slots) scalars.push_back(scalars_[slot]);
  const bool vectorized = can_vectorize(k, in, out);
  std::vector<uint64_t> args = pack_group_args(k, in, out, scalars, vectorized);
  const GroupLaunch launch = plan_group_launch(k, vectorized);
  void* params[] = {args.data()};
  check(api_.launch_kernel(launch.index32 ? l.index32 : l.index64,
                           static_cast<unsigned>(launch.blocks), 1, 1, kGroupThreads, 1, 1, 0,
                           nullptr, params, nullptr),
        api_, "cuLaunchKernel");
  launches.add();
}

void Execution::run_lower(const CudaLowerStep& l) {
  std::vector<Tensor> args;
  for (uint32_t slot : l.operand_slots) args.push_back(slot == kNoSlot ? Tensor() : slots_[slot]);
  // A folded reduction's input is stored in the group's dtype; the node expects its operand's.
  const std::vector<ir::Value>& operands = l.node->operands();
  if (!operands.empty() && operands[0].present() && args[0].defined() &&
      args[0].dtype() != operands[0].shape().dtype) {
    args[0] = args[0].to(operands[0].shape().dtype);
  }
  std::vector<Tensor> outs = l.fn(*l.node, args);
  if (outs.size() != l.node->num_outputs()) {
    throw std::logic_error("cuda: the lowering of " + l.node->to_string() + " returned " +
                           std::to_string(outs.size()) + " tensors");
  }
  for (size_t j = 0; j < outs.size(); ++j) slots_[l.first_slot + j] = std::move(outs[j]);
}

}  // namespace

std::vector<Tensor> CudaBackend::execute(const exec::Executable& executable,
                                         const std::vector<exec::Input>& inputs) {
  const auto& e = static_cast<const CudaExecutable&>(executable);
  if (inputs.size() != e.input_slots.size()) {
    throw std::invalid_argument("cuda: " + std::to_string(inputs.size()) +
                                " inputs for a graph with " + std::to_string(e.input_slots.size()));
  }
  const DriverApi& api = activate();
  for (uint32_t g = 0; g < e.groups.size(); ++g) load_group(api, e.groups[g], g, nvrtc_, arch_);
  Execution run(api, e, device());
  run.feed(inputs);
  run.run();
  return run.outputs();
}

}  // namespace lazygen::cuda
