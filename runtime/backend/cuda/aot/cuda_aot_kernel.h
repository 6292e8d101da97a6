// The contract between the CUDA lazy backend and the ahead-of-time CUDA kernels that
// `lazygen --kernels MANIFEST --cuda` emits (aot_kernels.cu, compiled by nvcc into the program by
// lazygen_add_kernels): what an entry holds and how a generated file registers its entries.
// Generated .cu files include this header and nothing else of the runtime's internals, so it
// stays plain C++17 (nvcc) and changes only together with kCudaAotIrVersion.
//
// Note [CUDA AOT kernels]
// An AOT CUDA kernel is the kernel the NVRTC JIT would compile for its group (See Note [JIT group
// kernels]), written by the same text writer (See Note [Shared CUDA kernel text]) and compiled by
// nvcc for the project's CUDA architectures when the program is built, so a group with one skips
// NVRTC (and its kernel cache) at run time. Groups are keyed by their CUDA key (See Note [CUDA
// group keys]): the group key plus each load's access and the iteration space's rank, which is
// everything the kernel's source depends on. Both entry points are launched exactly as the JIT's:
// CudaBackend::execute gets their CUfunction with cudaGetFuncBySymbol and uses the same argument
// block and cuLaunchKernel call (group_launch.h), so there is one launch path.
// An entry is used only if it was made for this IR version, for this runtime's ops (the
// pointwise fingerprint) and for the very source the JIT would compile now (a 128-bit hash of it,
// which also covers the math header and the text writer); else the group is compiled by NVRTC
// (counter cuda.aot.stale). A kernel that cannot be loaded on the device (built for other
// architectures) is compiled by NVRTC when first loaded (counter cuda.aot.load_fallback).
//
// Thread safety: registration happens during static initialization, lookups afterwards.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lazygen::cuda {

// The IR version of CUDA keys and of this contract; equal to the cpu's kAotIrVersion (keys share
// their grammar), checked where both are visible (cuda_aot_registry.cpp).
inline constexpr uint32_t kCudaAotIrVersion = 1;

// One generated kernel. `key` is the CUDA key text, `hash_hi`/`hash_lo` its 128-bit hash as the
// generator computed it, `generator_hash` the fingerprint of the ops' pointwise expressions,
// `source_hi`/`source_lo` the hash of the NVRTC source the kernel stands for, `index32` and
// `index64` the addresses of its two __global__ entry points (int and long long indices).
struct CudaAotEntry {
  const char* key = "";
  uint64_t hash_hi = 0;
  uint64_t hash_lo = 0;
  uint32_t ir_version = 0;
  const char* generator_hash = "";
  uint64_t source_hi = 0;
  uint64_t source_lo = 0;
  const void* index32 = nullptr;
  const void* index64 = nullptr;
};

// Adds entries to the process's CUDA registry; a generated file holds one at namespace scope.
// `entries` must outlive the process (generated files pass static arrays).
struct CudaAotRegistration {
  CudaAotRegistration(const CudaAotEntry* entries, size_t count);
};

}  // namespace lazygen::cuda
