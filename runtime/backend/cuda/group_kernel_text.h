// The text half of the group kernel emitter (group_kernel_source.h): given the kernel's layout
// and its chain as value names, writes the CUDA translation unit. Internal to backend/cuda.
// See Note [JIT group kernels].
#pragma once

#include <string>
#include <vector>

#include "backend/cuda/group_kernel_source.h"

namespace lazygen::cuda {

// A group's pointwise chain over value names: inputs l<k> (kernel input k, converted to T),
// scalars s<j>, members v<k> (op k's result).
struct KernelChain {
  struct Op {
    const char* functor;            // in lazygen::kernels
    std::vector<std::string> args;  // tensors then scalars, as the functor takes them
  };
  std::vector<Op> ops;                     // op k defines v<k>
  std::vector<std::string> output_values;  // per GroupKernel output
  std::vector<const char*> sources;        // distinct functor definitions, in first-use order
};

// The complete, include-free source of `kernel` (everything but GroupKernel::source filled in).
std::string group_kernel_text(const GroupKernel& kernel, const KernelChain& chain);

}  // namespace lazygen::cuda
