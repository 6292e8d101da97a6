// Adapters for PyTorch's ops that count and compare values, which lazygen serves as composites
// (ops.yaml, "PyTorch adapters"; lazygen/composite.h, Note [Counting by sorting]): bincount, the
// unique family (torch.unique without and with a dim, torch.unique_consecutive, and the older
// torch._unique), repeat_interleave's indices, isin and equal. Each converts its arguments and
// calls the composite of the same name. PyTorch's ops along a dim return the inverse and counts
// whether asked or not; the others return an empty tensor for each not asked for, as the composites
// do.
#include <c10/core/ScalarType.h>
#include <c10/util/Exception.h>

#include <tuple>

#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/ne.h"
#include "lazygen/generated/torch_adapters.h"
#include "pytorch/call.h"

namespace lazygen::pytorch::adapters {

// PyTorch's message for a dtype its CPU kernel lacks comes first, as there.
at::Tensor bincount(const at::Tensor& self, const c10::optional<at::Tensor>& weights,
                    int64_t minlength) {
  TORCH_CHECK(c10::isIntegralType(self.scalar_type(), /*includeBool=*/false),
              "\"bincount_cpu\" not implemented for '", self.scalar_type(), "'");
  Call c("bincount", {&self, maybe(weights)});
  return c.result(lazygen::bincount(c.arg(self), c.arg(weights), minlength));
}

std::tuple<at::Tensor, at::Tensor> _unique(const at::Tensor& self, bool sorted,
                                           bool return_inverse) {
  Call c("_unique", {&self});
  auto [values, inverse, counts] = lazygen::unique(c.arg(self), sorted, return_inverse, false);
  return c.result(std::tuple<Tensor, Tensor>{values, inverse});
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> _unique2(const at::Tensor& self, bool sorted,
                                                        bool return_inverse, bool return_counts) {
  Call c("_unique2", {&self});
  return c.result(lazygen::unique(c.arg(self), sorted, return_inverse, return_counts));
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> unique_dim(const at::Tensor& self, int64_t dim,
                                                          bool sorted, bool /*return_inverse*/,
                                                          bool /*return_counts*/) {
  Call c("unique_dim", {&self});
  return c.result(lazygen::unique(c.arg(self), sorted, true, true, dim));
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> unique_consecutive(const at::Tensor& self,
                                                                  bool return_inverse,
                                                                  bool return_counts,
                                                                  c10::optional<int64_t> dim) {
  Call c("unique_consecutive", {&self});
  if (dim) return c.result(lazygen::unique_consecutive(c.arg(self), true, true, *dim));
  return c.result(lazygen::unique_consecutive(c.arg(self), return_inverse, return_counts));
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> unique_dim_consecutive(const at::Tensor& self,
                                                                      int64_t dim,
                                                                      bool /*return_inverse*/,
                                                                      bool /*return_counts*/) {
  Call c("unique_dim_consecutive", {&self});
  return c.result(lazygen::unique_consecutive(c.arg(self), true, true, dim));
}

at::Tensor repeat_interleave_tensor(const at::Tensor& repeats, c10::optional<int64_t> output_size) {
  TORCH_CHECK(c10::isIntegralType(repeats.scalar_type(), /*includeBool=*/false),
              "\"repeat_interleave_cpu\" not implemented for '", repeats.scalar_type(), "'");
  Call c("repeat_interleave.Tensor", {&repeats});
  return c.result(lazygen::repeat_interleave(c.arg(repeats), c.arg(output_size)));
}

// assume_unique only lets PyTorch skip work; the answer is the same.
at::Tensor isin_tensor_tensor(const at::Tensor& elements, const at::Tensor& test_elements,
                              bool /*assume_unique*/, bool invert) {
  Call c("isin.Tensor_Tensor", {&elements, &test_elements});
  return c.result(lazygen::isin(c.arg(elements), c.arg(test_elements), invert));
}

// One test value: PyTorch's eq (ne with invert), the number promoting as a number.
at::Tensor isin_tensor_scalar(const at::Tensor& elements, const at::Scalar& test_element,
                              bool /*assume_unique*/, bool invert) {
  Call c("isin.Tensor_Scalar", {&elements});
  const Scalar value = c.arg(test_element);
  return c.result(invert ? lazygen::ne(c.arg(elements), value)
                         : lazygen::eq(c.arg(elements), value));
}

// The element as a 0-d tensor of its own category's dtype (int64, float64 or bool), as PyTorch
// wraps it.
at::Tensor isin_scalar_tensor(const at::Scalar& element, const at::Tensor& test_elements,
                              bool /*assume_unique*/, bool invert) {
  Call c("isin.Scalar_Tensor", {&test_elements});
  const Scalar value = c.arg(element);
  const Tensor& tests = c.arg(test_elements);
  return c.result(
      lazygen::isin(lazygen::scalar_tensor(value, value.dtype(), tests.device()), tests, invert));
}

bool equal(const at::Tensor& self, const at::Tensor& other) {
  Call c("equal", {&self, &other});
  return lazygen::equal(c.arg(self), c.arg(other));
}

}  // namespace lazygen::pytorch::adapters
