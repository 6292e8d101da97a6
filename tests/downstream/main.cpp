// Uses the downstream ops on the cpu and lazy devices and checks that they agree.
#include <cmath>
#include <cstdio>

#include "lazygen/lazygen.h"

using namespace lazygen;

int main() {
  manual_seed(1);
  Tensor a = randn({8, 5}), b = randn({5});
  Tensor eager = row_max_abs(mul_add(a, b, 0.5));
  Tensor lazy = row_max_abs(a.to(kLazy).mul_add(b.to(kLazy), 0.5)).cpu();
  double diff = (eager - lazy).abs().sum().item<double>();
  std::printf("downstream: row_max_abs(mul_add(a, b, 0.5)) eager vs lazy |diff| = %g\n", diff);
  return diff < 1e-5 ? 0 : 1;
}
