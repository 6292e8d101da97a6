// Launch arguments of the eager CUDA pointwise kernels (generated/src/cuda_kernels_<shard>.cu):
// plain data, passed by value to the kernel. Inputs and the output are device pointers with element
// strides over a common (broadcast) shape; a stride of 0 broadcasts.
#pragma once

#include <cstdint>

#include "lazygen/dtype.h"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#else
typedef struct CUstream_st* cudaStream_t;
#endif

namespace lazygen::cuda {

inline constexpr int kMaxPointwiseInputs = 4;
inline constexpr int kMaxPointwiseScalars = 4;
inline constexpr int kMaxPointwiseDims = 8;

struct PointwiseArgs {
  void* out = nullptr;
  DType out_dtype = DType::Float32;
  DType compute = DType::Float32;  // the functor's T
  int num_inputs = 0;
  const void* in[kMaxPointwiseInputs] = {};
  DType in_dtype[kMaxPointwiseInputs] = {};
  double scalars[kMaxPointwiseScalars] = {};
  int64_t numel = 0;
  int ndim = 0;
  int64_t sizes[kMaxPointwiseDims] = {};
  int64_t out_strides[kMaxPointwiseDims] = {};
  int64_t in_strides[kMaxPointwiseInputs][kMaxPointwiseDims] = {};
  bool contiguous = false;  // every operand dense, same layout, of dtype `compute`: the fast path
};

}  // namespace lazygen::cuda
