// The host side of one fusion-group kernel launch (group_kernel_source.h): the launch shape,
// whether the 32-bit entry point may run, and the kernel's argument block, packed exactly as the
// emitted `struct GroupArgs` lays it out. Pure host code, so it is tested without a GPU; the
// CUDA backend (cuda_backend.h) hands the packed block to cuLaunchKernel as the one parameter.
//
// Note [Group argument block]
// GroupArgs holds, in order, one pointer per input and per output, numel, sizes[dims], the
// strides of each Strided input, scalars[max(1, n)] and `int vectorized`. Every field but the
// last is 8 bytes with 8-byte alignment, so the block is an array of 64-bit words; the int sits
// in the low half of the last word (x86-64 and the GPU are little-endian) and the struct's size
// is that array's size, which is what the driver copies.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/cuda/jit/group_kernel_source.h"

namespace lazygen::cuda {

inline constexpr int kGroupThreads = 256;
inline constexpr int64_t kMaxGroupBlocks = 65535;

struct GroupLaunch {
  int64_t blocks = 1;
  bool index32 = true;  // run kGroupKernel32
};

// Enough blocks to give each thread one element (one vector on the vectorized path), at most
// kMaxGroupBlocks (the grid-stride loop does the rest); int32 indexing when numel plus one grid
// stride and every input's element extent (offset + furthest strided element) fit in int32.
GroupLaunch plan_group_launch(const GroupKernel& k, bool vectorized);

// Whether the vectorized path may run: the kernel has one, and every contiguous input and every
// output pointer is aligned to vector_width elements of its dtype.
bool can_vectorize(const GroupKernel& k, const std::vector<const void*>& inputs,
                   const std::vector<void*>& outputs);

// The argument block. `inputs` per GroupKernel::inputs (already advanced by their offsets),
// `outputs` per GroupKernel::outputs, `scalars` per GroupKernel::scalar_nodes.
// See Note [Group argument block].
std::vector<uint64_t> pack_group_args(const GroupKernel& k, const std::vector<const void*>& inputs,
                                      const std::vector<void*>& outputs,
                                      const std::vector<double>& scalars, bool vectorized);

}  // namespace lazygen::cuda
