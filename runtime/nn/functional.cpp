// nn::functional (lazygen/nn/functional.h): compositions of generated ops.
#include "lazygen/nn/functional.h"

#include <stdexcept>
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/_dropout_mask.h"
#include "lazygen/generated/ops/_log_softmax.h"
#include "lazygen/generated/ops/_softmax.h"
#include "lazygen/generated/ops/addmm.h"
#include "lazygen/generated/ops/flatten.h"
#include "lazygen/generated/ops/max_pool2d.h"
#include "lazygen/generated/ops/mm.h"
#include "lazygen/generated/ops/nll_loss.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/operators.h"

namespace lazygen::nn::functional {

Tensor relu(const Tensor& x) {
  return lazygen::relu(x);
}

Tensor log_softmax(const Tensor& x, int64_t dim) {
  return _log_softmax(x, dim, false);
}

Tensor softmax(const Tensor& x, int64_t dim) {
  return _softmax(x, dim, false);
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, int64_t ignore_index) {
  return nll_loss(log_softmax(input, input.dim() == 1 ? 0 : 1), target, ignore_index);
}

Tensor nll_loss(const Tensor& log_probs, const Tensor& target, int64_t ignore_index) {
  constexpr int64_t kMean = 1;
  return lazygen::nll_loss(log_probs, target, std::nullopt, kMean, ignore_index);
}

Tensor max_pool2d(const Tensor& x, int64_t kernel_size, std::optional<int64_t> stride,
                  int64_t padding) {
  const std::vector<int64_t> strides =
      stride ? std::vector<int64_t>{*stride, *stride} : std::vector<int64_t>{};
  return lazygen::max_pool2d(x, {kernel_size, kernel_size}, strides, {padding, padding});
}

Tensor flatten(const Tensor& x, int64_t start_dim, int64_t end_dim) {
  return lazygen::flatten(x, start_dim, end_dim);
}

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  if (x.dim() == 2) return bias.defined() ? addmm(bias, x, weight.t()) : mm(x, weight.t());
  const Tensor y = matmul(x, weight.t());
  return bias.defined() ? y + bias : y;
}

Tensor dropout(const Tensor& x, double p, bool training, Generator* generator) {
  if (p < 0 || p > 1) {
    throw std::invalid_argument("dropout probability has to be between 0 and 1, but got " +
                                std::to_string(p));
  }
  if (!training || p == 0) return x;
  // A fresh 62-bit seed per call: a Scalar, so the lazy graph does not change with it.
  constexpr int64_t kSeedRange = int64_t{1} << 62;
  const Tensor draw =
      generator != nullptr ? randint(0, kSeedRange, {}, *generator) : randint(0, kSeedRange, {});
  return x * _dropout_mask(x, p, draw.item<int64_t>());
}

}  // namespace lazygen::nn::functional
