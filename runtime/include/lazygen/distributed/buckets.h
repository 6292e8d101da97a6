// Gradient buckets (See Note [Gradient buckets] in lazygen/distributed.h): the planning and the
// bucketed mean all-reduce that DistributedDataParallel and the PyTorch device's
// lazygen_torch.distributed share. Part of lazygen::runtime (no engine needed to build it).
#pragma once

#include <cstdint>
#include <vector>

#include "lazygen/tensor.h"

namespace lazygen::distributed {

// Buckets of indices into `tensors`: in reverse order, one dtype and device per bucket, at most
// `bucket_bytes` each (a larger tensor is a bucket of its own). Undefined tensors are left out.
// Throws std::invalid_argument unless bucket_bytes > 0.
std::vector<std::vector<size_t>> plan_buckets(const std::vector<Tensor>& tensors,
                                              int64_t bucket_bytes);

// Replaces every tensor of every bucket by its mean over the ranks, in place: one all_reduce
// per bucket, of the bucket's tensors flattened into one (traced on the lazy device). Every
// rank must call it with tensors of the same sizes. REQUIRES: the buckets' tensors are defined.
void all_reduce_mean(const std::vector<Tensor>& tensors,
                     const std::vector<std::vector<size_t>>& buckets);

// Copies rank 0's values of `tensors` into every rank's, in place, and waits until it is done
// (on the lazy device too). Undefined tensors are skipped.
void broadcast_from_rank0(const std::vector<Tensor>& tensors);

}  // namespace lazygen::distributed
