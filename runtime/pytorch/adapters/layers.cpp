// Adapters for layers whose PyTorch kernels have no lazygen op of the same name (ops.yaml, "PyTorch
// adapters"): baddbmm, batch, layer and group norm and weight normalization with their backward
// ops, renorm, embedding's backward and max_norm (embedding_renorm_), bags of embeddings (sum and
// mean; max and sparse gradients run on the CPU) with theirs,
// and the losses mse, binary cross entropy, smooth L1, Huber and nll_loss2d with theirs, each
// served by a composite of lazygen ops (lazygen/composite.h), so the lazy device traces and fuses
// them like any other ops.
#include <array>
#include <string>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/add.h"
#include "lazygen/generated/ops/bmm.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/mul.h"
#include "lazygen/generated/torch_adapters.h"
#include "pytorch/call.h"
#include "pytorch/fallback.h"

namespace lazygen::pytorch::adapters {
namespace {

// A lazygen result PyTorch may receive undefined (a gradient output_mask did not ask for).
at::Tensor maybe_result(const Call& c, const Tensor& t) {
  return t.defined() ? c.result(t) : at::Tensor();
}

}  // namespace

// beta * self + alpha * batch1 @ batch2 on lazygen's bmm (attention's scores); self is not read
// when beta is 0, as in PyTorch (its NaNs do not propagate).
at::Tensor baddbmm(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2, const at::Scalar& beta,
                   const at::Scalar& alpha) {
  Call c("baddbmm", {&self, &batch1, &batch2});
  Tensor product = bmm(c.arg(batch1), c.arg(batch2));
  if (!(alpha.equal(1))) product = mul(product, c.arg(alpha));
  if (beta.equal(0)) return c.result(product);  // self broadcasts to the product's shape
  return c.result(add(product, beta.equal(1) ? c.arg(self) : mul(c.arg(self), c.arg(beta))));
}

// The running statistics are updated in place, as PyTorch's kernel does.
::std::tuple<at::Tensor, at::Tensor, at::Tensor> native_batch_norm(
    const at::Tensor& input, const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias,
    const c10::optional<at::Tensor>& running_mean, const c10::optional<at::Tensor>& running_var, bool training,
    double momentum, double eps) {
  Call c("native_batch_norm", {&input, maybe(weight), maybe(bias), maybe(running_mean), maybe(running_var)});
  auto written = [&](const c10::optional<at::Tensor>& t) -> std::optional<Tensor> {
    if (!t || !t->defined()) return std::nullopt;
    return training ? c.written(*t) : c.arg(*t);
  };
  return c.result(lazygen::native_batch_norm(c.arg(input), c.arg(weight), c.arg(bias), written(running_mean),
                                             written(running_var), training, momentum, eps));
}

::std::tuple<at::Tensor, at::Tensor, at::Tensor> native_batch_norm_backward(
    const at::Tensor& grad_out, const at::Tensor& input, const c10::optional<at::Tensor>& weight,
    const c10::optional<at::Tensor>& running_mean, const c10::optional<at::Tensor>& running_var,
    const c10::optional<at::Tensor>& save_mean, const c10::optional<at::Tensor>& save_invstd, bool train,
    double eps, ::std::array<bool, 3> output_mask) {
  Call c("native_batch_norm_backward",
         {&grad_out, &input, maybe(weight), maybe(running_mean), maybe(running_var), maybe(save_mean),
          maybe(save_invstd)});
  auto [grad_input, grad_weight, grad_bias] = lazygen::native_batch_norm_backward(
      c.arg(grad_out), c.arg(input), c.arg(weight), c.arg(running_mean), c.arg(running_var), c.arg(save_mean),
      c.arg(save_invstd), train, eps, output_mask);
  return {maybe_result(c, grad_input), maybe_result(c, grad_weight), maybe_result(c, grad_bias)};
}

::std::tuple<at::Tensor, at::Tensor, at::Tensor> native_layer_norm(
    const at::Tensor& input, c10::IntArrayRef normalized_shape, const c10::optional<at::Tensor>& weight,
    const c10::optional<at::Tensor>& bias, double eps) {
  Call c("native_layer_norm", {&input, maybe(weight), maybe(bias)});
  return c.result(lazygen::native_layer_norm(c.arg(input), c.arg(normalized_shape), c.arg(weight),
                                             c.arg(bias), eps));
}

::std::tuple<at::Tensor, at::Tensor, at::Tensor> native_layer_norm_backward(
    const at::Tensor& grad_out, const at::Tensor& input, c10::IntArrayRef normalized_shape,
    const at::Tensor& mean, const at::Tensor& rstd, const c10::optional<at::Tensor>& weight,
    const c10::optional<at::Tensor>& bias, ::std::array<bool, 3> output_mask) {
  Call c("native_layer_norm_backward", {&grad_out, &input, &mean, &rstd, maybe(weight), maybe(bias)});
  auto [grad_input, grad_weight, grad_bias] = lazygen::native_layer_norm_backward(
      c.arg(grad_out), c.arg(input), c.arg(normalized_shape), c.arg(mean), c.arg(rstd), c.arg(weight),
      c.arg(bias), output_mask);
  return {maybe_result(c, grad_input), maybe_result(c, grad_weight), maybe_result(c, grad_bias)};
}

// scale_grad_by_freq (rare) runs on the CPU.
at::Tensor embedding_dense_backward(const at::Tensor& grad_output, const at::Tensor& indices,
                                    int64_t num_weights, int64_t padding_idx, bool scale_grad_by_freq) {
  if (scale_grad_by_freq) {
    static const c10::OperatorHandle op = aten_op("aten::embedding_dense_backward");
    return call_on_cpu<at::Tensor>(op, grad_output, indices, num_weights, padding_idx, scale_grad_by_freq);
  }
  Call c("embedding_dense_backward", {&grad_output, &indices});
  return c.result(lazygen::embedding_dense_backward(c.arg(grad_output), c.arg(indices), num_weights, padding_idx));
}

at::Tensor mse_loss(const at::Tensor& self, const at::Tensor& target, int64_t reduction) {
  Call c("mse_loss", {&self, &target});
  return c.result(lazygen::mse_loss(c.arg(self), c.arg(target), reduction));
}

at::Tensor mse_loss_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                             int64_t reduction) {
  Call c("mse_loss_backward", {&grad_output, &self, &target});
  return c.result(lazygen::mse_loss_backward(c.arg(grad_output), c.arg(self), c.arg(target), reduction));
}

::std::tuple<at::Tensor, at::Tensor, at::Tensor> native_group_norm(const at::Tensor& input,
                                                                   const c10::optional<at::Tensor>& weight,
                                                                   const c10::optional<at::Tensor>& bias, int64_t N,
                                                                   int64_t C, int64_t HxW, int64_t group, double eps) {
  Call c("native_group_norm", {&input, maybe(weight), maybe(bias)});
  return c.result(lazygen::native_group_norm(c.arg(input), c.arg(weight), c.arg(bias), N, C, HxW, group, eps));
}

::std::tuple<at::Tensor, at::Tensor, at::Tensor> native_group_norm_backward(
    const at::Tensor& grad_out, const at::Tensor& input, const at::Tensor& mean, const at::Tensor& rstd,
    const c10::optional<at::Tensor>& weight, int64_t N, int64_t C, int64_t HxW, int64_t group,
    ::std::array<bool, 3> output_mask) {
  Call c("native_group_norm_backward", {&grad_out, &input, &mean, &rstd, maybe(weight)});
  auto [grad_input, grad_weight, grad_bias] = lazygen::native_group_norm_backward(
      c.arg(grad_out), c.arg(input), c.arg(mean), c.arg(rstd), c.arg(weight), N, C, HxW, group, output_mask);
  return {maybe_result(c, grad_input), maybe_result(c, grad_weight), maybe_result(c, grad_bias)};
}

at::Tensor binary_cross_entropy(const at::Tensor& self, const at::Tensor& target,
                                const c10::optional<at::Tensor>& weight, int64_t reduction) {
  Call c("binary_cross_entropy", {&self, &target, maybe(weight)});
  return c.result(lazygen::binary_cross_entropy(c.arg(self), c.arg(target), c.arg(weight), reduction));
}

at::Tensor binary_cross_entropy_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                         const at::Tensor& target, const c10::optional<at::Tensor>& weight,
                                         int64_t reduction) {
  Call c("binary_cross_entropy_backward", {&grad_output, &self, &target, maybe(weight)});
  return c.result(lazygen::binary_cross_entropy_backward(c.arg(grad_output), c.arg(self), c.arg(target),
                                                         c.arg(weight), reduction));
}

at::Tensor smooth_l1_loss(const at::Tensor& self, const at::Tensor& target, int64_t reduction, double beta) {
  Call c("smooth_l1_loss", {&self, &target});
  return c.result(lazygen::smooth_l1_loss(c.arg(self), c.arg(target), reduction, beta));
}

at::Tensor smooth_l1_loss_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                                   int64_t reduction, double beta) {
  Call c("smooth_l1_loss_backward", {&grad_output, &self, &target});
  return c.result(lazygen::smooth_l1_loss_backward(c.arg(grad_output), c.arg(self), c.arg(target), reduction, beta));
}

at::Tensor huber_loss(const at::Tensor& self, const at::Tensor& target, int64_t reduction,
                      double delta) {
  Call c("huber_loss", {&self, &target});
  return c.result(lazygen::huber_loss(c.arg(self), c.arg(target), reduction, delta));
}

at::Tensor huber_loss_backward(const at::Tensor& grad_output, const at::Tensor& self,
                               const at::Tensor& target, int64_t reduction, double delta) {
  Call c("huber_loss_backward", {&grad_output, &self, &target});
  return c.result(lazygen::huber_loss_backward(c.arg(grad_output), c.arg(self), c.arg(target),
                                               reduction, delta));
}

::std::tuple<at::Tensor, at::Tensor> nll_loss2d_forward(const at::Tensor& self, const at::Tensor& target,
                                                        const c10::optional<at::Tensor>& weight, int64_t reduction,
                                                        int64_t ignore_index) {
  Call c("nll_loss2d_forward", {&self, &target, maybe(weight)});
  return c.result(lazygen::nll_loss2d_forward(c.arg(self), c.arg(target), c.arg(weight), reduction, ignore_index));
}

at::Tensor nll_loss2d_backward(const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
                               const c10::optional<at::Tensor>& weight, int64_t reduction, int64_t ignore_index,
                               const at::Tensor& total_weight) {
  (void)total_weight;  // lazygen's nll_loss_backward sums the weights itself
  Call c("nll_loss2d_backward", {&grad_output, &self, &target, maybe(weight)});
  return c.result(lazygen::nll_loss2d_backward(c.arg(grad_output), c.arg(self), c.arg(target), c.arg(weight),
                                               reduction, ignore_index));
}

namespace {

using BagResult = ::std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor>;

// lazygen's bags take int64 indices and offsets; PyTorch also allows int32 ones (of one dtype).
Tensor as_int64(const Tensor& t) {
  return t.dtype() == DType::Int64 ? t : t.to(DType::Int64);
}

// _embedding_bag and _embedding_bag_forward_only (named `op`): sum and mean bags on the device,
// max bags and sparse gradients on the CPU.
BagResult embedding_bag_on_device(const char* op, const at::Tensor& weight,
                                  const at::Tensor& indices, const at::Tensor& offsets,
                                  bool scale_grad_by_freq, int64_t mode, bool sparse,
                                  const c10::optional<at::Tensor>& per_sample_weights,
                                  bool include_last_offset, int64_t padding_idx) {
  if (mode == 2 || sparse) {
    const c10::OperatorHandle handle = aten_op((std::string("aten::") + op).c_str());
    return call_on_cpu<BagResult>(handle, weight, indices, offsets, scale_grad_by_freq, mode,
                                  sparse, per_sample_weights, include_last_offset, padding_idx);
  }
  Call c(op, {&weight, &indices, &offsets, maybe(per_sample_weights)});
  return c.result(lazygen::embedding_bag(c.arg(weight), as_int64(c.arg(indices)),
                                         as_int64(c.arg(offsets)), mode, c.arg(per_sample_weights),
                                         include_last_offset, padding_idx));
}

}  // namespace

BagResult _embedding_bag(const at::Tensor& weight, const at::Tensor& indices,
                         const at::Tensor& offsets, bool scale_grad_by_freq, int64_t mode,
                         bool sparse, const c10::optional<at::Tensor>& per_sample_weights,
                         bool include_last_offset, int64_t padding_idx) {
  return embedding_bag_on_device("_embedding_bag", weight, indices, offsets, scale_grad_by_freq,
                                 mode, sparse, per_sample_weights, include_last_offset,
                                 padding_idx);
}

BagResult _embedding_bag_forward_only(const at::Tensor& weight, const at::Tensor& indices,
                                      const at::Tensor& offsets, bool scale_grad_by_freq,
                                      int64_t mode, bool sparse,
                                      const c10::optional<at::Tensor>& per_sample_weights,
                                      bool include_last_offset, int64_t padding_idx) {
  return embedding_bag_on_device("_embedding_bag_forward_only", weight, indices, offsets,
                                 scale_grad_by_freq, mode, sparse, per_sample_weights,
                                 include_last_offset, padding_idx);
}

at::Tensor _embedding_bag_dense_backward(const at::Tensor& grad, const at::Tensor& indices,
                                         const at::Tensor& offset2bag, const at::Tensor& bag_size,
                                         const at::Tensor& maximum_indices, int64_t num_weights,
                                         bool scale_grad_by_freq, int64_t mode,
                                         const c10::optional<at::Tensor>& per_sample_weights,
                                         int64_t padding_idx) {
  if (mode == 2) {  // its forward ran on the CPU
    static const c10::OperatorHandle op = aten_op("aten::_embedding_bag_dense_backward");
    return call_on_cpu<at::Tensor>(op, grad, indices, offset2bag, bag_size, maximum_indices,
                                   num_weights, scale_grad_by_freq, mode, per_sample_weights,
                                   padding_idx);
  }
  Call c("_embedding_bag_dense_backward",
         {&grad, &indices, &offset2bag, &bag_size, maybe(per_sample_weights)});
  return c.result(lazygen::embedding_bag_dense_backward(
      c.arg(grad), as_int64(c.arg(indices)), c.arg(offset2bag), c.arg(bag_size), num_weights,
      scale_grad_by_freq, mode, c.arg(per_sample_weights), padding_idx));
}

at::Tensor _embedding_bag_per_sample_weights_backward(
    const at::Tensor& grad, const at::Tensor& weight, const at::Tensor& indices,
    const at::Tensor& offsets, const at::Tensor& offset2bag, int64_t mode, int64_t padding_idx) {
  (void)offsets, (void)mode;  // offset2bag says each index's bag; only sum bags have weights
  Call c("_embedding_bag_per_sample_weights_backward", {&grad, &weight, &indices, &offset2bag});
  return c.result(lazygen::embedding_bag_per_sample_weights_backward(
      c.arg(grad), c.arg(weight), as_int64(c.arg(indices)), c.arg(offset2bag), padding_idx));
}

::std::tuple<at::Tensor, at::Tensor> _weight_norm_interface(const at::Tensor& v,
                                                            const at::Tensor& g, int64_t dim) {
  Call c("_weight_norm_interface", {&v, &g});
  return c.result(lazygen::weight_norm_interface(c.arg(v), c.arg(g), dim));
}

::std::tuple<at::Tensor, at::Tensor> _weight_norm_interface_backward(const at::Tensor& grad_w,
                                                                     const at::Tensor& saved_v,
                                                                     const at::Tensor& saved_g,
                                                                     const at::Tensor& saved_norms,
                                                                     int64_t dim) {
  Call c("_weight_norm_interface_backward", {&grad_w, &saved_v, &saved_g, &saved_norms});
  return c.result(lazygen::weight_norm_interface_backward(c.arg(grad_w), c.arg(saved_v),
                                                          c.arg(saved_g), c.arg(saved_norms), dim));
}

at::Tensor renorm(const at::Tensor& self, const at::Scalar& p, int64_t dim,
                  const at::Scalar& maxnorm) {
  Call c("renorm", {&self});
  return c.result(lazygen::renorm(c.arg(self), c.arg(p), dim, c.arg(maxnorm)));
}

at::Tensor& renorm_inplace(at::Tensor& self, const at::Scalar& p, int64_t dim,
                           const at::Scalar& maxnorm) {
  Call c("renorm_", {&self});
  return c.write_back(self, lazygen::renorm(c.arg(self), c.arg(p), dim, c.arg(maxnorm)));
}

at::Tensor& embedding_renorm_inplace(at::Tensor& self, const at::Tensor& indices, double max_norm,
                                     double norm_type) {
  Call c("embedding_renorm_", {&self, &indices});
  return c.write_back(self,
                      lazygen::embedding_renorm(c.arg(self), c.arg(indices), max_norm, norm_type));
}

}  // namespace lazygen::pytorch::adapters
