// Composite ops: hand-written compositions of the ops of ops.yaml, named and behaving like
// PyTorch's CompositeImplicitAutograd functions. They have no IR op, kernel or backward function
// of their own: autograd differentiates, and the lazy device traces, the ops they are made of.
// (Sources: runtime/ops/composite/.)
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen {

// torch.matmul. By the operands' ranks:
//   1-D @ 1-D  the dot product (a 0-dim tensor);
//   2-D @ 2-D  mm; a 1-D operand is promoted to a matrix ([1, k] on the left, [k, 1] on the
//              right) and that dim removed from the result;
//   N-D @ 1-D or 2-D (N >= 3)  self's batch dims folded into its rows: one mm;
//   otherwise  a batched product: batch dims (all but the last two; none for a 1-D operand)
//              broadcast, both operands expanded and flattened to 3-D, one bmm.
// Operands share one dtype and are at least 1-D; a ShapeError names matmul and both shapes.
// Also a method: x.matmul(y).
Tensor matmul(const Tensor& self, const Tensor& other);

// torch.split / chunk / unbind along `dim`: views (narrow, select) of self. split's pieces have
// split_size elements along dim (the last may be smaller); chunk makes at most `chunks` pieces of
// ceil(size / chunks); unbind removes dim. A non-positive split_size or chunks is a ShapeError.
// (runtime/ops/composite/pieces.cpp)
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> unbind(const Tensor& self, int64_t dim = 0);

// torch.var / torch.std over `dims` (nullopt: all) with Bessel's `correction` (1: unbiased), as
// PyTorch's .correction overloads; floating inputs. (runtime/ops/composite/pieces.cpp)
Tensor var(const Tensor& self, const std::optional<std::vector<int64_t>>& dims = std::nullopt,
           int64_t correction = 1, bool keepdim = false);
Tensor std(const Tensor& self, const std::optional<std::vector<int64_t>>& dims = std::nullopt,
           int64_t correction = 1, bool keepdim = false);

// torch.nn.functional.gelu: x * Phi(x) with `approximate` "none" (Phi by erf: _gelu_erf) or
// "tanh" (_gelu_tanh); gelu_backward is its gradient given grad_output (_gelu_*_backward). Any
// other `approximate` is a ShapeError naming gelu, as PyTorch refuses it. float32 and float64.
Tensor gelu(const Tensor& self, std::string_view approximate = "none");
Tensor gelu_backward(const Tensor& grad_output, const Tensor& self, std::string_view approximate = "none");

// torch.nn.functional.layer_norm over the last normalized_shape.size() dims (which must equal
// normalized_shape; else a ShapeError naming the shapes), with optional elementwise weight and
// bias. native_layer_norm also returns the mean and 1/sqrt(var + eps) (biased variance), shaped
// like input with the normalized dims of size 1; native_layer_norm_backward returns the
// gradients of input, weight and bias from those (undefined where output_mask is false or the
// weight/bias is absent). Sources: runtime/ops/composite/layer_norm.cpp.
Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                  const std::optional<Tensor>& weight = std::nullopt,
                  const std::optional<Tensor>& bias = std::nullopt, double eps = 1e-5);
std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double eps);
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(
    const Tensor& grad_out, const Tensor& input, const std::vector<int64_t>& normalized_shape, const Tensor& mean,
    const Tensor& rstd, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    std::array<bool, 3> output_mask);

// elu's gradient from its input (is_result false) or, for the in-place elu_, its result (then
// alpha must not be negative, as PyTorch requires), as PyTorch's elu_backward. (gelu.cpp)
Tensor elu_backward(const Tensor& grad_output, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale,
                    bool is_result, const Tensor& self_or_result);

// Batch normalization over the channels (dim 1) of input [N, C, ...] (PyTorch's native_batch_norm):
// training normalizes by the batch's per-channel mean and biased variance and, for running
// statistics that are given, updates them in place: running = (1 - momentum) running + momentum
// batch (the variance unbiased); evaluation normalizes by the running statistics (which must be
// given). Returns (out, save_mean, save_invstd): the batch mean and 1/sqrt(var + eps) [C] in
// training, empty [0] tensors in evaluation, as PyTorch's CPU kernel. native_batch_norm_backward
// returns the gradients of input, weight and bias (undefined where output_mask is false or
// weight is absent). Sources: runtime/ops/composite/batch_norm.cpp.
std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias,
                                                     const std::optional<Tensor>& running_mean,
                                                     const std::optional<Tensor>& running_var, bool training,
                                                     double momentum, double eps);
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask);

// The gradient of an embedding lookup (weight rows at `indices`) for a weight of num_weights
// rows: grad_output's rows summed into the rows they were read from; the padding_idx row (if
// >= 0) gets none, as PyTorch's embedding_dense_backward. (runtime/ops/composite/losses.cpp)
Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                int64_t padding_idx);

// torch.nn.functional.mse_loss: (self - target)^2, with reduction 0 none, 1 mean, 2 sum (PyTorch's
// Reduction enum; others are a ShapeError), and its gradient.
Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction = 1);
Tensor mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction);

}  // namespace lazygen
