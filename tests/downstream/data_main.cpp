// Links lazygen::data (the Fashion-MNIST reader) by its documented name: a batch of the test set
// on the lazy device, when the dataset is installed (Debian's dataset-fashion-mnist); a missing
// dataset must raise DataError naming the package.
#include <cmath>
#include <cstdio>

#include "lazygen/data/fashion_mnist.h"
#include "lazygen/lazygen.h"

using namespace lazygen;

int main() {
  if (!data::FashionMnist::available()) {
    try {
      data::FashionMnist missing(data::Split::Test, "/nonexistent");
    } catch (const data::DataError& e) {
      std::printf("downstream data: no dataset (%s); DataError raised\n", data::kFashionMnistPackage);
      return 0;
    }
    return 1;
  }
  data::FashionMnist test(data::Split::Test);
  Tensor images = test.images({0, 1, 2, 3}).to(kLazy);
  const double total = images.sum().item<double>();
  std::printf("downstream data: %lld test images; the first 4 on the lazy device, %s, sum %.3f\n",
              static_cast<long long>(test.size()), images.shape().str().c_str(), total);
  return test.size() == 10000 && images.numel() == 4 * 28 * 28 && std::isfinite(total) ? 0 : 1;
}
