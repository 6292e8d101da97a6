// lazy_demo: what the lazy device does, in one screen.
//
// Traces a small program (matmul, bias, relu, a scalar scale) on the lazy device three times,
// shows the IR it recorded, runs it, checks the result against eager CPU, and prints the metrics:
// the trie cache reuses IR nodes from the second iteration on, and the computation cache compiles
// the graph once.
#include <cmath>
#include <cstdio>
#include <iostream>

#include "lazygen/device.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/mm.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/lazy.h"
#include "lazygen/metrics.h"
#include "lazygen/operators.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"
#include "lazygen/version.h"

using namespace lazygen;

namespace {

// The program: the same code runs eagerly or lazily, depending on where its inputs live.
Tensor program(const Tensor& x, const Tensor& w, const Tensor& b, double scale) {
  Tensor h = relu(mm(x, w) + b);
  return (h * scale - 0.25).sum();
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  return std::abs(a.item<double>() - b.item<double>());
}

}  // namespace

int main() {
  manual_seed(0);
  Tensor x = randn({64, 32}), w = randn({32, 16}), b = randn({16});
  Tensor lx = x.to(kLazy), lw = w.to(kLazy), lb = b.to(kLazy);

  std::printf("lazygen %s demo: relu(x @ w + b) * scale - 0.25, summed\n\n", version());
  for (int step = 0; step < 3; ++step) {
    double scale = 1.0 + step;  // a new scalar value each step: no recompilation
    Tensor lazy_result = program(lx, lw, lb, scale);
    if (step == 0) std::cout << "Traced IR (nothing has run yet):\n" << ir_dump_text({lazy_result}) << "\n";
    mark_step();
    Tensor eager_result = program(x, w, b, scale);
    std::printf("step %d: lazy %.6f  eager %.6f  |diff| %.2e\n", step, lazy_result.item<double>(),
                eager_result.item<double>(), max_abs_diff(lazy_result.cpu(), eager_result));
  }
  std::cout << "\n" << metrics_report();
  return 0;
}
