// Launch arguments of the eager CUDA sum/mean/amax kernel (reduce.cu): plain data passed by
// value. Output element o (row-major over the kept dims) is the sum, mean or maximum of the input
// over the reduced dims; both dim lists carry element strides of the input, which may be any view.
#pragma once

#include <cstdint>

#include "backend/cuda/eager/pointwise_args.h"

namespace lazygen::cuda {

inline constexpr int kMaxReduceDims = 8;

struct ReduceArgs {
  const void* in = nullptr;
  DType in_dtype = DType::Float32;
  void* out = nullptr;  // contiguous
  DType out_dtype = DType::Float32;
  int64_t out_numel = 0;
  int kept_ndim = 0;
  int64_t kept_sizes[kMaxReduceDims] = {};
  int64_t kept_strides[kMaxReduceDims] = {};
  int reduced_ndim = 0;
  int64_t reduced_sizes[kMaxReduceDims] = {};
  int64_t reduced_strides[kMaxReduceDims] = {};
  int64_t reduced_numel = 1;
  bool mean = false;  // divide by reduced_numel
  bool max = false;   // the maximum (NaN propagates, as kernels::max) instead of the sum
};

// Sums, averages or takes the maximum (args.max) in the accumulation type of out_dtype: double
// for float64, float for float32, int64 otherwise. REQUIRES: device pointers; out_numel > 0;
// reduced_numel > 0 for a maximum.
void launch_reduce_sum(const ReduceArgs& args, cudaStream_t stream);

}  // namespace lazygen::cuda
