// The tutorial CNN's training step (examples/tutorial_models.h) for the CUDA tests: a fixed
// model, optimizer and batch from a seed, so runs on cpu, cuda and the lazy device start alike.
#pragma once

#include <memory>
#include <vector>

#include "lazygen/aot.h"
#include "lazygen/autograd.h"
#include "lazygen/composite.h"
#include "lazygen/conv.h"
#include "lazygen/cuda.h"
#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/nll_loss.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/operators.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"
#include "lazygen/version.h"
#include "tutorial_models.h"

namespace lazygen::testing {

// A model, its Adadelta optimizer and a batch of `batch` images, all drawn after manual_seed(seed)
// (so every run draws the same parameters, data and, later, the same dropout seeds).
struct CnnRun {
  std::unique_ptr<examples::TutorialCnn> model;
  std::unique_ptr<optim::Adadelta> opt;
  Tensor images, targets;

  CnnRun(Device device, int64_t batch, uint64_t seed = 7) {
    manual_seed(seed);
    model = std::make_unique<examples::TutorialCnn>();
    model->to(device);
    opt = std::make_unique<optim::Adadelta>(model->parameters(), optim::AdadeltaOptions{});
    images = randn({batch, 1, 28, 28});
    targets = randint(0, 10, {batch});
  }

  // One step without mark_step: the loss and every parameter after the update (pending on the
  // lazy device).
  std::vector<Tensor> step(Device device) {
    const Tensor x = images.to(device), y = targets.to(device);
    opt->zero_grad();
    Tensor loss = nn::functional::nll_loss(model->forward(x), y);
    loss.backward();
    opt->step();
    std::vector<Tensor> out = {loss};
    for (const Tensor& p : model->parameters()) out.push_back(p);
    return out;
  }
};

}  // namespace lazygen::testing
