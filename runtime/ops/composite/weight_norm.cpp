// Weight normalization's fused pair (lazygen/composite.h): w = v * g / ||v|| with the norm over
// every dim of v but `dim`, and its gradients, through reductions and pointwise ops.
#include <string>
#include <tuple>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/sqrt.h"
#include "lazygen/generated/ops/sum.h"
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

}  // namespace lazygen
