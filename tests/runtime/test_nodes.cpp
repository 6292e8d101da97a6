// Lowerings of the test node types (tests/runtime/test_nodes.h).
#include "test_nodes.h"

#include <stdexcept>

#include "core/ir/trie_cache.h"
#include "core/lazy/lazy_tensor.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/factory.h"

namespace lazygen::testing {
namespace {

// out[i] = sum_k coef[k] * in[k][i] + bias over float32 tensors of equal numel; undefined
// inputs are skipped.
Tensor affine(const std::vector<Tensor>& in, const std::vector<float>& coef, float bias,
              const Shape& shape) {
  Tensor out = make_cpu_tensor(shape.sizes, DType::Float32);
  float* o = out.data_ptr<float>();
  for (int64_t i = 0; i < out.numel(); ++i) o[i] = bias;
  for (size_t k = 0; k < in.size(); ++k) {
    if (!in[k].defined()) continue;
    if (in[k].numel() != out.numel()) throw std::invalid_argument("test lowering: numel differs");
    const float* x = in[k].data_ptr<float>();
    for (int64_t i = 0; i < out.numel(); ++i) o[i] += coef[k] * x[i];
  }
  return out;
}

std::vector<Tensor> lower_unary(const Node& n, const std::vector<Tensor>& in) {
  return {affine({in[0]}, {1}, 1, n.shape())};
}

std::vector<Tensor> lower_binary(const Node& n, const std::vector<Tensor>& in) {
  float alpha = exec::scalar_of(in[2]).to<float>();
  return {affine({in[0], in[1]}, {1, alpha}, 0, n.shape())};
}

std::vector<Tensor> lower_optional(const Node& n, const std::vector<Tensor>& in) {
  return {affine({in[0], in[1], in[2]}, {1, 1, 2}, 0, n.shape())};
}

std::vector<Tensor> lower_two_outputs(const Node& n, const std::vector<Tensor>& in) {
  return {affine({in[0]}, {2}, 0, n.shape(0)), affine({in[0]}, {3}, 0, n.shape(1))};
}

}  // namespace

exec::LowerFn test_lowering(OpKind kind) {
  if (kind == TestUnary::kKind) return &lower_unary;
  if (kind == TestBinary::kKind) return &lower_binary;
  if (kind == TestOptional::kKind) return &lower_optional;
  if (kind == TestTwoOutputs::kKind) return &lower_two_outputs;
  return nullptr;
}

Tensor lazy_zeros(const std::vector<int64_t>& sizes) {
  return lazy::make_lazy_tensor_from_data(zeros(sizes), kLazy);
}

Tensor trace_binary(const Tensor& x, const Tensor& y, const Scalar& alpha) {
  ir::NodePtr node =
      ir::cached_node<TestBinary>(lazy::ir_value(x), lazy::ir_value(y), lazy::scalar_value(alpha),
                                  std::vector<Shape>{x.shape()});
  return lazy::make_lazy_tensor(node, 0, x.device());
}

}  // namespace lazygen::testing
