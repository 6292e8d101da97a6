// CUDA source for one fusion group of the fusion layer's plan (fusion/fusion_plan.h): an
// include-free translation unit that NVRTC compiles (nvrtc_compiler.h) into a
// kernel evaluating the group's pointwise chain per element, with the generated device functors
// (device_functions.h), so a GPU group computes with the same expressions as every other backend.
//
// Note [JIT group kernels]
// The group is first described as every fusing backend sees it (fusion::describe_group,
// fusion/group_spec.h): that gives the collapsed iteration space, each input's per-dim strides
// and dtype, the members' order and which members are stored. The kernel then runs a grid-stride
// loop over the collapsed space; each element loads its inputs, converts them to the group's dtype
// T, runs the chain in registers and stores the outputs (contiguous, each in its own dtype;
// comparisons' 0/1 cast to bool). Inputs are read by their access kind, fixed in the source:
//   Contiguous  element i of the iteration is element i of the buffer
//   Broadcast   every element reads element 0 (a scalar or all-size-1 operand)
//   Strided     per-dim strides passed at launch (views, and row/column broadcasts by stride 0)
// When no input is Strided there is a second, vectorized path: each thread handles
// vector_width consecutive elements with one load or store per tensor, vector_width being
// 16 bytes of the widest contiguous dtype (4 floats, 2 doubles); the host enables it per launch
// (GroupArgs::vectorized) when every contiguous pointer is aligned to its vector size, and the
// remainder runs through the scalar path. Sizes and strides are launch arguments, so the source
// (and the cached binary) depends on the group's structure, not its sizes.
// Index type: two entry points, kGroupKernel32 (int) and kGroupKernel64 (long long); the host
// takes the 32-bit one when numel plus one grid stride and every input's element extent fit in
// int32, which makes the index arithmetic (divisions by sizes above all) cheaper.
// The text itself is written by backend/cuda_text (See Note [Shared CUDA kernel text]), which the
// generator's CUDA AOT kernels share.
// A folded reduction is not folded on the GPU yet: the kernel stores the reduction's input as
// one more output (the last, reduction_input), for a separate reduction kernel to read. That
// kernel (reduce.cu) takes any reduced dims, so reductions over leading dims (See Note [Folded
// reduction layouts]) need nothing of their own here: the CUDA backend supports every layout
// the planner folds, and the planner forms them for it as for the cpu.
//
// Kernel parameters, one struct by value (GroupArgs), in this order: in0..in{n-1} (const pointers
// of each input's dtype, already advanced by Input::offset), out0..out{m-1}, long long numel,
// long long sizes[dims], for each Strided input k: long long in{k}_strides[dims], double
// scalars[max(1, scalar_nodes)], int vectorized.
//
// Thread safety: a pure function of the graph and plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fusion/fusion_plan.h"

namespace lazygen::cuda {

inline constexpr const char* kGroupKernel32 = "lazygen_group_i32";
inline constexpr const char* kGroupKernel64 = "lazygen_group_i64";

struct GroupKernel {
  enum class Access : uint8_t { Contiguous, Broadcast, Strided };
  struct Input {
    uint32_t group_input = 0;  // index into Group::inputs
    int64_t offset = 0;        // elements from the base's start
    DType dtype = DType::Float32;
    Access access = Access::Contiguous;
    std::vector<int64_t> strides;  // elements, one per dim
  };
  struct Output {
    uint32_t node = 0;  // graph position of the stored member (the reduction, for its input)
    DType dtype = DType::Float32;
  };

  DType dtype = DType::Float32;  // T, the group's compute dtype
  int64_t numel = 0;
  std::vector<int64_t> dims;  // collapsed iteration space, outermost first (>= 1 dim)
  std::vector<Input> inputs;
  std::vector<Output> outputs;
  bool reduction_input = false;        // the last output is the folded reduction's input
  std::vector<uint32_t> scalar_nodes;  // ScalarParam graph positions, in scalars[] order
  int vector_width = 1;                // 1: no vectorized path
  std::string source;                  // the complete translation unit
  std::string key;                     // its CUDA group key (See Note [CUDA group keys])
};

// The kernel of group `g` of `plan`. Throws std::logic_error for an op without a device functor.
GroupKernel emit_group_kernel(const exec::Graph& graph, const fusion::FusionPlan& plan, uint32_t g);

}  // namespace lazygen::cuda
