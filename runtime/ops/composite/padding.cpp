// Reflection and replication padding (lazygen/composite.h) as gathers: each padded dim is an
// index_select by the position each output element copies (reflected about the edge element, or
// the edge element itself), so autograd, fusion and every device work through index_select; the
// backward ops index_add the gradient back along the same positions.
#include <string>
#include <vector>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/index_add.h"
#include "lazygen/generated/ops/index_select.h"

namespace lazygen {
namespace {

enum class Edge { Reflect, Replicate };

// PyTorch's checks: padding pairs (left, right) for the last dims, last dim first; an input of
// one or two dims more than padded; reflected pads shorter than their dim; a non-empty output.
void check_padding(const char* op, const Tensor& self, const std::vector<int64_t>& padding,
                   Edge edge) {
  const auto k = static_cast<int64_t>(padding.size() / 2);
  if (padding.size() % 2 != 0 || k < 1 || k > 3) {
    throw ShapeError(
        op, "padding must hold a (left, right) pair for 1, 2 or 3 dims, got " + sizes_str(padding));
  }
  if (self.dim() != k + 1 && self.dim() != k + 2) {
    throw ShapeError(op, "Expected " + std::to_string(k + 1) + "D or " + std::to_string(k + 2) +
                             "D (batch mode) tensor for input, but got " + sizes_str(self.sizes()));
  }
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = self.dim() - 1 - i, n = self.size(d);
    const int64_t left = padding[static_cast<size_t>(2 * i)],
                  right = padding[static_cast<size_t>(2 * i + 1)];
    if (edge == Edge::Reflect && (left >= n || right >= n)) {
      throw ShapeError(op,
                       "Argument #4: Padding size should be less than the corresponding input "
                       "dimension, but got: padding (" +
                           std::to_string(left) + ", " + std::to_string(right) + ") at dimension " +
                           std::to_string(d) + " of input " + sizes_str(self.sizes()));
    }
    if (n + left + right < 1 || (edge == Edge::Replicate && n == 0)) {
      throw ShapeError(op, "input " + sizes_str(self.sizes()) + " is too small for padding " +
                               sizes_str(padding) + ": dim " + std::to_string(d) + " would have " +
                               std::to_string(n + left + right) + " elements");
    }
  }
}

// The position along a dim of n elements that each of the n + left + right outputs copies.
Tensor edge_positions(int64_t n, int64_t left, int64_t right, Edge edge, Device device) {
  std::vector<int64_t> at;
  for (int64_t i = -left; i < n + right; ++i) {
    if (edge == Edge::Replicate) {
      at.push_back(std::min(std::max<int64_t>(i, 0), n - 1));
    } else {
      at.push_back(i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i);
    }
  }
  const auto count = static_cast<int64_t>(at.size());
  return tensor(at, IntList{count}, DType::Int64, device);
}

Tensor pad(const char* op, const Tensor& self, const std::vector<int64_t>& padding, Edge edge) {
  check_padding(op, self, padding, edge);
  Tensor out = self;
  for (size_t i = 0; i < padding.size() / 2; ++i) {
    const int64_t d = self.dim() - 1 - static_cast<int64_t>(i);
    out = index_select(
        out, d,
        edge_positions(self.size(d), padding[2 * i], padding[2 * i + 1], edge, self.device()));
  }
  return out;
}

Tensor pad_backward(const char* op, const Tensor& grad_output, const Tensor& self,
                    const std::vector<int64_t>& padding, Edge edge) {
  check_padding(op, self, padding, edge);
  Tensor grad = grad_output;
  for (size_t i = padding.size() / 2; i-- > 0;) {  // the innermost padded dim was gathered first
    const int64_t d = self.dim() - 1 - static_cast<int64_t>(i);
    std::vector<int64_t> sizes = grad.sizes();
    sizes[static_cast<size_t>(d)] = self.size(d);
    const Tensor positions =
        edge_positions(self.size(d), padding[2 * i], padding[2 * i + 1], edge, self.device());
    grad = index_add(zeros(sizes, grad.dtype(), grad.device()), d, positions, grad);
  }
  return grad;
}

}  // namespace

Tensor reflection_pad(const Tensor& self, const std::vector<int64_t>& padding) {
  return pad("reflection_pad", self, padding, Edge::Reflect);
}
Tensor replication_pad(const Tensor& self, const std::vector<int64_t>& padding) {
  return pad("replication_pad", self, padding, Edge::Replicate);
}
Tensor reflection_pad_backward(const Tensor& grad_output, const Tensor& self,
                               const std::vector<int64_t>& padding) {
  return pad_backward("reflection_pad_backward", grad_output, self, padding, Edge::Reflect);
}
Tensor replication_pad_backward(const Tensor& grad_output, const Tensor& self,
                                const std::vector<int64_t>& padding) {
  return pad_backward("replication_pad_backward", grad_output, self, padding, Edge::Replicate);
}

}  // namespace lazygen
