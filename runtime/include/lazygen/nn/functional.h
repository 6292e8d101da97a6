// nn::functional: the stateless building blocks of models, named like torch.nn.functional.
// Each is a thin composition of ops from ops.yaml, so it runs (and differentiates) on every
// device and traces on the lazy one.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "lazygen/tensor.h"
#include "lazygen/types.h"

namespace lazygen::nn::functional {

Tensor relu(const Tensor& x);
Tensor log_softmax(const Tensor& x, int64_t dim);
Tensor softmax(const Tensor& x, int64_t dim);
// torch.nn.functional.cross_entropy with class-index targets: nll_loss of log_softmax over the
// class dim (dim 1, or 0 for an unbatched [classes] input), mean over the counted samples.
Tensor cross_entropy(const Tensor& input, const Tensor& target, int64_t ignore_index = -100);
// The mean negative log-likelihood of `target` (int64 class indices) under `log_probs`
// [batch, classes]; samples whose target is ignore_index do not count.
Tensor nll_loss(const Tensor& log_probs, const Tensor& target, int64_t ignore_index = -100);
// Square windows; stride defaults to the kernel size.
Tensor max_pool2d(const Tensor& x, int64_t kernel_size, std::optional<int64_t> stride = {},
                  int64_t padding = 0);
// Merges dims start_dim..end_dim (negative counts from the end) into one: lazygen::flatten (the
// op flatten.using_ints) with nn.Flatten's default start_dim of 1.
Tensor flatten(const Tensor& x, int64_t start_dim = 1, int64_t end_dim = -1);
// x @ weight^T + bias for x of any rank >= 1 ([..., in] with weight [out, in]; bias may be
// undefined): one addmm for 2-D x, else matmul (lazygen/composite.h) and a broadcast add.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());
// x * mask / (1 - p) with a fresh Bernoulli(1 - p) mask when training, else x. The mask's seed
// is drawn from `generator` (the default generator when null).
Tensor dropout(const Tensor& x, double p, bool training, Generator* generator = nullptr);

}  // namespace lazygen::nn::functional
