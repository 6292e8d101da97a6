// The eager CUDA sum/mean/amax kernel (reduce_args.h): one block per output element (grid-stride
// over outputs), each thread reducing a strided slice of the reduced elements, then a
// shared-memory tree. Inputs of any dtype are converted on load (the pointwise loads of
// pointwise.cuh); the maximum is kernels::max, the cpu amax's step (NaN propagates).
#include <limits>
#include <stdexcept>
#include <string>

#include "backend/cuda/eager/pointwise.cuh"
#include "backend/cuda/eager/reduce_args.h"
#include "lazygen/kernels/pointwise_math.h"

namespace lazygen::cuda {
namespace {

constexpr int kThreads = 256;

__device__ int64_t strided_offset(int64_t linear, int ndim, const int64_t* sizes,
                                  const int64_t* strides) {
  int64_t offset = 0;
  for (int d = ndim - 1; d >= 0; --d) {
    offset += (linear % sizes[d]) * strides[d];
    linear /= sizes[d];
  }
  return offset;
}

// a + b, or the maximum of the two.
template <class Acc>
__device__ Acc combine(const ReduceArgs& a, Acc l, Acc r) {
  return a.max ? static_cast<Acc>(kernels::max(l, r)) : l + r;
}

template <class Acc>
__global__ void reduce_sum_kernel(ReduceArgs a) {
  __shared__ Acc partial[kThreads];
  const Acc init =
      a.max ? (std::numeric_limits<Acc>::has_infinity ? -std::numeric_limits<Acc>::infinity()
                                                      : std::numeric_limits<Acc>::lowest())
            : Acc(0);
  for (int64_t o = blockIdx.x; o < a.out_numel; o += gridDim.x) {
    const int64_t base = strided_offset(o, a.kept_ndim, a.kept_sizes, a.kept_strides);
    Acc acc = init;
    for (int64_t r = threadIdx.x; r < a.reduced_numel; r += blockDim.x) {
      const int64_t at =
          base + strided_offset(r, a.reduced_ndim, a.reduced_sizes, a.reduced_strides);
      acc = combine(a, acc, detail::load_as<Acc>(a.in, a.in_dtype, at));
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) {
        partial[threadIdx.x] = combine(a, partial[threadIdx.x], partial[threadIdx.x + half]);
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      Acc v = partial[0];
      if (a.mean) v = v / static_cast<Acc>(a.reduced_numel);
      detail::store_as<Acc>(a.out, a.out_dtype, o, v);
    }
    __syncthreads();
  }
}

template <class Acc>
void launch(const ReduceArgs& a, cudaStream_t stream) {
  const int64_t blocks = a.out_numel < (int64_t{1} << 20) ? a.out_numel : (int64_t{1} << 20);
  reduce_sum_kernel<Acc><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a);
}

}  // namespace

void launch_reduce_sum(const ReduceArgs& a, cudaStream_t stream) {
  switch (a.out_dtype) {
    case DType::Float64:
      launch<double>(a, stream);
      break;
    case DType::Float32:
      launch<float>(a, stream);
      break;
    default:
      launch<int64_t>(a, stream);
      break;
  }
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    throw std::runtime_error(std::string("CUDA sum launch: ") + cudaGetErrorString(err));
}

}  // namespace lazygen::cuda
