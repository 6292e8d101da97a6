// train_gpt: trains a GPT-style decoder (examples/real_models.h: 4 pre-norm layers of width 128,
// 4 heads, causal attention, gelu MLP, tied output projection) to predict the next byte of a
// text, on the lazy device (or eagerly on the cpu with --device cpu).
//
//   train_gpt [--device lazy|cpu] [--steps N] [--log-every N] [--seed N] [--text FILE]
//
// The text defaults to the GNU GPL v3 that every Debian system ships
// (/usr/share/common-licenses/GPL-3, base-files). Batches of 8 windows of 128 bytes at random
// offsets (a function of --seed and the step); Adam, lr 1e-3; cross-entropy over all positions.
// Each step is one graph on the lazy device. Prints the loss of the first five steps and then
// every --log-every steps (ln 256 = 5.55 is chance), and the number of graphs compiled. Exit
// status: 0, 1 on bad arguments or an unreadable text.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "lazygen/autograd.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/optim/optimizer.h"
#include "real_models.h"
#include "step_loop.h"

using namespace lazygen;

namespace {

constexpr int64_t kBatch = 8, kTokens = 128;

// Inputs and next-byte targets [kBatch, kTokens] from windows of `text` at random offsets.
std::pair<Tensor, Tensor> batch(const std::string& text, std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> offset(0, text.size() - kTokens - 1);
  std::vector<int64_t> in, target;
  for (int64_t b = 0; b < kBatch; ++b) {
    const size_t at = offset(rng);
    for (int64_t t = 0; t < kTokens; ++t) {
      in.push_back(static_cast<unsigned char>(text[at + t]));
      target.push_back(static_cast<unsigned char>(text[at + t + 1]));
    }
  }
  return {tensor(in, IntList{kBatch, kTokens}), tensor(target, IntList{kBatch, kTokens})};
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = "/usr/share/common-licenses/GPL-3";
  std::vector<char*> args{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--text" && i + 1 < argc) {
      path = argv[++i];
    } else {
      args.push_back(argv[i]);
    }
  }
  examples::LoopOptions o;
  if (!examples::parse_loop_options(
          static_cast<int>(args.size()), args.data(),
          "train_gpt [--device lazy|cpu] [--steps N] [--log-every N] [--seed N] [--text FILE]",
          o)) {
    return 1;
  }
  std::ifstream file(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (text.size() <= static_cast<size_t>(kTokens + 1)) {  // also an unreadable file
    std::fprintf(stderr, "train_gpt: cannot read a text of more than %lld bytes from %s\n",
                 static_cast<long long>(kTokens + 1), path.c_str());
    return 1;
  }
  manual_seed(static_cast<uint64_t>(o.seed));
  examples::Gpt model;
  model.to(o.device);
  optim::Adam opt(model.parameters(), {.lr = 1e-3});
  std::mt19937_64 rng(static_cast<uint64_t>(o.seed));
  std::printf("GPT decoder, %lld parameters, on %s, batch %lld x %lld bytes of %s, Adam lr 1e-3\n",
              static_cast<long long>(model.parameter_count()), o.device.str().c_str(),
              static_cast<long long>(kBatch), static_cast<long long>(kTokens), path.c_str());
  examples::run_steps(o, [&](int64_t) {
    const auto [in, target] = batch(text, rng);
    opt.zero_grad();
    Tensor loss = model.loss(in.to(o.device), target.to(o.device));
    loss.backward();
    opt.step();
    return loss;
  });
  return 0;
}
