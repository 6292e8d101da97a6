// What examples/train_resnet.cpp and examples/train_gpt.cpp share: their command line
// (--device lazy|cpu, --steps N, --log-every N, --seed N) and the loop that runs a training step
// N times, printing "step S  loss L  R steps/s" lines and, at the end, how many graphs the lazy
// device compiled (the computation cache's misses).
#pragma once

#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>

#include "lazygen/aot.h"
#include "lazygen/autograd.h"
#include "lazygen/composite.h"
#include "lazygen/conv.h"
#include "lazygen/cuda.h"
#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/factory.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/operators.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"
#include "lazygen/version.h"

namespace lazygen::examples {

struct LoopOptions {
  Device device = kLazy;
  int64_t steps = 100, log_every = 10, seed = 1;
};

// Parses argv; false (after printing `usage`) on anything unknown or malformed.
inline bool parse_loop_options(int argc, char** argv, const char* usage, LoopOptions& o) {
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (i + 1 >= argc) throw std::invalid_argument(arg);
      const std::string value = argv[++i];
      if (arg == "--device" && (value == "lazy" || value == "cpu")) {
        o.device = value == "cpu" ? kCPU : kLazy;
      } else if (arg == "--steps" && (o.steps = std::stoll(value)) > 0) {
      } else if (arg == "--log-every" && (o.log_every = std::stoll(value)) > 0) {
      } else if (arg == "--seed") {
        o.seed = std::stoll(value);
      } else {
        throw std::invalid_argument(arg);
      }
    }
  } catch (const std::exception&) {
    std::fprintf(stderr, "usage: %s\n", usage);
    return false;
  }
  return true;
}

// Runs `step` (which returns the step's loss, a 0-dim tensor, after the optimizer's update)
// o.steps times, with mark_step() after each on the lazy device.
inline void run_steps(const LoopOptions& o, const std::function<Tensor(int64_t)>& step) {
  metrics::reset();
  auto window = std::chrono::steady_clock::now();
  for (int64_t i = 1; i <= o.steps; ++i) {
    const Tensor loss = step(i);
    if (o.device.is_lazy()) mark_step();
    if (i % o.log_every == 0 || i == o.steps || i <= 5) {
      const float value = loss.item<float>();  // waits for the step
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - window).count();
      std::printf("step %4lld  loss %.6f  %.3f s/step\n", static_cast<long long>(i), value,
                  secs / static_cast<double>(i <= 5 ? 1 : std::min<int64_t>(o.log_every, i - 5)));
      std::fflush(stdout);
      window = std::chrono::steady_clock::now();
    }
  }
  if (o.device.is_lazy()) {
    std::printf("graphs compiled: %lld\n",
                static_cast<long long>(metrics::counter_value("computation_cache.miss")));
  }
}

}  // namespace lazygen::examples
