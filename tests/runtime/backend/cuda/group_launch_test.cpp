// The host side of a group launch (backend/cuda/lazy/group_launch.h): the packed argument block
// follows the emitted GroupArgs field by field, the 32-bit entry point is taken only when every
// index fits, and the vectorized path only for aligned pointers. No GPU needed.
#include "backend/cuda/lazy/group_launch.h"

#include <gtest/gtest.h>

#include <bit>
#include <limits>

namespace lazygen::cuda {
namespace {

using Access = GroupKernel::Access;

GroupKernel two_inputs(int64_t rows, int64_t cols) {
  GroupKernel k;
  k.numel = rows * cols;
  k.dims = {rows, cols};
  k.inputs.push_back({0, 0, DType::Float32, Access::Contiguous, {cols, 1}});
  k.inputs.push_back({1, 3, DType::Float32, Access::Strided, {1, rows}});
  k.outputs.push_back({5, DType::Float32});
  k.scalar_nodes = {7};
  k.vector_width = 1;
  return k;
}

TEST(GroupLaunch, TheArgumentBlockFollowsTheStructLayout) {
  const GroupKernel k = two_inputs(4, 8);
  const void* in0 = reinterpret_cast<const void*>(0x1000);
  const void* in1 = reinterpret_cast<const void*>(0x2000);
  void* out0 = reinterpret_cast<void*>(0x3000);
  const std::vector<uint64_t> w = pack_group_args(k, {in0, in1}, {out0}, {2.5}, false);
  // in0, in1, out0, numel, sizes[2], in1_strides[2], scalars[1], vectorized
  ASSERT_EQ(w.size(), 10u);
  EXPECT_EQ(w[0], 0x1000u);
  EXPECT_EQ(w[1], 0x2000u);
  EXPECT_EQ(w[2], 0x3000u);
  EXPECT_EQ(w[3], 32u);
  EXPECT_EQ(w[4], 4u);
  EXPECT_EQ(w[5], 8u);
  EXPECT_EQ(w[6], 1u);
  EXPECT_EQ(w[7], 4u);
  EXPECT_EQ(std::bit_cast<double>(w[8]), 2.5);
  EXPECT_EQ(w[9], 0u);
}

TEST(GroupLaunch, AKernelWithoutScalarsStillHasOneScalarSlot) {
  GroupKernel k = two_inputs(2, 2);
  k.scalar_nodes.clear();
  const std::vector<uint64_t> w = pack_group_args(k, {nullptr, nullptr}, {nullptr}, {}, true);
  ASSERT_EQ(w.size(), 10u);
  EXPECT_EQ(w[9], 1u) << "vectorized flag";
}

TEST(GroupLaunch, MismatchedArgumentsAreALogicError) {
  const GroupKernel k = two_inputs(2, 2);
  EXPECT_THROW(pack_group_args(k, {nullptr}, {nullptr}, {1.0}, false), std::logic_error);
}

TEST(GroupLaunch, SmallGroupsUse32BitIndexing) {
  const GroupLaunch l = plan_group_launch(two_inputs(1000, 1000), false);
  EXPECT_TRUE(l.index32);
  EXPECT_EQ(l.blocks, (1000 * 1000 + kGroupThreads - 1) / kGroupThreads);
}

TEST(GroupLaunch, AnIterationSpaceNearInt32MaxUses64BitIndexing) {
  // 2^31 - 16 elements: numel fits, numel plus one grid stride does not.
  const GroupLaunch l = plan_group_launch(two_inputs(1, (int64_t{1} << 31) - 16), false);
  EXPECT_FALSE(l.index32);
  EXPECT_EQ(l.blocks, kMaxGroupBlocks);
}

TEST(GroupLaunch, AnInputReachingPastInt32MaxUses64BitIndexing) {
  GroupKernel k = two_inputs(1000, 1000);
  k.inputs[1].strides = {1, int64_t{1} << 22};  // the furthest element is beyond 2^31
  EXPECT_FALSE(plan_group_launch(k, false).index32);
}

TEST(GroupLaunch, TheVectorizedPathNeedsAlignedPointers) {
  GroupKernel k = two_inputs(4, 8);
  k.inputs.pop_back();
  k.vector_width = 4;
  alignas(16) static float buffer[64];
  EXPECT_TRUE(can_vectorize(k, {buffer}, {buffer + 32}));
  EXPECT_FALSE(can_vectorize(k, {buffer + 1}, {buffer + 32}));
  EXPECT_FALSE(can_vectorize(k, {buffer}, {buffer + 2}));
  k.vector_width = 1;
  EXPECT_FALSE(can_vectorize(k, {buffer}, {buffer + 32}));
  EXPECT_EQ(plan_group_launch(k, false).blocks, 1);
}

}  // namespace
}  // namespace lazygen::cuda
