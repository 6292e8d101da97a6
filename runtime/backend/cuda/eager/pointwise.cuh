// The shared loop of the eager CUDA pointwise kernels: launch_pointwise<Fn>(args, stream) runs the
// scalar functor Fn (generated, pointwise_ops.h) over every element, grid-stride, in compute type
// T. The contiguous path reads and writes T directly; the general path maps each linear index to
// per-operand offsets through the strides and converts dtypes on load and store. Indices are
// 32-bit when every offset fits, 64-bit otherwise (chosen per launch).
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "backend/cuda/eager/pointwise_args.h"

namespace lazygen::cuda {
namespace detail {

template <class T>
__device__ T load_as(const void* p, DType t, int64_t i) {
  switch (t) {
    case DType::Bool:
      return static_cast<T>(static_cast<const bool*>(p)[i]);
    case DType::Int32:
      return static_cast<T>(static_cast<const int32_t*>(p)[i]);
    case DType::Int64:
      return static_cast<T>(static_cast<const int64_t*>(p)[i]);
    case DType::Float32:
      return static_cast<T>(static_cast<const float*>(p)[i]);
    case DType::Float64:
      break;
  }
  return static_cast<T>(static_cast<const double*>(p)[i]);
}

template <class T>
__device__ void store_as(void* p, DType t, int64_t i, T v) {
  switch (t) {
    case DType::Bool:
      static_cast<bool*>(p)[i] = v != T(0);
      return;
    case DType::Int32:
      static_cast<int32_t*>(p)[i] = static_cast<int32_t>(v);
      return;
    case DType::Int64:
      static_cast<int64_t*>(p)[i] = static_cast<int64_t>(v);
      return;
    case DType::Float32:
      static_cast<float*>(p)[i] = static_cast<float>(v);
      return;
    case DType::Float64:
      static_cast<double*>(p)[i] = static_cast<double>(v);
      return;
  }
}

template <class Index>
__device__ Index offset_of(const PointwiseArgs& a, const int64_t* strides, Index linear) {
  Index offset = 0;
  for (int d = a.ndim - 1; d >= 0; --d) {
    Index size = static_cast<Index>(a.sizes[d]);
    offset += (linear % size) * static_cast<Index>(strides[d]);
    linear /= size;
  }
  return offset;
}

// One element. A __global__ template may have only one (trailing) pack, so the packs live here.
template <class Fn, class T, class Index, size_t... I, size_t... S>
__device__ void pointwise_element(const PointwiseArgs& a, Index i, std::index_sequence<I...>,
                                  std::index_sequence<S...>) {
  Fn fn;
  if (a.contiguous) {
    static_cast<T*>(a.out)[i] = static_cast<T>(fn.template operator()<T>(
        static_cast<const T*>(a.in[I])[i]..., static_cast<T>(a.scalars[S])...));
  } else {
    T v = static_cast<T>(fn.template operator()<T>(
        load_as<T>(a.in[I], a.in_dtype[I], offset_of<Index>(a, a.in_strides[I], i))...,
        static_cast<T>(a.scalars[S])...));
    store_as<T>(a.out, a.out_dtype, offset_of<Index>(a, a.out_strides, i), v);
  }
}

template <class Fn, class T, class Index>
__global__ void pointwise_kernel(PointwiseArgs a) {
  Index n = static_cast<Index>(a.numel);
  for (Index i = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<Index>(gridDim.x) * blockDim.x) {
    pointwise_element<Fn, T, Index>(a, i, std::make_index_sequence<Fn::kTensors>{},
                                    std::make_index_sequence<Fn::kScalars>{});
  }
}

template <class Fn, class T>
void launch_typed(const PointwiseArgs& a, cudaStream_t stream) {
  constexpr int kThreads = 256;
  int64_t blocks = (a.numel + kThreads - 1) / kThreads;
  unsigned grid = static_cast<unsigned>(blocks < 65535 * 8 ? (blocks > 0 ? blocks : 1) : 65535 * 8);
  if (a.numel <= INT32_MAX) {
    pointwise_kernel<Fn, T, int32_t><<<grid, kThreads, 0, stream>>>(a);
  } else {
    pointwise_kernel<Fn, T, int64_t><<<grid, kThreads, 0, stream>>>(a);
  }
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    throw std::runtime_error(std::string("CUDA pointwise launch: ") + cudaGetErrorString(err));
}

// launch_typed<Fn, T>, or a logic_error when Fn does not compute in T (See Note [Kernel dtypes]
// in generator/model/kernel_dtypes.h; the op API refuses such dtypes before).
template <class Fn, class T>
void launch_if(const PointwiseArgs& a, cudaStream_t stream) {
  if constexpr (kComputesIn<Fn, T>) {
    launch_typed<Fn, T>(a, stream);
  } else {
    throw std::logic_error(
        std::string("CUDA pointwise kernel: no instantiation for compute dtype ") +
        std::string(dtype_name(a.compute)));
  }
}

}  // namespace detail

template <class Fn>
void launch_pointwise(const PointwiseArgs& a, cudaStream_t stream) {
  if (a.numel == 0) return;
  switch (a.compute) {
    case DType::Float64:
      return detail::launch_if<Fn, double>(a, stream);
    case DType::Int64:
      return detail::launch_if<Fn, int64_t>(a, stream);
    case DType::Int32:
      return detail::launch_if<Fn, int32_t>(a, stream);
    case DType::Bool:
      return detail::launch_if<Fn, bool>(a, stream);
    case DType::Float32:
      break;
  }
  detail::launch_if<Fn, float>(a, stream);
}

}  // namespace lazygen::cuda
