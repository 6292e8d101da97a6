// The margin losses over classes (lazygen/composite.h): multi_margin_loss and
// multilabel_margin_loss with their backward ops, as PyTorch's CPU kernels compute them, from
// gather, pointwise ops and sums over every (sample, class) or (sample, target, class) triple.
#include <string>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/clamp_min.h"
#include "lazygen/generated/ops/cumsum.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/gather.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/logical_not.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/ne.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/scatter_add.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"
#include "ops/shape/training_shapes.h"

namespace lazygen {
namespace {

// self as [N, C] (a vector is one sample), after PyTorch's checks of its rank.
Tensor samples(const char* op, const Tensor& self) {
  if ((self.dim() != 1 && self.dim() != 2) || (self.numel() == 0 && self.dim() == 1)) {
    throw ShapeError(
        op, "Expected non-empty vector or matrix with optional 0-dim batch size, but got: " +
                sizes_str(self.sizes()));
  }
  if (!is_floating(self.dtype())) {
    throw ShapeError(op, "expected a floating input, got " + std::string(dtype_name(self.dtype())));
  }
  return self.dim() == 1 ? unsqueeze(self, 0) : self;
}

Tensor reduce(const Tensor& per_sample, int64_t reduction) {
  if (reduction == kReductionNone) return per_sample;
  return reduction == kReductionMean ? mean(per_sample, std::nullopt) : sum(per_sample);
}

// grad_output as a per-sample factor [N, 1] for a loss of N samples.
Tensor per_sample_grad(const Tensor& grad_output, int64_t n, int64_t reduction) {
  if (reduction == kReductionNone) return reshape(grad_output, {n, 1});
  return reduction == kReductionMean ? grad_output / static_cast<double>(n) : grad_output;
}

struct Margins {
  Tensor target;  // [N, 1] int64
  Tensor hinge;   // max(0, margin - x[y] + x[j]) [N, C], zero at j = y
  Tensor weight;  // weight[y] [N, 1], or an absent tensor
};

Margins multi_margins(const Tensor& x, const Tensor& target, const Scalar& p, const Scalar& margin,
                      const std::optional<Tensor>& weight) {
  const char* op = "multi_margin_loss";
  const int64_t n = x.size(0), classes = x.size(1);
  if (p.to<double>() != 1 && p.to<double>() != 2)
    throw ShapeError(op, "only p == 1 and p == 2 supported");
  if (target.numel() != n || (target.dim() > 1)) {
    throw ShapeError(op, "inconsistent target size, got: " + sizes_str(target.sizes()));
  }
  if (weight && (weight->dim() != 1 || weight->numel() != classes)) {
    throw ShapeError(op, "inconsistent weight size, expected " + std::to_string(classes) +
                             " but got " + sizes_str(weight->sizes()));
  }
  Margins m;
  m.target = reshape(target, {n, 1});
  const Tensor z = margin.to<double>() - gather(x, 1, m.target) + x;
  const Tensor is_target = eq(unsqueeze(arange(classes, DType::Int64, x.device()), 0), m.target);
  m.hinge = where(is_target, zeros({}, x.dtype(), x.device()), clamp_min(z, 0));
  if (weight) m.weight = unsqueeze(gather(*weight, 0, reshape(target, {n})), 1);
  return m;
}

// The targets of multilabel_margin_loss: those before the first -1 of each row.
struct Labels {
  Tensor valid;      // [N, T] as x's dtype: 1 for a target, 0 from the first -1 on
  Tensor index;      // [N, T] int64: the target, 0 where not valid
  Tensor is_target;  // [N, C] as x's dtype: 1 for a class among the row's targets
};

Labels labels(const Tensor& x, const Tensor& target2) {
  const Tensor ended = gt(cumsum(eq(target2, -1).to(DType::Int64), 1), 0);
  Labels l;
  l.valid = logical_not(ended).to(x.dtype());
  l.index = where(ended, zeros({}, DType::Int64, x.device()), target2);
  const Tensor classes = reshape(arange(x.size(1), DType::Int64, x.device()), {1, 1, -1});
  const Tensor hits = eq(unsqueeze(l.index, 2), classes) * unsqueeze(l.valid, 2);  // [N, T, C]
  l.is_target = any(gt(hits, 0), 1).to(x.dtype());
  return l;
}

// max(0, 1 - x[target] + x[k]) for each valid target and non-target k: [N, T, C], and the
// margins before the hinge.
std::tuple<Tensor, Tensor> label_margins(const Tensor& x, const Labels& l) {
  const Tensor z = 1.0 - unsqueeze(gather(x, 1, l.index), 2) + unsqueeze(x, 1);
  const Tensor counted = unsqueeze(l.valid, 2) * unsqueeze(1.0 - l.is_target, 1);
  return {clamp_min(z, 0) * counted, gt(z, 0) * counted};
}

Tensor label_target(const char* op, const Tensor& self, const Tensor& target) {
  if (target.sizes() != self.sizes()) {
    throw ShapeError(
        op, "inconsistent size " + sizes_str(target.sizes()) + " for argument #2 'target'");
  }
  return self.dim() == 1 ? unsqueeze(target, 0) : target;
}

}  // namespace

Tensor multi_margin_loss(const Tensor& self, const Tensor& target, const Scalar& p,
                         const Scalar& margin, const std::optional<Tensor>& weight,
                         int64_t reduction) {
  check_reduction("multi_margin_loss", reduction);
  const Tensor x = samples("multi_margin_loss", self);
  const Margins m = multi_margins(x, target, p, margin, weight);
  Tensor h = p.to<double>() == 2 ? m.hinge * m.hinge : m.hinge;
  if (weight) h = h * m.weight;
  const Tensor loss = sum(h, std::vector<int64_t>{1}) / static_cast<double>(x.size(1));
  return reduce(reduction == kReductionNone ? reshape(loss, target.sizes()) : loss, reduction);
}

Tensor multi_margin_loss_backward(const Tensor& grad_output, const Tensor& self,
                                  const Tensor& target, const Scalar& p, const Scalar& margin,
                                  const std::optional<Tensor>& weight, int64_t reduction) {
  check_reduction("multi_margin_loss_backward", reduction);
  const Tensor x = samples("multi_margin_loss_backward", self);
  const Margins m = multi_margins(x, target, p, margin, weight);
  const Tensor g =
      per_sample_grad(grad_output, x.size(0), reduction) / static_cast<double>(x.size(1));
  Tensor h = p.to<double>() == 2 ? 2.0 * m.hinge : gt(m.hinge, 0).to(x.dtype());
  if (weight) h = h * m.weight;
  h = h * g;  // d loss / d x[j] for j != y
  const Tensor at_target =
      scatter_add(zeros_like(h), 1, m.target, -sum(h, std::vector<int64_t>{1}, true));
  return reshape(h + at_target, self.sizes());
}

std::tuple<Tensor, Tensor> multilabel_margin_loss_forward(const Tensor& self, const Tensor& target,
                                                          int64_t reduction) {
  const char* op = "multilabel_margin_loss";
  check_reduction(op, reduction);
  const Tensor x = samples(op, self);
  const Labels l = labels(x, label_target(op, self, target));
  const Tensor hinge = std::get<0>(label_margins(x, l));
  const Tensor loss = sum(hinge, std::vector<int64_t>{1, 2}) / static_cast<double>(x.size(1));
  const Tensor output = self.dim() == 1 && reduction == kReductionNone ? reshape(loss, {}) : loss;
  return {reduce(output, reduction), reshape(l.is_target, self.sizes())};
}

Tensor multilabel_margin_loss_backward(const Tensor& grad_output, const Tensor& self,
                                       const Tensor& target, int64_t reduction,
                                       const Tensor& is_target) {
  const char* op = "multilabel_margin_loss_backward";
  check_reduction(op, reduction);
  (void)is_target;  // recomputed from target, as cheap as reading it
  const Tensor x = samples(op, self);
  const Labels l = labels(x, label_target(op, self, target));
  const Tensor active = std::get<1>(label_margins(x, l)).to(x.dtype());  // [N, T, C]
  const Tensor g =
      per_sample_grad(grad_output, x.size(0), reduction) / static_cast<double>(x.size(1));
  const Tensor at_targets =
      scatter_add(zeros_like(x), 1, l.index, -sum(active, std::vector<int64_t>{2}));
  return reshape((sum(active, std::vector<int64_t>{1}) + at_targets) * g, self.sizes());
}

}  // namespace lazygen
