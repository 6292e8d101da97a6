// Runs programs of lazygen's ops on the out-of-tree "reference" backend (reference_backend.cpp)
// and on the cpu, eagerly: a pointwise chain with broadcasts, reductions, matmul, a convolution,
// views and an in-place update through one, softmax, and a training step with autograd. Each must
// agree with eager; the reference backend must have compiled the graphs.
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "lazygen/autograd.h"
#include "lazygen/composite.h"
#include "lazygen/lazygen.h"
#include "lazygen/nn/functional.h"
#include "reference_backend.h"

using namespace lazygen;
using Ts = std::vector<Tensor>;
using Dims = std::vector<int64_t>;

namespace {

struct Check {
  const char* name;
  std::function<Ts(const Ts&)> program;
  Ts inputs;
};

Ts on_device(const Ts& ts, Device device) {
  Ts out;
  for (const Tensor& t : ts) out.push_back(t.to(device));
  return out;
}

double max_diff(const Ts& a, const Ts& b) {
  double d = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    d = std::max(d, max(abs(a[k].cpu().to(DType::Float64) - b[k].cpu().to(DType::Float64))).item<double>());
  }
  return d;
}

Ts training_step(const Ts& in) {
  Tensor w = in[1].clone().requires_grad_(), b = in[2].clone().requires_grad_();
  Tensor loss = nn::functional::cross_entropy(mm(in[0], w) + b, in[3]);
  loss.backward();
  return {loss, w.grad(), b.grad()};
}

std::vector<Check> checks() {
  return {
      {"pointwise", [](const Ts& t) { return Ts{relu(t[0] * t[1] + 0.5) - sigmoid(t[0])}; },
       {randn({64, 32}), randn({32})}},
      {"reductions", [](const Ts& t) { return Ts{sum(t[0], Dims{1}), mean(t[0], Dims{0}, true), amax(t[0], Dims{1})}; },
       {randn({40, 30})}},
      {"matmul", [](const Ts& t) { return Ts{mm(t[0], t[1]), bmm(t[2], t[3])}; },
       {randn({8, 5}), randn({5, 3}), randn({2, 4, 5}), randn({2, 5, 6})}},
      {"conv2d", [](const Ts& t) { return Ts{conv2d(t[0], t[1], t[2], Dims{1, 1}, Dims{1, 1})}; },
       {randn({2, 3, 8, 8}), randn({4, 3, 3, 3}), randn({4})}},
      {"views", [](const Ts& t) {
         Tensor x = t[0].clone();
         x.transpose(0, 1).select(0, 2).mul_(3.0);  // in place through a view: updates x
         return Ts{x, t[0].transpose(0, 1).reshape({-1}) * 2.0};
       },
       {randn({6, 4})}},
      {"softmax", [](const Ts& t) { return Ts{nn::functional::softmax(t[0], 1), nn::functional::log_softmax(t[0], 1)}; },
       {randn({16, 10})}},
      {"training step", training_step,
       {randn({16, 8}), randn({8, 4}), randn({4}), randint(0, 4, {16})}},
  };
}

}  // namespace

int main() {
  manual_seed(3);
  set_lazy_backend("reference");
  if (lazy_backend() != "reference") {
    std::printf("reference backend: not selected (lazy_backend() = %s)\n", lazy_backend().c_str());
    return 1;
  }
  int failures = 0;
  for (const Check& c : checks()) {
    const Ts eager = c.program(c.inputs);
    Ts lazy = c.program(on_device(c.inputs, kLazy));
    mark_step();
    const double d = max_diff(lazy, eager);
    const bool ok = d <= 1e-5;
    failures += ok ? 0 : 1;
    std::printf("reference backend: %-14s |diff| = %g %s\n", c.name, d, ok ? "ok" : "FAILED");
  }
  std::printf("reference backend: %d graphs compiled\n", downstream::reference_compiles());
  if (downstream::reference_compiles() == 0) return 1;
  return failures == 0 ? 0 : 1;
}
