// The compiled form of a graph on the CUDA backend (cuda_backend.h): what compile()
// (cuda_compile.cpp) builds and execute() (cuda_execute.cpp) walks. Internal to the backend.
//
// Every value lives in a slot: one per node output, plus one per folded reduction for the
// reduction's input, which the group stores and the eager reduction reads. Steps run in
// schedule order; after each, the slots it used for the last time are dropped.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/cuda/aot/cuda_aot_kernel.h"
#include "backend/cuda/jit/group_kernel_source.h"
#include "backend/cuda/jit/nvrtc_compiler.h"
#include "exec/lowering.h"
#include "fusion/specialize.h"

namespace lazygen::cuda {

inline constexpr uint32_t kNoSlot = UINT32_MAX;

// A group's loaded module and its two entry points (no module for a prebuilt kernel: the CUDA
// runtime loaded it with the program).
struct LoadedGroup {
  CUmodule module = nullptr;
  CUfunction index32 = nullptr;
  CUfunction index64 = nullptr;
};

// A group kernel's binary and, once an execution loaded it (cuda_execute.cpp), its module. A
// compiled executable shares it with each specialization that keeps the kernel's source
// (cuda_compile.cpp), so a new size neither compiles nor loads the kernel again. The last owner
// unloads the module.
struct GroupBinary {
  GroupBinary() = default;
  GroupBinary(const GroupBinary&) = delete;
  GroupBinary& operator=(const GroupBinary&) = delete;
  ~GroupBinary();

  const CudaAotEntry* aot = nullptr;  // its prebuilt kernel (See Note [CUDA AOT kernels]), or
  std::string ptx;                    // NVRTC's PTX
  mutable std::mutex load_mutex;
  mutable std::optional<LoadedGroup> loaded;  // guarded by load_mutex
};

struct CudaGroupStep {
  GroupKernel kernel;
  std::shared_ptr<const GroupBinary> binary;  // never null once compiled
  std::vector<uint32_t> input_slots;          // per kernel input: its base's slot
  std::vector<uint32_t> output_slots;         // per kernel output
  std::vector<Shape> output_shapes;           // per kernel output
  std::vector<uint32_t> scalar_slots;         // per kernel scalar
};

struct CudaLowerStep {
  const ir::Node* node = nullptr;
  exec::LowerFn fn = nullptr;
  std::vector<uint32_t> operand_slots;  // kNoSlot for an absent operand
  uint32_t first_slot = 0;              // of its outputs
};

struct CudaStep {
  bool is_group = false;
  uint32_t index = 0;             // into groups or lowers
  std::vector<uint32_t> release;  // slots dropped after it
};

struct CudaExecutable final : exec::Executable {
  std::vector<ir::Value> keep_alive;  // the graph's roots: owners of every node used here
  uint32_t num_slots = 0;
  std::vector<uint32_t> input_slots;   // per graph input
  std::vector<bool> input_as_tensor;   // per graph input: a scalar input a lowered step reads
  std::vector<uint32_t> output_slots;  // per graph output
  std::vector<CudaGroupStep> groups;
  std::vector<CudaLowerStep> lowers;
  std::vector<CudaStep> steps;

  // What a new size of the graph's structure specializes (set by compile, not by specialize;
  // See Note [Specializing a fusion plan] in fusion/specialize.h).
  std::shared_ptr<const fusion::FusionPlan> plan;
  fusion::SizeClasses sizes;
};

// NVRTC's PTX of group `g`'s kernel for compute capability `arch` (cuda_compile.cpp). Throws
// exec::CompileError with NVRTC's log.
std::string compile_group_ptx(NvrtcCompiler& nvrtc, const GroupKernel& kernel, uint32_t g,
                              int arch);

}  // namespace lazygen::cuda
