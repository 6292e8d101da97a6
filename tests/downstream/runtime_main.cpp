// Links lazygen::runtime (the runtime prebuilt with lazygen's own ops) by its documented name:
// a chain of lazygen's ops on the cpu and lazy devices must agree.
#include <cstdio>

#include "lazygen/lazygen.h"

using namespace lazygen;

int main() {
  manual_seed(1);
  Tensor a = randn({8, 5}), b = randn({5, 3});
  Tensor eager = relu(mm(a, b) * 2.0 + 1.0).sum();
  Tensor lazy = relu(mm(a.to(kLazy), b.to(kLazy)) * 2.0 + 1.0).sum().cpu();
  double diff = (eager - lazy).abs().item<double>();
  std::printf("downstream runtime: lazygen::runtime eager vs lazy |diff| = %g\n", diff);
  return diff < 1e-4 ? 0 : 1;
}
