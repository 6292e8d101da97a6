// max and min of a whole tensor, all / any, equal, norm, logsumexp, argmin and nonzero
// (lazygen/composite.h), from amax, amin, argmax, sum and pointwise ops.
#include <cmath>
#include <limits>
#include <string>

#include "core/tensor/shape_rules.h"
#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/abs.h"
#include "lazygen/generated/ops/amax.h"
#include "lazygen/generated/ops/amin.h"
#include "lazygen/generated/ops/argmax.h"
#include "lazygen/generated/ops/bitwise_not.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/log.h"
#include "lazygen/generated/ops/logical_not.h"
#include "lazygen/generated/ops/max.h"
#include "lazygen/generated/ops/ne.h"
#include "lazygen/generated/ops/neg.h"
#include "lazygen/generated/ops/pow.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/sqrt.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/operators.h"

namespace lazygen {
namespace {

void check_nonempty(const char* op, const Tensor& self) {
  if (self.numel() == 0) {
    throw ShapeError(op, "expected reduction dim to be specified for an empty input of shape " +
                             sizes_str(self.sizes()) + "; pass a dim");
  }
}

std::optional<std::vector<int64_t>> dims_of(const std::optional<int64_t>& dim) {
  if (!dim) return std::nullopt;
  return std::vector<int64_t>{*dim};
}

// root(s) = s^(1/p) with a zero gradient at s == 0, where PyTorch's norm backward masks the
// infinite derivative (sqrt'(0)) to zero instead of giving 0 * inf = nan.
Tensor safe_root(const Tensor& s, double p) {
  const Tensor zero = zeros({}, s.dtype(), s.device());
  const Tensor is_zero = eq(s, 0);
  const Tensor nonzero_s = where(is_zero, ones({}, s.dtype(), s.device()), s);
  const Tensor root = p == 2 ? sqrt(nonzero_s) : pow(nonzero_s, 1.0 / p);
  return where(is_zero, zero, root);
}

}  // namespace

Tensor max(const Tensor& self) {
  check_nonempty("max", self);
  return amax(self);
}

Tensor min(const Tensor& self) {
  check_nonempty("min", self);
  return amin(self);
}

Tensor all(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return eq(sum(eq(self, 0), dims_of(dim), keepdim && dim), 0);
}

Tensor any(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return ne(sum(ne(self, 0), dims_of(dim), keepdim && dim), 0);
}

Tensor norm(const Tensor& self, const std::optional<Scalar>& p, const std::vector<int64_t>& dim,
            bool keepdim) {
  if (!is_floating(self.dtype())) {
    throw ShapeError("norm", std::string("input dtype should be floating point, got ") +
                                 std::string(dtype_name(self.dtype())));
  }
  const double order = p ? p->to<double>() : 2.0;
  const std::optional<std::vector<int64_t>> dims = dim.empty() ? std::nullopt : std::optional(dim);
  const Tensor a = abs(self);
  if (std::isinf(order)) {
    if (self.numel() == 0)
      throw ShapeError("norm", "an infinity norm of an empty tensor has no value");
    return order > 0 ? amax(a, dim, keepdim) : amin(a, dim, keepdim);
  }
  if (order == 0) return sum(ne(self, 0), dims, keepdim).to(self.dtype());
  if (order == 1) return sum(a, dims, keepdim);
  if (order == 2) return safe_root(sum(self * self, dims, keepdim), 2);
  return safe_root(sum(pow(a, order), dims, keepdim), order);
}

Tensor logsumexp(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim) {
  const Tensor x = is_floating(self.dtype()) ? self : self.to(DType::Float32);
  if (x.numel() == 0) return log(sum(exp(x), dim, keepdim));
  const Tensor m = amax(x, dim, true);
  const Tensor shift = where(eq(abs(m), std::numeric_limits<double>::infinity()), zeros_like(m), m);
  const Tensor out = log(sum(exp(x - shift), dim, true)) + shift;
  return keepdim
             ? out
             : reshape(out,
                       shape_rules::reduce("logsumexp", x.shape(), dim, false, x.dtype()).sizes);
}

Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  // An order-reversing map argmax sees: ~x for integers (no overflow), not for bools, -x for
  // floats (NaN stays NaN, which argmax picks first as argmin must).
  const DType t = self.dtype();
  const Tensor reversed = t == DType::Bool ? logical_not(self)
                          : is_floating(t) ? neg(self)
                                           : bitwise_not(self);
  return argmax(reversed, dim, keepdim);
}

bool equal(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes()) return false;
  return all(eq(a, b)).cpu().item<bool>();
}

Tensor nonzero(const Tensor& self) {
  // The result's size depends on self's values: self is computed (a sync on the lazy device)
  // and the coordinates gathered on the host.
  const Tensor flags = ne(self, 0).cpu().contiguous();
  const bool* f = flags.data_ptr<bool>();
  const std::vector<int64_t>& sizes = self.sizes();
  std::vector<int64_t> coords, at(sizes.size(), 0);
  int64_t count = 0;
  for (int64_t i = 0; i < flags.numel(); ++i) {
    if (f[i]) {
      coords.insert(coords.end(), at.begin(), at.end());
      ++count;
    }
    for (size_t d = sizes.size(); d-- > 0;) {  // the next row-major coordinate
      if (++at[d] < sizes[d]) break;
      at[d] = 0;
    }
  }
  return tensor(coords, IntList{count, self.dim()}, DType::Int64, self.device());
}

}  // namespace lazygen
