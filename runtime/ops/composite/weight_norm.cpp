// Weight normalization's fused pair (lazygen/composite.h): w = v * g / ||v|| with the norm over
// every dim of v but `dim`, and its gradients, through reductions and pointwise ops; and the
// renormalizations that cap norms (torch.renorm, nn.Embedding's max_norm).
#include <string>
#include <tuple>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/div.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/index_select.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/sqrt.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

// What the pair needs of its arguments: v's dims other than dim (the norm's), and the shape
// [1, .., v.size(dim), .., 1] that g and the norms take against v.
struct WeightNorm {
  std::vector<int64_t> reduced;
  std::vector<int64_t> along;
};

WeightNorm weight_norm_dims(const char* op, const Tensor& v, const Tensor& g, int64_t dim) {
  const int64_t d = wrap_dim(op, dim, v.dim());
  WeightNorm w;
  for (int64_t i = 0; i < v.dim(); ++i) {
    w.along.push_back(i == d ? v.size(i) : 1);
    if (i != d) w.reduced.push_back(i);
  }
  if (g.numel() != v.size(d)) {
    throw ShapeError(op, "g of shape " + sizes_str(g.sizes()) +
                             " must hold one value per index of v " + sizes_str(v.sizes()) +
                             " along dim " + std::to_string(d));
  }
  return w;
}

}  // namespace

std::tuple<Tensor, Tensor> weight_norm_interface(const Tensor& v, const Tensor& g, int64_t dim) {
  const WeightNorm w = weight_norm_dims("_weight_norm_interface", v, g, dim);
  const Tensor norms = sqrt(sum(v * v, w.reduced, true));  // [.., v.size(dim), ..]
  return {v * (reshape(g, w.along) / norms), reshape(norms, g.sizes())};
}

std::tuple<Tensor, Tensor> weight_norm_interface_backward(const Tensor& grad_w, const Tensor& v,
                                                          const Tensor& g, const Tensor& norms,
                                                          int64_t dim) {
  const WeightNorm w = weight_norm_dims("_weight_norm_interface_backward", v, g, dim);
  const Tensor n = reshape(norms, w.along);
  const Tensor projection = sum(grad_w * v, w.reduced, true);  // <grad_w, v> per index of dim
  const Tensor grad_v = (reshape(g, w.along) / n) * (grad_w - v * (projection / (n * n)));
  return {grad_v, reshape(projection / n, g.sizes())};
}

namespace {

// PyTorch's factor for a norm over a cap: max_norm / (norm + 1e-7) where the norm exceeds it,
// else 1, in the norm's dtype.
Tensor cap_factor(const Tensor& norms, double max_norm) {
  const Tensor cap = full({}, max_norm, norms.dtype(), norms.device());
  return where(gt(norms, max_norm), div(cap, norms + 1e-7), ones({}, norms.dtype(), norms.device()));
}

}  // namespace

Tensor renorm(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  if (!is_floating(self.dtype())) {
    throw ShapeError("renorm", "takes a floating tensor, got " + std::string(dtype_name(self.dtype())));
  }
  if (p.to<double>() <= 0) throw ShapeError("renorm", "renorm: non-positive-norm not supported");
  if (maxnorm.to<double>() < 0) {
    throw ShapeError("renorm", "renorm: expected maxnorm to be >= 0 but got " + maxnorm.str());
  }
  const int64_t d = wrap_dim("renorm", dim, self.dim());
  std::vector<int64_t> others;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (i != d) others.push_back(i);
  }
  return self * cap_factor(norm(self, p, others, true), maxnorm.to<double>());
}

Tensor embedding_renorm(const Tensor& weight, const Tensor& indices, double max_norm,
                        double norm_type) {
  if (weight.dim() != 2) {
    throw ShapeError("embedding_renorm_", "expected a 2-D weight, got " + sizes_str(weight.sizes()));
  }
  const Tensor rows = reshape(indices, {-1}).to(DType::Int64);
  const Tensor picked = index_select(weight, 0, rows);
  const Tensor capped = picked * cap_factor(norm(picked, Scalar(norm_type), {1}, true), max_norm);
  return index_copy(weight, 0, rows, capped);  // a repeated index writes the same row again
}

}  // namespace lazygen
