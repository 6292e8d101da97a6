// DistributedDataParallel (lazygen/distributed.h; See Note [Gradient buckets]).
#include <stdexcept>

#include "lazygen/distributed.h"
#include "lazygen/distributed/buckets.h"

namespace lazygen::distributed {

DistributedDataParallel::DistributedDataParallel(nn::Module& module, DdpOptions options) {
  communicator("DistributedDataParallel");
  params_ = module.named_parameters();
  std::vector<Tensor> trained;  // the parameters gradients flow to, others left undefined
  for (const auto& [name, p] : params_) trained.push_back(p.requires_grad() ? p : Tensor());
  buckets_ = plan_buckets(trained, options.bucket_bytes);
  if (options.broadcast_parameters) {
    std::vector<Tensor> all;
    for (const auto& [name, p] : params_) all.push_back(p);
    for (const auto& [name, b] : module.named_buffers()) all.push_back(b);
    broadcast_from_rank0(all);
  }
}

void DistributedDataParallel::all_reduce_gradients() {
  std::vector<Tensor> grads;
  for (const auto& [name, p] : params_) grads.push_back(p.grad());
  for (const std::vector<size_t>& bucket : buckets_) {
    for (size_t k : bucket) {
      if (grads[k].defined()) continue;
      throw std::runtime_error(
          "DistributedDataParallel: parameter '" + params_[k].first + "' has no gradient on rank " +
          std::to_string(rank()) +
          "; every parameter that requires grad must take part in the loss on every rank (or "
          "be frozen with requires_grad_(false) before DistributedDataParallel is made)");
    }
  }
  all_reduce_mean(grads, buckets_);
}

}  // namespace lazygen::distributed
