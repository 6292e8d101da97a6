// The device's own decompositions of PyTorch ops whose CompositeImplicitAutograd decomposition
// syncs on a lazy device.
//
// Note [Decompositions above autograd]
// PyTorch decomposes some ops (CompositeImplicitAutograd) into ops whose output size depends on
// data, or reads a value back to size an output: cross_entropy's label smoothing with the mean
// reduction averages over masked_select(~ignored), and repeat_interleave with an int repeat
// builds a repeats tensor and sums it with .item(). Each is a sync on a lazy device, mid-step,
// for a result whose size is known from the inputs' sizes alone. A backend kernel for such an op
// would sit below autograd and lose the gradients of the ops it calls (Note [Which ops the device
// registers]); so these kernels are registered on AutogradPrivateUse1 instead, where PyTorch's
// own decomposition runs: the ops they call are recorded by autograd one by one, exactly as the
// decomposition's are, and only the size-dependent step is replaced by one whose size is static.
// Each registration is recorded in registration_report() with origin "decomposition"; an op that
// PyTorch differentiates itself is skipped (the kernel would replace its autograd formula).
#include <ATen/core/Tensor.h>
#include <ATen/ops/cross_entropy_loss_native.h>
#include <ATen/ops/log_softmax.h>
#include <ATen/ops/nll_loss_nd.h>
#include <c10/util/Exception.h>
#include <c10/util/Optional.h>
#include <torch/library.h>

#include <vector>

#include "pytorch/registrar.h"

namespace lazygen::pytorch {
namespace {

constexpr int64_t kReductionNone = 0, kReductionMean = 1, kReductionSum = 2;

// The per-sample smoothing term -sum_c w_c log p_c, 0 where the target is ignored.
at::Tensor smoothing_term(const at::Tensor& log_p, const at::Tensor& ignored,
                          const c10::optional<at::Tensor>& weight, int64_t class_dim) {
  at::Tensor weighted = log_p;
  if (weight && weight->defined()) {
    std::vector<int64_t> shape(static_cast<size_t>(log_p.dim()), 1);
    shape[static_cast<size_t>(class_dim)] = weight->size(0);
    weighted = log_p.mul(weight->view(shape));
  }
  return weighted.sum(class_dim).neg().masked_fill(ignored, 0.0);
}

// The mean reduction's denominator: the summed weights of the targets not ignored (their count
// without weights), as nll_loss normalizes. PyTorch selects those targets (a sync); masking
// their weights to 0 gives the same sum with static sizes.
at::Tensor kept_weight(const at::Tensor& target, const at::Tensor& ignored,
                       const c10::optional<at::Tensor>& weight) {
  if (!weight || !weight->defined()) return ignored.logical_not().sum();
  const at::Tensor safe_target = target.masked_fill(ignored, 0).flatten();
  return weight->gather(0, safe_target).masked_fill(ignored.flatten(), 0.0).sum();
}

// cross_entropy with class-index targets and label smoothing:
// (1 - s) * nll_loss + s / C * reduce(smoothing term), reduced as nll_loss is.
at::Tensor smoothed_cross_entropy(const at::Tensor& self, const at::Tensor& target,
                                  const c10::optional<at::Tensor>& weight, int64_t reduction,
                                  int64_t ignore_index, double label_smoothing) {
  TORCH_CHECK(label_smoothing <= 1.0,
              "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const at::Tensor log_p = at::log_softmax(self, class_dim, self.scalar_type());
  const at::Tensor nll = at::nll_loss_nd(log_p, target, weight, reduction, ignore_index);
  const at::Tensor ignored = target.eq(ignore_index);
  const at::Tensor term = smoothing_term(log_p, ignored, weight, class_dim);
  at::Tensor reduced;
  switch (reduction) {
    case kReductionMean:
      reduced = term.sum().div(kept_weight(target, ignored, weight));
      break;
    case kReductionSum:
      reduced = term.sum();
      break;
    case kReductionNone:
      reduced = term;
      break;
    default:
      TORCH_CHECK(false, "Invalid reduction type encountered in cross_entropy: ", reduction);
  }
  const double classes = static_cast<double>(log_p.size(class_dim));
  return nll.mul(1.0 - label_smoothing).add(reduced.mul(label_smoothing / classes));
}

// aten::cross_entropy_loss: the label-smoothing form of class-index targets decomposed without
// masked_select; every other form (probability targets, no smoothing) is PyTorch's, which does
// not sync.
at::Tensor cross_entropy_loss(const at::Tensor& self, const at::Tensor& target,
                              const c10::optional<at::Tensor>& weight, int64_t reduction,
                              int64_t ignore_index, double label_smoothing) {
  if (label_smoothing > 0.0 && self.sizes() != target.sizes()) {
    return smoothed_cross_entropy(self, target, weight, reduction, ignore_index, label_smoothing);
  }
  return at::native::cross_entropy_loss(self, target, weight, reduction, ignore_index,
                                        label_smoothing);
}

// aten::repeat_interleave.self_int: each element `repeats` times along `dim` (of the flattened
// tensor when `dim` is None): a new dim after `dim` expanded to `repeats`, copied, and merged
// into `dim`. The copy makes a new tensor, as PyTorch's index_select does, even where a reshape
// could have been a view (repeats == 1, or a dim of size 1).
at::Tensor repeat_interleave_int(const at::Tensor& self, int64_t repeats,
                                 c10::optional<int64_t> dim, c10::optional<int64_t> output_size) {
  TORCH_CHECK(repeats >= 0, "repeats can not be negative");
  const at::Tensor input = dim ? self : self.flatten();
  const int64_t d = c10::maybe_wrap_dim(dim.value_or(0), input.dim());
  const int64_t length = input.size(d) * repeats;
  TORCH_CHECK(!output_size || *output_size == length, "repeat_interleave: output_size ",
              output_size.value_or(0), " does not match ", input.size(d), " elements repeated ",
              repeats, " times (", length, ")");
  std::vector<int64_t> expanded(input.sizes().begin(), input.sizes().end());
  expanded.insert(expanded.begin() + d + 1, repeats);
  std::vector<int64_t> merged(input.sizes().begin(), input.sizes().end());
  merged[static_cast<size_t>(d)] = length;
  return input.unsqueeze(d + 1).expand(expanded).clone(at::MemoryFormat::Contiguous).view(merged);
}

TORCH_LIBRARY_IMPL(aten, AutogradPrivateUse1, m) {
  Registrar decompositions(m, kDecomposition);
  decompositions.add("cross_entropy_loss", TORCH_FN(cross_entropy_loss));
  decompositions.add("repeat_interleave.self_int", TORCH_FN(repeat_interleave_int));
}

}  // namespace
}  // namespace lazygen::pytorch
