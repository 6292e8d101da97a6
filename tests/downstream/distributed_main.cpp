// Links lazygen::distributed by its documented name and runs it as a world of one (the "local"
// engine, no mpirun): a traced all-reduce and a DistributedDataParallel step on the lazy device,
// whose gradients must equal those of the same step without it.
#include <cstdio>

#include "lazygen/distributed.h"
#include "lazygen/lazygen.h"
#include "lazygen/nn/layers.h"

using namespace lazygen;

namespace {

// The gradient of the weight of a Linear(4, 2) after one backward, with or without DDP.
Tensor weight_grad(bool ddp) {
  manual_seed(1);
  nn::Linear model(4, 2);
  model.to(kLazy);
  Tensor x = randn({6, 4});
  if (ddp) {
    distributed::DistributedDataParallel wrapped(model);
    model.forward(distributed::shard(x).to(kLazy)).sum().backward();
    wrapped.all_reduce_gradients();
  } else {
    model.forward(x.to(kLazy)).sum().backward();
  }
  return model.weight().grad().cpu();
}

}  // namespace

int main() {
  distributed::init({.engine = "local"});
  Tensor x = randn({5});
  double reduce_diff = (all_reduce(x.to(kLazy), "mean").cpu() - x).abs().sum().item<double>();
  double ddp_diff = (weight_grad(true) - weight_grad(false)).abs().sum().item<double>();
  std::printf("downstream distributed: world of %d, all_reduce |diff| = %g, ddp grad |diff| = %g\n",
              distributed::world_size(), reduce_diff, ddp_diff);
  distributed::finalize();
  return reduce_diff < 1e-6 && ddp_diff < 1e-5 ? 0 : 1;
}
