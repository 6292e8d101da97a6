// The process's AOT CUDA kernels (See Note [CUDA AOT kernels]): generated .cu files register
// theirs during static initialization (CudaAotRegistration); CudaBackend::compile looks each
// group's kernel up here before compiling it with NVRTC. Part of lazygen_cuda, so a program
// without generated kernels links and runs with an empty registry: every group misses.
//
// A lookup finds the entry whose hash and full key both match the kernel's CUDA key. An entry of
// another IR version, of other ops (pointwise_fingerprint()), whose key hash disagrees with this
// runtime's, or whose source hash is not the hash of the kernel's own source is stale: never
// used. Each lookup counts `cuda.aot.hit`, `cuda.aot.miss` or (with a miss) `cuda.aot.stale`;
// the names keep the cpu's `aot.*` counters of the same run apart. Misses join the cpu's in
// aot_miss_report() (as CUDA keys) and, while recording (LAZYGEN_RECORD), the group's keys are
// added to the manifest, as the cpu does.
//
// Thread safety: all functions may be called from any thread.
#pragma once

#include "backend/cuda/aot/cuda_aot_kernel.h"
#include "backend/cuda/jit/group_kernel_source.h"

namespace lazygen::cuda {

// The usable prebuilt kernel for `kernel` (by its key and source), or nullptr; counted and
// recorded as above. Kernels of groups without ops (nothing to compile) are neither.
const CudaAotEntry* find_cuda_aot_kernel(const GroupKernel& kernel);

}  // namespace lazygen::cuda
