// Formula helpers (autograd/formulas.h).
#include "autograd/formulas.h"

#include "core/lazy/lazy_tensor.h"
#include "lazygen/operators.h"

namespace lazygen::autograd {
namespace {

// True when m (2-D) is stored transposed: its value is a t() node on the lazy device, which
// backends read through an index map; column-major strides elsewhere.
bool is_transposed_matrix(const Tensor& m) {
  if (m.device().is_lazy()) {
    const ir::Value& v = lazy::ir_value(m);
    return v.node && v.node->op() == ir::OpKind::t;
  }
  return m.stride(0) == 1 && m.stride(1) == m.size(0) && m.size(0) > 1;
}

}  // namespace

Tensor maybe_multiply(const Tensor& t, const Scalar& s) {
  const bool one = (s.is_integral() && s.to<int64_t>() == 1) ||
                   (s.is_floating() && s.to<double>() == 1.0);
  return one ? t : t * s;
}

Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, const Tensor& mat2,
                        const Scalar& alpha) {
  if (is_transposed_matrix(mat2)) return maybe_multiply(mm(grad.t(), mat1), alpha).t();
  return maybe_multiply(mm(mat1.t(), grad), alpha);
}

}  // namespace lazygen::autograd
