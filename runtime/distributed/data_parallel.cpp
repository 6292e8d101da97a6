// DistributedDataParallel (lazygen/distributed.h; See Note [Gradient buckets]).
#include <stdexcept>

#include "lazygen/autograd.h"
#include "lazygen/distributed.h"
#include "lazygen/lazy.h"
#include "lazygen/operators.h"

namespace lazygen::distributed {
namespace {

int64_t bytes_of(const Tensor& t) { return t.numel() * static_cast<int64_t>(itemsize(t.dtype())); }

// Copies rank 0's values of `tensors` into every rank's, in place; syncs them on the lazy device.
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

}  // namespace

DistributedDataParallel::DistributedDataParallel(nn::Module& module, DdpOptions options) {
  communicator("DistributedDataParallel");
  if (options.bucket_bytes <= 0) {
    throw std::invalid_argument("DistributedDataParallel: bucket_bytes must be positive");
  }
  params_ = module.named_parameters();
  if (options.broadcast_parameters) {
    std::vector<Tensor> all;
    for (const auto& [name, p] : params_) all.push_back(p);
    for (const auto& [name, b] : module.named_buffers()) all.push_back(b);
    broadcast_from_rank0(all);
  }
  // Reverse registration order, one dtype and device per bucket.
  std::vector<size_t> open;
  int64_t open_bytes = 0;
  for (size_t k = params_.size(); k-- > 0;) {
    const Tensor& p = params_[k].second;
    if (!p.requires_grad()) continue;
    const bool fits = !open.empty() && open_bytes + bytes_of(p) <= options.bucket_bytes &&
                      params_[open.front()].second.dtype() == p.dtype() &&
                      params_[open.front()].second.device() == p.device();
    if (!fits && !open.empty()) {
      buckets_.push_back(std::move(open));
      open.clear();
      open_bytes = 0;
    }
    open.push_back(k);
    open_bytes += bytes_of(p);
  }
  if (!open.empty()) buckets_.push_back(std::move(open));
}

void DistributedDataParallel::all_reduce_gradients() {
  NoGradGuard no_grad;
  for (const std::vector<size_t>& bucket : buckets_) {
    std::vector<Tensor> grads;
    for (size_t k : bucket) {
      const Tensor g = params_[k].second.grad();
      if (!g.defined()) {
        throw std::runtime_error(
            "DistributedDataParallel: parameter '" + params_[k].first +
            "' has no gradient on rank " + std::to_string(rank()) +
            "; every parameter that requires grad must take part in the loss on every rank (or "
            "be frozen with requires_grad_(false) before DistributedDataParallel is made)");
      }
      grads.push_back(g);
    }
    if (grads.size() == 1) {
      grads[0].copy_(all_reduce(grads[0], "mean"));
      continue;
    }
    std::vector<Tensor> flat;
    for (const Tensor& g : grads) flat.push_back(reshape(g, {-1}));
    const Tensor mean = all_reduce(cat(flat, 0), "mean");
    int64_t offset = 0;
    for (Tensor& g : grads) {
      g.copy_(view(narrow(mean, 0, offset, g.numel()), g.sizes()));
      offset += g.numel();
    }
  }
}

}  // namespace lazygen::distributed
