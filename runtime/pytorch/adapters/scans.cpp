// Adapters for PyTorch's products, scans, order statistics, searches and small matrix ops that
// lazygen serves as composites (ops.yaml, "PyTorch adapters"; lazygen/composite.h): prod,
// cumprod, logcumsumexp, cummax, cummin, kthvalue, median, nanmedian, mode, searchsorted,
// bucketize, diag, linalg_cross, cdist (_cdist_forward, _cdist_backward), pdist (_pdist_forward,
// _pdist_backward) and linalg_inv_ex;
// scatter_add_, which cummax's and cummin's backward calls, and scatter_reduce_. Each converts its
// arguments and calls the composite (or op) of the same name.
#include <ATen/ops/_linalg_check_errors.h>
#include <c10/util/Exception.h>

#include <tuple>

#include "lazygen/composite.h"
#include "lazygen/generated/ops/gather.h"
#include "lazygen/generated/ops/scatter_add.h"
#include "lazygen/generated/ops/scatter_reduce.h"
#include "lazygen/generated/torch_adapters.h"
#include "pytorch/call.h"

namespace lazygen::pytorch::adapters {

at::Tensor prod(const at::Tensor& self, c10::optional<at::ScalarType> dtype) {
  Call c("prod", {&self});
  return c.result(lazygen::prod(c.arg(self), std::nullopt, false, c.arg(dtype)));
}

at::Tensor prod_dim_int(const at::Tensor& self, int64_t dim, bool keepdim,
                        c10::optional<at::ScalarType> dtype) {
  Call c("prod.dim_int", {&self});
  return c.result(lazygen::prod(c.arg(self), dim, keepdim, c.arg(dtype)));
}

at::Tensor cumprod(const at::Tensor& self, int64_t dim, c10::optional<at::ScalarType> dtype) {
  Call c("cumprod", {&self});
  return c.result(lazygen::cumprod(c.arg(self), dim, c.arg(dtype)));
}

at::Tensor logcumsumexp(const at::Tensor& self, int64_t dim) {
  Call c("logcumsumexp", {&self});
  return c.result(lazygen::logcumsumexp(c.arg(self), dim));
}

std::tuple<at::Tensor, at::Tensor> cummax(const at::Tensor& self, int64_t dim) {
  Call c("cummax", {&self});
  return c.result(lazygen::cummax(c.arg(self), dim));
}

std::tuple<at::Tensor, at::Tensor> cummin(const at::Tensor& self, int64_t dim) {
  Call c("cummin", {&self});
  return c.result(lazygen::cummin(c.arg(self), dim));
}

std::tuple<at::Tensor, at::Tensor> kthvalue(const at::Tensor& self, int64_t k, int64_t dim,
                                            bool keepdim) {
  Call c("kthvalue", {&self});
  return c.result(lazygen::kthvalue(c.arg(self), k, dim, keepdim));
}

at::Tensor median(const at::Tensor& self) {
  Call c("median", {&self});
  return c.result(lazygen::median(c.arg(self)));
}

std::tuple<at::Tensor, at::Tensor> median_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  Call c("median.dim", {&self});
  return c.result(lazygen::median(c.arg(self), dim, keepdim));
}

at::Tensor nanmedian(const at::Tensor& self) {
  Call c("nanmedian", {&self});
  return c.result(lazygen::nanmedian(c.arg(self)));
}

std::tuple<at::Tensor, at::Tensor> nanmedian_dim(const at::Tensor& self, int64_t dim,
                                                 bool keepdim) {
  Call c("nanmedian.dim", {&self});
  return c.result(lazygen::nanmedian(c.arg(self), dim, keepdim));
}

std::tuple<at::Tensor, at::Tensor> mode(const at::Tensor& self, int64_t dim, bool keepdim) {
  Call c("mode", {&self});
  return c.result(lazygen::mode(c.arg(self), dim, keepdim));
}

// side ("left" or "right") is right's other spelling; a sorter orders an unsorted sequence.
at::Tensor searchsorted_tensor(const at::Tensor& sorted_sequence, const at::Tensor& self,
                               bool out_int32, bool right, c10::optional<c10::string_view> side,
                               const c10::optional<at::Tensor>& sorter) {
  if (side) {
    TORCH_CHECK(*side == "left" || *side == "right",
                "torch.searchsorted(): side can only be 'left' or 'right' but got ", *side);
    TORCH_CHECK(!right || *side == "right",
                "torch.searchsorted(): side and right can't be set to opposites, got side of ",
                *side, " while right was True");
    right = *side == "right";
  }
  Call c("searchsorted.Tensor", {&sorted_sequence, &self, sorter ? &*sorter : nullptr});
  Tensor seq = c.arg(sorted_sequence);
  if (sorter) {
    TORCH_CHECK(sorter->sizes() == sorted_sequence.sizes(),
                "torch.searchsorted(): boundary and sorter must have the same size, but got "
                "boundary tensor ",
                sorted_sequence.sizes(), " and got sorter tensor ", sorter->sizes());
    seq = gather(seq, -1, *c.arg(sorter));
  }
  return c.result(lazygen::searchsorted(seq, c.arg(self), out_int32, right));
}

at::Tensor bucketize_tensor(const at::Tensor& self, const at::Tensor& boundaries, bool out_int32,
                            bool right) {
  Call c("bucketize.Tensor", {&self, &boundaries});
  return c.result(lazygen::bucketize(c.arg(self), c.arg(boundaries), out_int32, right));
}

at::Tensor diag(const at::Tensor& self, int64_t diagonal) {
  Call c("diag", {&self});
  return c.result(lazygen::diag(c.arg(self), diagonal));
}

at::Tensor linalg_cross(const at::Tensor& self, const at::Tensor& other, int64_t dim) {
  Call c("linalg_cross", {&self, &other});
  return c.result(lazygen::linalg_cross(c.arg(self), c.arg(other), dim));
}

at::Tensor _cdist_forward(const at::Tensor& x1, const at::Tensor& x2, double p,
                          c10::optional<int64_t> compute_mode) {
  Call c("_cdist_forward", {&x1, &x2});
  return c.result(lazygen::cdist(c.arg(x1), c.arg(x2), p, c.arg(compute_mode)));
}

at::Tensor _cdist_backward(const at::Tensor& grad, const at::Tensor& x1, const at::Tensor& x2,
                           double p, const at::Tensor& cdist) {
  Call c("_cdist_backward", {&grad, &x1, &x2, &cdist});
  return c.result(lazygen::cdist_backward(c.arg(grad), c.arg(x1), c.arg(x2), p, c.arg(cdist)));
}

at::Tensor _pdist_forward(const at::Tensor& self, double p) {
  Call c("_pdist_forward", {&self});
  return c.result(lazygen::pdist(c.arg(self), p));
}

at::Tensor _pdist_backward(const at::Tensor& grad, const at::Tensor& self, double p,
                           const at::Tensor& pdist) {
  Call c("_pdist_backward", {&grad, &self, &pdist});
  return c.result(lazygen::pdist_backward(c.arg(grad), c.arg(self), p, c.arg(pdist)));
}

// check_errors reads info (a sync) and raises for a singular matrix, as PyTorch does.
::std::tuple<at::Tensor, at::Tensor> linalg_inv_ex(const at::Tensor& A, bool check_errors) {
  Call c("linalg_inv_ex", {&A});
  auto result = c.result(lazygen::linalg_inv_ex(c.arg(A)));
  if (check_errors) at::_linalg_check_errors(std::get<1>(result), "linalg.inv_ex", A.dim() == 2);
  return result;
}

// cummax's and cummin's backward (PyTorch's cummaxmin_backward) accumulates in place.
at::Tensor& scatter_add_inplace(at::Tensor& self, int64_t dim, const at::Tensor& index,
                                const at::Tensor& src) {
  Call c("scatter_add_", {&self, &index, &src});
  return c.write_back(self, scatter_add(c.arg(self), dim, c.arg(index), c.arg(src)));
}

at::Tensor& scatter_reduce_inplace_two(at::Tensor& self, int64_t dim, const at::Tensor& index,
                                       const at::Tensor& src, c10::string_view reduce,
                                       bool include_self) {
  Call c("scatter_reduce_.two", {&self, &index, &src});
  return c.write_back(self, scatter_reduce(c.arg(self), dim, c.arg(index), c.arg(src),
                                           c.arg(reduce), include_self));
}

}  // namespace lazygen::pytorch::adapters
