// Launch shape and argument block of a fusion-group kernel (group_launch.h).
#include "backend/cuda/lazy/group_launch.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace lazygen::cuda {
namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// Elements from the buffer's start to one past the furthest element the input reads.
int64_t extent_of(const GroupKernel& k, const GroupKernel::Input& in) {
  if (in.access == GroupKernel::Access::Broadcast) return in.offset + 1;
  if (in.access == GroupKernel::Access::Contiguous) return in.offset + k.numel;
  int64_t furthest = 0;
  for (size_t d = 0; d < k.dims.size(); ++d) {
    furthest += (k.dims[d] - 1) * std::abs(in.strides[d]);
  }
  return in.offset + furthest + 1;
}

bool aligned(const void* p, size_t bytes) {
  return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

uint64_t word_of(const void* p) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
}

}  // namespace

GroupLaunch plan_group_launch(const GroupKernel& k, bool vectorized) {
  GroupLaunch launch;
  const int64_t per_thread = vectorized ? k.vector_width : 1;
  const int64_t work = (k.numel + per_thread - 1) / per_thread;
  launch.blocks =
      std::clamp<int64_t>((work + kGroupThreads - 1) / kGroupThreads, 1, kMaxGroupBlocks);
  const int64_t stride = launch.blocks * kGroupThreads;
  launch.index32 = k.numel + stride <= kInt32Max;
  for (const GroupKernel::Input& in : k.inputs) {
    if (extent_of(k, in) > kInt32Max) launch.index32 = false;
  }
  return launch;
}

bool can_vectorize(const GroupKernel& k, const std::vector<const void*>& inputs,
                   const std::vector<void*>& outputs) {
  if (k.vector_width <= 1) return false;
  const size_t width = static_cast<size_t>(k.vector_width);
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    if (k.inputs[i].access != GroupKernel::Access::Contiguous) continue;
    if (!aligned(inputs[i], itemsize(k.inputs[i].dtype) * width)) return false;
  }
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    if (!aligned(outputs[o], itemsize(k.outputs[o].dtype) * width)) return false;
  }
  return true;
}

std::vector<uint64_t> pack_group_args(const GroupKernel& k, const std::vector<const void*>& inputs,
                                      const std::vector<void*>& outputs,
                                      const std::vector<double>& scalars, bool vectorized) {
  if (inputs.size() != k.inputs.size() || outputs.size() != k.outputs.size() ||
      scalars.size() != k.scalar_nodes.size()) {
    throw std::logic_error("cuda: group arguments do not match the kernel's signature");
  }
  std::vector<uint64_t> words;
  for (const void* p : inputs) words.push_back(word_of(p));
  for (void* p : outputs) words.push_back(word_of(p));
  words.push_back(static_cast<uint64_t>(k.numel));
  for (int64_t s : k.dims) words.push_back(static_cast<uint64_t>(s));
  for (const GroupKernel::Input& in : k.inputs) {
    if (in.access != GroupKernel::Access::Strided) continue;
    for (int64_t s : in.strides) words.push_back(static_cast<uint64_t>(s));
  }
  for (double s : scalars) words.push_back(std::bit_cast<uint64_t>(s));
  if (scalars.empty()) words.push_back(0);
  words.push_back(vectorized ? 1 : 0);
  return words;
}

}  // namespace lazygen::cuda
