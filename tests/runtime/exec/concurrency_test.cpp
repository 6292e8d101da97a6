// Eight threads tracing and stepping on the lazy device at once, each its own graphs: every
// thread's results equal its eager twin, mark_step on one thread never syncs or ends another's
// trace, and the shared parts (computation cache, allocator, thread pool, metrics) stay
// consistent. Run under ThreadSanitizer too (See docs/build.md, "Sanitizers").
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/add.h"
#include "lazygen/generated/ops/amax.h"
#include "lazygen/generated/ops/mm.h"
#include "lazygen/generated/ops/mul.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/generated/ops/sub.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/operators.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen {
namespace {

constexpr int kThreads = 8;
constexpr int kSteps = 25;

// One training-like step: an in-place parameter update from a pointwise chain, a matmul and a
// reduction. The same code runs on cpu (the reference) and on the lazy device.
Tensor train_step(Tensor& w, const Tensor& x, const Tensor& m, int step) {
  Tensor h = relu(add(mul(w, 1.5), x));
  Tensor loss = sum(mm(h, m));
  w.mul_(0.99);
  w.add_(h, -0.001 * (step % 5 + 1));  // a new scalar every step: no recompile
  return loss;
}

struct Outcome {
  std::string error;  // empty when every check passed
  int64_t steps = 0;
};

// Thread `t`'s whole run; shapes depend on t % 3, so some threads share compiled graphs and
// others do not.
Outcome run_thread(int t) {
  Outcome out;
  try {
    const int64_t rows = 4 + t % 3, cols = 8;
    Generator generator(static_cast<uint64_t>(100 + t));
    Tensor w_cpu = randn({rows, cols}, generator), x_cpu = randn({rows, cols}, generator);
    Tensor m_cpu = randn({cols, 3}, generator);
    Tensor w = w_cpu.to(kLazy), x = x_cpu.to(kLazy), m = m_cpu.to(kLazy);
    for (int step = 0; step < kSteps; ++step) {
      Tensor expected = train_step(w_cpu, x_cpu, m_cpu, step);
      Tensor loss = train_step(w, x, m, step);
      mark_step();
      ++out.steps;
      const float got = loss.item<float>(), want = expected.item<float>();
      if (std::abs(got - want) > 1e-4f * (1.0f + std::abs(want))) {
        out.error = "thread " + std::to_string(t) + " step " + std::to_string(step) + ": loss " +
                    std::to_string(got) + " != eager " + std::to_string(want);
        return out;
      }
    }
    Tensor diff = abs(sub(w.cpu(), w_cpu));
    if (diff.numel() > 0 && amax(diff, {0, 1}).item<float>() > 1e-4f) {
      out.error = "thread " + std::to_string(t) + ": parameters drifted from eager";
    }
  } catch (const std::exception& e) {
    out.error = "thread " + std::to_string(t) + " threw: " + e.what();
  }
  return out;
}

TEST(LazyConcurrency, EightThreadsTraceAndStepTheirOwnGraphsAtOnce) {
  mark_step();
  const int64_t steps_before = metrics::counter_value("exec.mark_step");
  std::vector<Outcome> outcomes(kThreads);
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();  // start together
      outcomes[t] = run_thread(t);
    });
  }
  for (std::thread& th : threads) th.join();
  for (const Outcome& o : outcomes) {
    EXPECT_EQ(o.error, "");
    EXPECT_EQ(o.steps, kSteps);
  }
  // Counters are exact once the threads are done (their slots fold in at exit).
  EXPECT_EQ(metrics::counter_value("exec.mark_step") - steps_before, int64_t{kThreads} * kSteps);
}

TEST(LazyConcurrency, MarkStepLeavesOtherThreadsPendingTensorsAlone) {
  Tensor mine = add(ones({4}, DType::Float32, kLazy), 1.0);
  std::thread other([] {
    Tensor theirs = mul(ones({4}, DType::Float32, kLazy), 3.0);
    mark_step();  // syncs `theirs` only
    EXPECT_EQ(theirs.cpu().data_ptr<float>()[0], 3.0f);
  });
  other.join();
  EXPECT_FALSE(ir_dump_text({mine}).empty());  // still pending: its IR is there to dump
  mark_step();
  EXPECT_EQ(mine.cpu().data_ptr<float>()[0], 2.0f);
}

}  // namespace
}  // namespace lazygen
