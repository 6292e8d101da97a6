// train_cnn: trains PyTorch's lazy-tensor tutorial CNN on Fashion-MNIST, on the lazy device.
//
//   train_cnn [--device lazy|cpu|cuda] [--epochs N] [--steps N] [--mlp] [--batch N] [--lr X]
//             [--gamma X] [--seed N] [--log-every N] [--data DIR] [--distributed]
//   mpirun -np P train_cnn --distributed [...]
//
// The model (torch_peer.py's `cnn`): conv 1->32 3x3, relu, conv 32->64 3x3, relu, max_pool 2,
// dropout 0.25, flatten, fc 9216->128, relu, dropout 0.5, fc 128->10, log_softmax; nll_loss;
// Adadelta (lr 1.0) with StepLR (gamma 0.7) per epoch; batches of 64. --mlp trains the
// 784->128->10 MLP of torch_peer's `mlp` instead. On the lazy device each step (forward,
// backward and the optimizer's in-place update) is traced and run as one graph at mark_step():
// compiled at the first step, a cache hit afterwards. Prints a progress line (loss, steps/s),
// the test accuracy after each epoch and, at the end, the metrics report and the fusion groups
// that had no AOT kernel (train_cnn.manifest lists those of the tests' runs; See lazygen/aot.h).
// --steps N stops after N training steps (a short run; the test accuracy is then measured on
// the first 1000 test images). --device cuda trains eagerly on the GPU; LAZYGEN_LAZY_BACKEND=cuda
// runs the lazy device's graphs there (docs/cuda.md, "CUDA tensors"); argmax has no CUDA kernel, so on
// either the test accuracy takes it on the cpu.
// --distributed trains data-parallel over the processes mpirun starts (lazygen/distributed.h):
// each step's global batch of --batch images is split over the ranks (the last, short batch
// of an epoch is dropped so that the shares are equal), the gradients are all-reduced inside the
// step's graph, every rank evaluates its share of the test set, and rank 0 alone prints,
// ending with how many bytes each step all-reduced and how long the collectives took.
// Exit status: 0, 1 on bad arguments, missing data or (distributed) an error on any rank.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

#include "lazygen/autograd.h"
#include "lazygen/data/fashion_mnist.h"
#include "lazygen/distributed.h"
#include "lazygen/generated/ops/all_reduce.h"
#include "lazygen/generated/ops/argmax.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/max.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "tutorial_models.h"

using namespace lazygen;
using examples::Classifier;

namespace {

struct Options {
  Device device = kLazy;
  int64_t epochs = 3, steps = 0, batch = 64, seed = 1, log_every = 100;
  double lr = 1.0, gamma = 0.7;
  bool mlp = false, distributed = false;
  std::string data = data::kFashionMnistDir;
};

// Whether this process prints: always, except on ranks other than 0 of a distributed run.
bool prints(const Options& o) { return !o.distributed || distributed::rank() == 0; }

void usage() {
  std::fprintf(stderr,
               "usage: train_cnn [--device lazy|cpu|cuda] [--epochs N] [--steps N] [--mlp] "
               "[--batch N] [--lr X] [--gamma X] [--seed N] [--log-every N] [--data DIR] "
               "[--distributed]\n");
}

// Sets the option `name` from `value`; false when there is no such option.
bool set_option(Options& o, const std::string& name, const std::string& value) {
  if (name == "--device") {
    if (value != "lazy" && value != "cpu" && value != "cuda") return false;
    o.device = value == "cpu" ? kCPU : value == "cuda" ? Device("cuda") : kLazy;
    return true;
  }
  if (name == "--data") {
    o.data = value;
    return true;
  }
  int64_t* ints[] = {&o.epochs, &o.steps, &o.batch, &o.seed, &o.log_every};
  const char* int_names[] = {"--epochs", "--steps", "--batch", "--seed", "--log-every"};
  for (size_t i = 0; i < std::size(ints); ++i) {
    if (name == int_names[i]) return (*ints[i] = std::stoll(value)) > 0 || name == "--steps";
  }
  if (name == "--lr" || name == "--gamma") {
    (name == "--lr" ? o.lr : o.gamma) = std::stod(value);
    return true;
  }
  return false;
}

// Parses argv into options; false (after printing usage) on anything unknown or malformed.
bool parse(int argc, char** argv, Options& o) {
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--mlp") {
        o.mlp = true;
      } else if (arg == "--distributed") {
        o.distributed = true;
      } else if (i + 1 >= argc || !set_option(o, arg, argv[++i])) {
        usage();
        return false;
      }
    }
  } catch (const std::exception&) {  // std::stoll / std::stod on a non-number
    usage();
    return false;
  }
  return true;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Trains one epoch (or what is left of --steps); returns the steps taken.
// With `ddp`, each rank trains on its share of every batch and all-reduces the gradients.
int64_t train_epoch(Classifier& model, optim::Optimizer& opt, data::DataLoader& loader,
                    const Options& o, int64_t epoch, int64_t budget,
                    distributed::DistributedDataParallel* ddp) {
  model.train();
  const int64_t steps = std::min(loader.num_batches(), budget);
  auto window = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < steps; ++i) {
    const data::Batch b = loader.batch(i);
    const Tensor loss =
        ddp == nullptr
            ? examples::train_step(model, opt, b.images, b.targets, o.device)
            : examples::train_step(model, opt, distributed::shard(b.images),
                                   distributed::shard(b.targets), o.device,
                                   [&] { ddp->all_reduce_gradients(); });
    if (prints(o) && ((i + 1) % o.log_every == 0 || i + 1 == steps)) {
      const double rate = static_cast<double>((i % o.log_every) + 1) / seconds_since(window);
      std::printf("epoch %lld step %5lld/%lld  loss %.4f  %.1f steps/s\n",
                  static_cast<long long>(epoch), static_cast<long long>(i + 1),
                  static_cast<long long>(loader.num_batches()), loss.item<float>(), rate);
      std::fflush(stdout);
      window = std::chrono::steady_clock::now();
    }
  }
  return steps;
}

// Accuracy on the first `limit` test images, in batches of 1000; distributed, each rank takes
// every world_size()-th batch and the counts are summed over the ranks.
double test_accuracy(Classifier& model, const data::FashionMnist& test, Device device,
                     int64_t limit, bool distributed) {
  NoGradGuard no_grad;
  model.eval();
  data::DataLoader loader(test, 1000, /*shuffle=*/false);
  int64_t correct = 0, seen = 0;
  const bool on_gpu =
      device.type == DeviceType::CUDA || (device.is_lazy() && lazy_backend() == "cuda");
  const int64_t first = distributed ? distributed::rank() : 0;
  const int64_t stride = distributed ? distributed::world_size() : 1;
  const int64_t batches = std::min(loader.num_batches(), (limit + 999) / 1000);
  for (int64_t i = first; i < batches; i += stride) {
    const data::Batch b = loader.batch(i);
    Tensor out = model.forward(b.images.to(device));
    if (on_gpu) out = out.cpu();  // argmax has no CUDA kernel
    const Tensor hits = sum(eq(argmax(out, 1), b.targets.to(out.device())));
    if (device.is_lazy()) mark_step();
    correct += hits.item<int64_t>();
    seen += b.targets.size(0);
  }
  if (distributed) {
    const Tensor counts = all_reduce(tensor<int64_t>({correct, seen}));
    correct = counts.data_ptr<int64_t>()[0];
    seen = counts.data_ptr<int64_t>()[1];
  }
  return static_cast<double>(correct) / static_cast<double>(seen);
}

// Bytes the collectives sent and milliseconds they took (waiting for the other ranks included).
struct CollectiveTotals {
  double bytes = 0, ms = 0;
  static CollectiveTotals now() {
    const auto timed = metrics::timed_stats("distributed.collective_ms");
    return {static_cast<double>(metrics::counter_value("distributed.bytes")),
            timed ? timed->total_ms : 0};
  }
};

// What data parallelism cost in the training steps: bytes all-reduced per step against the
// parameters' bytes, and the time in collectives per step.
void print_collectives(const Classifier& model, int64_t steps, double train_secs,
                       const CollectiveTotals& in_training) {
  const double per_step = in_training.bytes / static_cast<double>(std::max<int64_t>(steps, 1));
  const double collective_ms = in_training.ms;
  std::printf("data parallel over %d processes: %.2f MB all-reduced per step (parameters %.2f "
              "MB); collectives %.2f ms of %.2f ms per step\n",
              distributed::world_size(), per_step / 1e6,
              static_cast<double>(model.parameter_count()) * 4 / 1e6,
              collective_ms / static_cast<double>(std::max<int64_t>(steps, 1)),
              1e3 * train_secs / static_cast<double>(std::max<int64_t>(steps, 1)));
}

int run(const Options& o) {
  const data::FashionMnist train(data::Split::Train, o.data), test(data::Split::Test, o.data);
  manual_seed(static_cast<uint64_t>(o.seed));
  std::unique_ptr<Classifier> model;
  if (o.mlp) {
    model = std::make_unique<examples::Mlp>();
  } else {
    model = std::make_unique<examples::TutorialCnn>();
  }
  model->to(o.device);
  std::unique_ptr<distributed::DistributedDataParallel> ddp;
  if (o.distributed) ddp = std::make_unique<distributed::DistributedDataParallel>(*model);
  optim::Adadelta opt(model->parameters(), {.lr = o.lr});
  optim::StepLR scheduler(opt, 1, o.gamma);
  data::DataLoader loader(train, o.batch, /*shuffle=*/true, static_cast<uint64_t>(o.seed),
                          /*drop_last=*/o.distributed);
  if (prints(o)) {
    std::printf("%s, %lld parameters, on %s, batch %lld, Adadelta lr %g, StepLR gamma %g",
                o.mlp ? "MLP 784-128-10" : "tutorial CNN",
                static_cast<long long>(model->parameter_count()), o.device.str().c_str(),
                static_cast<long long>(o.batch), o.lr, o.gamma);
    if (o.distributed) std::printf(", data parallel over %d processes", distributed::world_size());
    std::printf("\n");
  }
  int64_t budget = o.steps > 0 ? o.steps : INT64_MAX, total_steps = 0;
  double train_secs = 0;
  CollectiveTotals in_training;
  for (int64_t epoch = 1; epoch <= o.epochs && budget > 0; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    const CollectiveTotals before = CollectiveTotals::now();
    const int64_t steps = train_epoch(*model, opt, loader, o, epoch, budget, ddp.get());
    wait_device_ops();  // the epoch's time and collectives are all in
    const double secs = seconds_since(start);
    in_training.bytes += CollectiveTotals::now().bytes - before.bytes;
    in_training.ms += CollectiveTotals::now().ms - before.ms;
    budget -= steps;
    total_steps += steps;
    train_secs += secs;
    const double acc =
        test_accuracy(*model, test, o.device, o.steps > 0 ? 1000 : test.size(), o.distributed);
    if (prints(o)) {
      std::printf("epoch %lld: %lld steps in %.1f s (%.1f steps/s), test accuracy %.2f%%\n",
                  static_cast<long long>(epoch), static_cast<long long>(steps), secs,
                  static_cast<double>(steps) / secs, 100 * acc);
    }
    scheduler.step();
    loader.next_epoch();
  }
  if (prints(o)) {
    if (o.distributed) print_collectives(*model, total_steps, train_secs, in_training);
    std::printf("\n%s", metrics_report().c_str());
    if (const std::string misses = aot_miss_report(); !misses.empty()) std::printf("\n%s", misses.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse(argc, argv, options)) return 1;
  if (!options.distributed) {
    try {
      return run(options);
    } catch (const data::DataError& e) {
      std::fprintf(stderr, "train_cnn: %s\n", e.what());
      return 1;
    }
  }
  try {  // an error on one rank ends every rank: the others would wait for it
    distributed::init();
    const int status = run(options);
    distributed::finalize();
    return status;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_cnn: %s\n", e.what());
    std::fflush(stderr);
    distributed::abort(1);
  }
}
