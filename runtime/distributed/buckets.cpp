// Gradient buckets (lazygen/distributed/buckets.h).
#include "lazygen/distributed/buckets.h"

#include <stdexcept>

#include "lazygen/autograd.h"
#include "lazygen/distributed/communicator.h"
#include "lazygen/generated/ops/all_reduce.h"
#include "lazygen/generated/ops/broadcast.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/view.h"
#include "lazygen/lazy.h"
#include "lazygen/operators.h"

namespace lazygen::distributed {
namespace {

int64_t bytes_of(const Tensor& t) { return t.numel() * static_cast<int64_t>(itemsize(t.dtype())); }

}  // namespace

std::vector<std::vector<size_t>> plan_buckets(const std::vector<Tensor>& tensors,
                                              int64_t bucket_bytes) {
  if (bucket_bytes <= 0) throw std::invalid_argument("gradient buckets: bucket_bytes must be positive");
  std::vector<std::vector<size_t>> buckets;
  std::vector<size_t> open;
  int64_t open_bytes = 0;
  for (size_t k = tensors.size(); k-- > 0;) {
    const Tensor& t = tensors[k];
    if (!t.defined()) continue;
    const bool fits = !open.empty() && open_bytes + bytes_of(t) <= bucket_bytes &&
                      tensors[open.front()].dtype() == t.dtype() &&
                      tensors[open.front()].device() == t.device();
    if (!fits && !open.empty()) {
      buckets.push_back(std::move(open));
      open.clear();
      open_bytes = 0;
    }
    open.push_back(k);
    open_bytes += bytes_of(t);
  }
  if (!open.empty()) buckets.push_back(std::move(open));
  return buckets;
}

void all_reduce_mean(const std::vector<Tensor>& tensors,
                     const std::vector<std::vector<size_t>>& buckets) {
  NoGradGuard no_grad;
  for (const std::vector<size_t>& bucket : buckets) {
    if (bucket.size() == 1) {
      const Tensor& t = tensors[bucket[0]];
      t.copy_(all_reduce(t, "mean"));
      continue;
    }
    std::vector<Tensor> flat;
    for (size_t k : bucket) flat.push_back(reshape(tensors[k], {-1}));
    const Tensor mean = all_reduce(cat(flat, 0), "mean");
    int64_t offset = 0;
    for (size_t k : bucket) {
      const Tensor& t = tensors[k];
      t.copy_(view(narrow(mean, 0, offset, t.numel()), t.sizes()));
      offset += t.numel();
    }
  }
}

void broadcast_from_rank0(const std::vector<Tensor>& tensors) {
  NoGradGuard no_grad;
  std::vector<Tensor> lazy;
  for (const Tensor& t : tensors) {
    if (!t.defined()) continue;
    t.copy_(broadcast(t, 0));
    if (t.device().is_lazy()) lazy.push_back(t);
  }
  if (!lazy.empty()) {
    sync(lazy);
    wait_device_ops();  // the broadcasts are done before the first step
  }
}

}  // namespace lazygen::distributed
