// The text of a fusion group's CUDA kernel, shared by the runtime's NVRTC JIT
// (backend/cuda/jit/group_kernel_source.h) and the generator's CUDA AOT emitter (`lazygen --kernels
// --cuda`, generator/dest/aot_cuda_kernels.cpp), so that a prebuilt kernel is the device code the
// JIT would compile, from one writer. Plain C++ over strings: no lazygen type, no CUDA, so it is
// built into every configuration and the generator can link it without the runtime.
//
// Note [Shared CUDA kernel text]
// The runtime never includes generator code, and there must not be two CUDA code emitters. So the
// writer lives here, a leaf library of the runtime that depends on nothing, described by plain
// values (dtype names as dtype_name() spells them, access letters as Note [CUDA group keys] in
// backend/cpu/fusion/group_key.h lists them). The runtime fills a KernelLayout from its
// GroupKernel; the generator fills one from a manifest key. Both compute the NVRTC text with
// group_kernel_text(); the generator hashes it (an AOT entry carries the hash, and the runtime
// uses the entry only when its own text hashes the same) and writes group_kernel_body() with
// C++-linkage entry points into its `.cu`, after the same math header and functors.
// See Note [JIT group kernels] for what the kernel does.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace lazygen::cuda {

// A group kernel's shape of code: everything its source depends on besides the chain.
struct KernelLayout {
  struct Input {
    std::string dtype;  // "float32", ...
    char access = 'C';  // C contiguous, B broadcast, S strided
  };
  std::string dtype;  // T, the compute dtype
  std::vector<Input> inputs;
  std::vector<std::string> outputs;  // dtypes, the folded reduction's input last if any
  size_t dims = 1;                   // rank of the collapsed iteration space
  size_t scalars = 0;                // s0 .. s{scalars-1}
  int vector_width = 1;              // vector_width_of(*this)
};

// A group's pointwise chain over value names: inputs l<k> (kernel input k, converted to T),
// scalars s<j>, members v<k> (op k's result).
struct KernelChain {
  struct Op {
    std::string functor;            // in lazygen::kernels
    std::vector<std::string> args;  // tensors then scalars, as the functor takes them
  };
  std::vector<Op> ops;                     // op k defines v<k>
  std::vector<std::string> output_values;  // per layout output
  std::vector<std::string> sources;        // distinct functor definitions, in first-use order
};

// 16 bytes over the widest contiguous input or output (4 floats, 2 doubles); 1 when an input is
// strided (no vectorized path). Throws std::logic_error for an unknown dtype name.
int vector_width_of(const KernelLayout& layout);

// The CUDA type of a dtype name ("float32" -> "float"). Throws std::logic_error if unknown.
const char* cuda_type(std::string_view dtype);

// The entry points' declarator prefix: NVRTC looks kernels up by their C names; AOT kernels
// live in one namespace per group and keep C++ linkage so that they cannot collide.
inline constexpr const char* kNvrtcEntry = "extern \"C\" __global__ void ";
inline constexpr const char* kAotEntry = "__global__ void ";

// namespace lazygen_group { GroupArgs, chain, element and vector functions, loop } and the two
// entry points lazygen_group_i32 / lazygen_group_i64, each declared as `entry` + name. Needs the
// math header and chain.sources before it.
std::string group_kernel_body(const KernelLayout& layout, const KernelChain& chain,
                              std::string_view entry);

// The complete, include-free NVRTC translation unit: pointwise_math_source(), chain.sources,
// then the body with kNvrtcEntry.
std::string group_kernel_text(const KernelLayout& layout, const KernelChain& chain);

// The text of lazygen/kernels/pointwise_math.h as this build was compiled with (embedded by CMake).
std::string_view pointwise_math_source();

}  // namespace lazygen::cuda
