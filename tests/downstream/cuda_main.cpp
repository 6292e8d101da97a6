// Links lazygen::cuda and the AOT kernels of cuda_demo.manifest: the lazy chain runs its prebuilt
// cpu kernel (aot.hit), and, with a GPU, its prebuilt CUDA kernel (cuda.aot.hit) with the same
// result. Without a GPU it says why and checks the cpu part only.
#include <cstdio>

#include "lazygen/cuda.h"
#include "lazygen/lazygen.h"
#include "lazygen/metrics.h"

using namespace lazygen;

int main() {
  manual_seed(1);
  Tensor x = randn({1024});
  Tensor eager = relu(x * 2.0 + 1.0) - 0.5;
  Tensor lazy = (relu(x.to(kLazy) * 2.0 + 1.0) - 0.5).cpu();
  double diff = (eager - lazy).abs().sum().item<double>();
  std::printf("downstream cuda: cpu aot.hit %lld, |diff| %g\n",
              static_cast<long long>(metrics::counter_value("aot.hit")), diff);
  if (metrics::counter_value("aot.hit") < 1 || diff > 1e-5) return 1;
  if (!cuda::is_available()) {
    std::printf("downstream cuda: no device (%s)\n", cuda::unavailable_reason().c_str());
    return 0;
  }
  set_lazy_backend("cuda");
  Tensor gpu = (relu(x.to(kLazy) * 2.0 + 1.0) - 0.5).cpu();
  diff = (eager - gpu).abs().sum().item<double>();
  std::printf("downstream cuda: cuda.aot.hit %lld, |diff| %g\n",
              static_cast<long long>(metrics::counter_value("cuda.aot.hit")), diff);
  return metrics::counter_value("cuda.aot.hit") >= 1 && diff < 1e-5 ? 0 : 1;
}
