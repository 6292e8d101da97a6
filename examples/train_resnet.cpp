// train_resnet: trains a ResNet-18 (examples/real_models.h) on Fashion-MNIST padded to 32x32, on
// the lazy device (or eagerly on the cpu with --device cpu).
//
//   train_resnet [--device lazy|cpu] [--steps N] [--log-every N] [--seed N]
//
// Batches of 32 in a shuffled order; SGD with momentum 0.9, weight decay 5e-4, lr 0.02; batch
// norm in training mode (running statistics updated every step); cross-entropy. Each step
// (forward, backward, update) is one graph on the lazy device: compiled at the first steps
// (momentum buffers appear at the second), a cache hit afterwards. Prints the loss of the first
// five steps and then every --log-every steps, and the number of graphs compiled. Exit status: 0,
// 1 on bad arguments or missing data.
#include <cstdio>

#include "lazygen/autograd.h"
#include "lazygen/data/fashion_mnist.h"
#include "lazygen/optim/optimizer.h"
#include "real_models.h"
#include "step_loop.h"

using namespace lazygen;

int main(int argc, char** argv) {
  examples::LoopOptions o;
  if (!examples::parse_loop_options(
          argc, argv, "train_resnet [--device lazy|cpu] [--steps N] [--log-every N] [--seed N]",
          o)) {
    return 1;
  }
  try {
    const data::FashionMnist train(data::Split::Train);
    data::DataLoader loader(train, 32, /*shuffle=*/true, static_cast<uint64_t>(o.seed));
    manual_seed(static_cast<uint64_t>(o.seed));
    examples::ResNet18 model;
    model.to(o.device);
    optim::SGD opt(model.parameters(), {.lr = 0.02, .momentum = 0.9, .weight_decay = 5e-4});
    std::printf(
        "ResNet-18, %lld parameters, on %s, batch 32 of Fashion-MNIST padded to 32x32, SGD "
        "momentum 0.9\n",
        static_cast<long long>(model.parameter_count()), o.device.str().c_str());
    examples::run_steps(o, [&](int64_t i) {
      const data::Batch b = loader.batch((i - 1) % loader.num_batches());
      const Tensor x = constant_pad_nd(b.images, {2, 2, 2, 2}).to(o.device),
                   y = b.targets.to(o.device);
      opt.zero_grad();
      Tensor loss = nn::functional::cross_entropy(model.forward(x), y);
      loss.backward();
      opt.step();
      return loss;
    });
  } catch (const data::DataError& e) {
    std::fprintf(stderr, "train_resnet: %s\n", e.what());
    return 1;
  }
  return 0;
}
