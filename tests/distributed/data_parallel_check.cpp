// data_parallel_check: run under mpirun, trains the tutorial CNN data-parallel on the lazy device
// and checks it against single-process training; or plays one of the failures the engine must
// report instead of hanging.
//
//   mpirun -np N data_parallel_check [--steps S] [--batch B] [--timeout SECONDS]
//                                    [--die-at STEP | --hang-at STEP | --diverge-at STEP]
//
// Each step takes global batch B (random images and labels, equal on every rank), gives each
// rank its B / N rows (distributed::shard), and runs forward, backward, the gradient all-reduce
// (DistributedDataParallel) and SGD with momentum as one traced graph. Dropout is off (eval
// mode), so the step is deterministic. SGD rather than the example's Adadelta (lr 1.0): on
// random labels Adadelta's steps are large enough that one ReLU or max-pool tie decided the
// other way by a reordered sum (step 14 of 20 in a 2-rank run) sends the two trajectories apart
// by 1e-3 relative, beyond any rounding tolerance. At the end every rank's parameters are gathered: they must be
// bitwise equal across ranks, and rank 0 trains the same model on the same global batches
// alone, whose parameters they must equal within float32 tolerance for reordered sums.
// The failure modes act on rank 1 at step STEP: --die-at exits at once (status 3, no MPI
// shutdown); --hang-at stops calling collectives (sleeps); --diverge-at all-reduces its gradients
// twice, a different step graph. Exit status: 0 when the check passes on every rank; 1 on a
// failed check or an error (every rank is ended through distributed::abort).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>
#include <unistd.h>

#include "lazygen/distributed.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/all_gather.h"
#include "lazygen/generated/ops/broadcast.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/nll_loss.h"
#include "lazygen/lazy.h"
#include "lazygen/nn/functional.h"
#include "tutorial_models.h"

using namespace lazygen;

namespace {

struct Options {
  int64_t steps = 20, batch = 64, die_at = -1, hang_at = -1, diverge_at = -1;
  double timeout_s = 60;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string name = argv[i];
    const char* value = argv[i + 1];
    if (name == "--timeout") {
      o.timeout_s = std::atof(value);
      continue;
    }
    int64_t* slots[] = {&o.steps, &o.batch, &o.die_at, &o.hang_at, &o.diverge_at};
    const char* names[] = {"--steps", "--batch", "--die-at", "--hang-at", "--diverge-at"};
    bool known = false;
    for (size_t k = 0; k < std::size(slots); ++k) {
      if (name == names[k]) {
        *slots[k] = std::atoll(value);
        known = true;
      }
    }
    if (!known) return false;
  }
  return argc % 2 == 1;
}

const optim::SGDOptions kSgd{.lr = 0.01, .momentum = 0.9};

// Global batch `step`: equal on every rank.
std::pair<Tensor, Tensor> global_batch(int64_t step, int64_t batch) {
  Generator g(1000 + static_cast<uint64_t>(step));
  return {randn({batch, 1, 28, 28}, g), randint(0, 10, {batch}, g)};
}

// The model as every rank starts it: rank 0's initialization (seed 1), dropout off.
std::unique_ptr<examples::TutorialCnn> fresh_model() {
  manual_seed(1);
  auto model = std::make_unique<examples::TutorialCnn>();
  model->eval();
  model->to(kLazy);
  return model;
}

Tensor flat_parameters(const nn::Module& model) {
  std::vector<Tensor> flat;
  for (const Tensor& p : model.parameters()) flat.push_back(p.cpu().reshape({-1}));
  return cat(flat, 0);
}

void train(examples::TutorialCnn& model, optim::Optimizer& opt, const Options& o,
           distributed::DistributedDataParallel* ddp) {
  const int me = ddp != nullptr ? distributed::rank() : 0;
  for (int64_t step = 0; step < o.steps; ++step) {
    if (ddp != nullptr && me == 1 && step == o.die_at) {
      std::fprintf(stderr, "rank 1: dying at step %lld\n", static_cast<long long>(step));
      std::fflush(stderr);
      _exit(3);
    }
    if (ddp != nullptr && me == 1 && step == o.hang_at) {
      std::fprintf(stderr, "rank 1: hanging at step %lld\n", static_cast<long long>(step));
      std::fflush(stderr);
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    auto [x, y] = global_batch(step, o.batch);
    if (ddp != nullptr) {
      x = distributed::shard(x);
      y = distributed::shard(y);
    }
    opt.zero_grad();
    nn::functional::nll_loss(model.forward(x.to(kLazy)), y.to(kLazy)).backward();
    if (ddp != nullptr) {
      ddp->all_reduce_gradients();
      if (me == 1 && step == o.diverge_at) ddp->all_reduce_gradients();
    }
    opt.step();
    mark_step();
  }
  wait_device_ops();
  for (const Tensor& p : model.parameters()) p.cpu();  // raises a failed step's error
}

// Rank 0's verdict: the ranks' parameters equal bitwise, and equal single-process training.
bool check(const Tensor& mine, const Tensor& gathered, const Options& o) {
  const int world = distributed::world_size();
  const int64_t n = mine.numel();
  const float* all = gathered.data_ptr<float>();
  for (int r = 1; r < world; ++r) {
    for (int64_t i = 0; i < n; ++i) {
      if (all[r * n + i] != all[i]) {
        std::printf("rank %d's parameter %lld differs from rank 0's: %.9g vs %.9g\n", r,
                    static_cast<long long>(i), all[r * n + i], all[i]);
        return false;
      }
    }
  }
  auto single = fresh_model();
  optim::SGD opt(single->parameters(), kSgd);
  train(*single, opt, o, nullptr);
  const Tensor reference = flat_parameters(*single);
  const float* ref = reference.data_ptr<float>();
  double worst = 0;
  int64_t worst_at = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double err = std::abs(static_cast<double>(all[i]) - ref[i]) / (1e-3 + std::abs(ref[i]));
    if (err > worst) {
      worst = err;
      worst_at = i;
    }
  }
  // |a - b| / (1e-3 + |b|): float32 sums in another order. Measured after 20-40 steps on 2 and 4
  // ranks: with im2col's convolutions up to 2e-6 on AMD EPYC (AVX2), 4.6e-5 on an Intel Xeon
  // (OpenBLAS's kernels for that CPU sum the 16-row shards and the 64-row batch in orders further
  // apart); with oneDNN's (Note [oneDNN convolution]), whose float32 weight gradients round like
  // PyTorch's, 4-6x more than im2col's (docs/performance.md, conv-accuracy): 3.5e-4.
  constexpr double kTolerance = 2e-3;
  std::printf("%d ranks, %lld steps of global batch %lld: parameters equal on every rank; vs one "
              "process: max |diff| / (1e-3 + |p|) = %.3g at parameter %lld (tolerance %g)\n",
              world, static_cast<long long>(o.steps), static_cast<long long>(o.batch), worst,
              static_cast<long long>(worst_at), kTolerance);
  return worst <= kTolerance;
}

int run(const Options& o) {
  distributed::init({.timeout_s = o.timeout_s});
  auto model = fresh_model();
  distributed::DistributedDataParallel ddp(*model);
  optim::SGD opt(model->parameters(), kSgd);
  train(*model, opt, o, &ddp);
  const Tensor mine = flat_parameters(*model);
  const Tensor gathered = all_gather(mine);
  int ok = 1;
  if (distributed::rank() == 0) ok = check(mine, gathered, o) ? 1 : 0;
  ok = broadcast(scalar_tensor(ok, DType::Int32), 0).item<int32_t>();
  distributed::finalize();
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr, "usage: data_parallel_check [--steps S] [--batch B] [--timeout SECONDS] "
                         "[--die-at STEP | --hang-at STEP | --diverge-at STEP]\n");
    return 1;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: error: %s\n",
                 distributed::has_communicator() ? distributed::rank() : -1, e.what());
    std::fflush(stderr);
    distributed::abort(1);
  }
}
