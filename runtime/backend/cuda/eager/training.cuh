// Device helpers shared by the eager CUDA training kernels (conv.cu, pool.cu, softmax.cu,
// loss.cu): the float32/float64 dispatch of a launch, the launch error check, a deterministic
// block reduction and the first-bad-position report. nvcc only.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "backend/cuda/eager/training_args.h"

namespace lazygen::cuda::detail {

// Throws std::runtime_error "CUDA <kernel> launch: <error>" when the last launch failed.
inline void check_launch(const char* kernel) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string("CUDA ") + kernel + " launch: " + cudaGetErrorString(err));
  }
}

// Calls f(T{}) with T = double for float64, float otherwise (callers validated the dtype).
template <class F>
void dispatch_floating(DType dtype, F&& f) {
  if (dtype == DType::Float64) {
    f(double{});
  } else {
    f(float{});
  }
}

// A grid-stride loop: for (int64_t i = grid_first(); i < n; i += grid_stride()).
__device__ inline int64_t grid_first() {
  return blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
}
__device__ inline int64_t grid_stride() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

// Records `pos` as bad: the smallest reported position wins.
__device__ inline void report_bad(unsigned long long* first_bad, int64_t pos) {
  if (first_bad != nullptr) atomicMin(first_bad, static_cast<unsigned long long>(pos));
}

// The combination of every thread's `v` in a block of kTrainingThreads threads, returned to
// every thread. The tree is fixed, so the result does not depend on scheduling. `scratch` holds
// kTrainingThreads values; the call synchronizes the block (all threads must call it).
template <class T, class Combine>
__device__ T block_reduce(T v, T* scratch, Combine combine) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int half = kTrainingThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      scratch[threadIdx.x] = combine(scratch[threadIdx.x], scratch[threadIdx.x + half]);
    }
    __syncthreads();
  }
  const T result = scratch[0];
  __syncthreads();
  return result;
}

}  // namespace lazygen::cuda::detail
