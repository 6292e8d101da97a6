// Adapters for PyTorch's rearranging and reducing ops that lazygen serves as composites (ops.yaml,
// "PyTorch adapters"; lazygen/composite.h): stack, repeat, flip, roll, pixel_shuffle,
// pixel_unshuffle and channel_shuffle, addmm_, split_with_sizes, tril/triu, the copying views and
// their scatters, trace, mv, zero, min/max/all/any of a whole tensor, norm, std/var (also with the
// mean), logsumexp, argmin, nonzero, histc, division with a rounding mode (and floor_divide),
// masked_fill by a tensor value, clamp_, clamp with tensor bounds, nan_to_num, aminmax,
// count_nonzero, nansum, addmv, heaviside, logit and its backward, linalg_vector_norm, amax.out and
// max.dim_max (Adamax), pow of a number base, round to decimals, take (and put_, its backward),
// index_copy (also in place), index_add_, addbmm, advanced indexing (index.Tensor,
// _index_put_impl_: x[idx], x[idx] = v); the ops PyTorch's backward formulas call for them
// (scatter_, index_fill_, masked_fill_, pow_, masked_select, diagonal_backward, unfold_backward,
// select_backward, diag_embed); and the log-determinant with its LU solve. Each converts its
// arguments and calls the composite (or op) of the same name; an in-place form writes the result
// back (Call::write_back).
#include <c10/core/ScalarType.h>
#include <c10/util/Exception.h>

#include <limits>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/tensor/shape_rules.h"
#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/add.h"
#include "lazygen/generated/ops/addmm.h"
#include "lazygen/generated/ops/amax.h"
#include "lazygen/generated/ops/amin.h"
#include "lazygen/generated/ops/clamp.h"
#include "lazygen/generated/ops/copy_.h"
#include "lazygen/generated/ops/div.h"
#include "lazygen/generated/ops/eq.h"
#include "lazygen/generated/ops/exp.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/gt.h"
#include "lazygen/generated/ops/index_add.h"
#include "lazygen/generated/ops/isnan.h"
#include "lazygen/generated/ops/log.h"
#include "lazygen/generated/ops/logical_or.h"
#include "lazygen/generated/ops/lt.h"
#include "lazygen/generated/ops/masked_fill.h"
#include "lazygen/generated/ops/max.h"
#include "lazygen/generated/ops/maximum.h"
#include "lazygen/generated/ops/mean.h"
#include "lazygen/generated/ops/minimum.h"
#include "lazygen/generated/ops/mul.h"
#include "lazygen/generated/ops/ne.h"
#include "lazygen/generated/ops/pow.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/rsub.h"
#include "lazygen/generated/ops/sort.h"
#include "lazygen/generated/ops/sub.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/generated/ops/transpose.h"
#include "lazygen/generated/ops/where.h"
#include "lazygen/generated/torch_adapters.h"
#include "lazygen/operators.h"
#include "pytorch/call.h"

namespace lazygen::pytorch::adapters {

at::Tensor stack(at::TensorList tensors, int64_t dim) {
  Call c("stack", {});
  return c.result(lazygen::stack(c.arg(tensors), dim));
}

at::Tensor repeat(const at::Tensor& self, c10::IntArrayRef repeats) {
  Call c("repeat", {&self});
  return c.result(lazygen::repeat(c.arg(self), c.arg(repeats)));
}

at::Tensor flip(const at::Tensor& self, c10::IntArrayRef dims) {
  Call c("flip", {&self});
  return c.result(lazygen::flip(c.arg(self), c.arg(dims)));
}

at::Tensor tril(const at::Tensor& self, int64_t diagonal) {
  Call c("tril", {&self});
  return c.result(lazygen::tril(c.arg(self), diagonal));
}

at::Tensor triu(const at::Tensor& self, int64_t diagonal) {
  Call c("triu", {&self});
  return c.result(lazygen::triu(c.arg(self), diagonal));
}

at::Tensor trace(const at::Tensor& self) {
  Call c("trace", {&self});
  return c.result(lazygen::trace(c.arg(self)));
}

at::Tensor mv(const at::Tensor& self, const at::Tensor& vec) {
  Call c("mv", {&self, &vec});
  return c.result(lazygen::mv(c.arg(self), c.arg(vec)));
}

at::Tensor diagonal_copy(const at::Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  Call c("diagonal_copy", {&self});
  return c.result(lazygen::diagonal_copy(c.arg(self), offset, dim1, dim2));
}

at::Tensor as_strided_copy(const at::Tensor& self, c10::IntArrayRef size, c10::IntArrayRef stride,
                           c10::optional<int64_t> storage_offset) {
  Call c("as_strided_copy", {&self});
  return c.result(
      lazygen::as_strided_copy(c.arg(self), c.arg(size), c.arg(stride), c.arg(storage_offset)));
}

at::Tensor unfold_copy(const at::Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  Call c("unfold_copy", {&self});
  return c.result(lazygen::unfold_copy(c.arg(self), dimension, size, step));
}

at::Tensor select_scatter(const at::Tensor& self, const at::Tensor& src, int64_t dim,
                          int64_t index) {
  Call c("select_scatter", {&self, &src});
  return c.result(lazygen::select_scatter(c.arg(self), c.arg(src), dim, index));
}

at::Tensor diagonal_scatter(const at::Tensor& self, const at::Tensor& src, int64_t offset,
                            int64_t dim1, int64_t dim2) {
  Call c("diagonal_scatter", {&self, &src});
  return c.result(lazygen::diagonal_scatter(c.arg(self), c.arg(src), offset, dim1, dim2));
}

at::Tensor as_strided_scatter(const at::Tensor& self, const at::Tensor& src, c10::IntArrayRef size,
                              c10::IntArrayRef stride, c10::optional<int64_t> storage_offset) {
  Call c("as_strided_scatter", {&self, &src});
  return c.result(lazygen::as_strided_scatter(c.arg(self), c.arg(src), c.arg(size), c.arg(stride),
                                              c.arg(storage_offset)));
}

// The functional forms of detach, alias and squeeze: copies (a lazy copy costs nothing until
// either side is written).
at::Tensor detach_copy(const at::Tensor& self) {
  Call c("detach_copy", {&self});
  return c.result(c.arg(self).clone());
}

at::Tensor alias_copy(const at::Tensor& self) {
  Call c("alias_copy", {&self});
  return c.result(c.arg(self).clone());
}

at::Tensor squeeze_copy(const at::Tensor& self) {
  Call c("squeeze_copy", {&self});
  std::vector<int64_t> sizes;
  for (int64_t s : c.arg(self).sizes()) {
    if (s != 1) sizes.push_back(s);
  }
  return c.result(reshape(c.arg(self), sizes));
}

at::Tensor zero(const at::Tensor& self) {
  Call c("zero", {&self});
  return c.result(zeros_like(c.arg(self)));
}

at::Tensor min(const at::Tensor& self) {
  Call c("min", {&self});
  return c.result(lazygen::min(c.arg(self)));
}

at::Tensor max(const at::Tensor& self) {
  Call c("max", {&self});
  return c.result(lazygen::max(c.arg(self)));
}

at::Tensor all(const at::Tensor& self) {
  Call c("all", {&self});
  return c.result(lazygen::all(c.arg(self)));
}

at::Tensor any(const at::Tensor& self) {
  Call c("any", {&self});
  return c.result(lazygen::any(c.arg(self)));
}

at::Tensor all_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  Call c("all.dim", {&self});
  return c.result(lazygen::all(c.arg(self), dim, keepdim));
}

at::Tensor any_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  Call c("any.dim", {&self});
  return c.result(lazygen::any(c.arg(self), dim, keepdim));
}

at::Tensor norm_scalaropt_dim(const at::Tensor& self, const c10::optional<at::Scalar>& p,
                              c10::IntArrayRef dim, bool keepdim) {
  Call c("norm.ScalarOpt_dim", {&self});
  return c.result(lazygen::norm(c.arg(self), c.arg(p), c.arg(dim), keepdim));
}

// correction defaults to 1 (Bessel's), as PyTorch's.
at::Tensor std_correction(const at::Tensor& self, at::OptionalIntArrayRef dim,
                          c10::optional<int64_t> correction, bool keepdim) {
  Call c("std.correction", {&self});
  return c.result(lazygen::std(c.arg(self), c.arg(dim), correction.value_or(1), keepdim));
}

at::Tensor var_correction(const at::Tensor& self, at::OptionalIntArrayRef dim,
                          c10::optional<int64_t> correction, bool keepdim) {
  Call c("var.correction", {&self});
  return c.result(lazygen::var(c.arg(self), c.arg(dim), correction.value_or(1), keepdim));
}

::std::tuple<at::Tensor, at::Tensor> std_mean_correction(const at::Tensor& self,
                                                         at::OptionalIntArrayRef dim,
                                                         c10::optional<int64_t> correction,
                                                         bool keepdim) {
  Call c("std_mean.correction", {&self});
  const Tensor& x = c.arg(self);
  return c.result(std::make_tuple(lazygen::std(x, c.arg(dim), correction.value_or(1), keepdim),
                                  mean(x, c.arg(dim), keepdim)));
}

::std::tuple<at::Tensor, at::Tensor> var_mean_correction(const at::Tensor& self,
                                                         at::OptionalIntArrayRef dim,
                                                         c10::optional<int64_t> correction,
                                                         bool keepdim) {
  Call c("var_mean.correction", {&self});
  const Tensor& x = c.arg(self);
  return c.result(std::make_tuple(lazygen::var(x, c.arg(dim), correction.value_or(1), keepdim),
                                  mean(x, c.arg(dim), keepdim)));
}

at::Tensor logsumexp(const at::Tensor& self, c10::IntArrayRef dim, bool keepdim) {
  Call c("logsumexp", {&self});
  return c.result(lazygen::logsumexp(c.arg(self), c.arg(dim), keepdim));
}

at::Tensor argmin(const at::Tensor& self, c10::optional<int64_t> dim, bool keepdim) {
  Call c("argmin", {&self});
  return c.result(lazygen::argmin(c.arg(self), c.arg(dim), keepdim));
}

at::Tensor floor_divide(const at::Tensor& self, const at::Tensor& other) {
  Call c("floor_divide", {&self, &other});
  return c.result(lazygen::div(c.arg(self), c.arg(other), "floor"));
}

::std::vector<at::Tensor> split_with_sizes(const at::Tensor& self, c10::IntArrayRef split_sizes,
                                           int64_t dim) {
  Call c("split_with_sizes", {&self});
  ::std::vector<at::Tensor> out;
  for (const Tensor& piece : lazygen::split_with_sizes(c.arg(self), c.arg(split_sizes), dim)) {
    out.push_back(c.result(piece));
  }
  return out;
}

at::Tensor nonzero(const at::Tensor& self) {
  Call c("nonzero", {&self});
  return c.result(lazygen::nonzero(c.arg(self)));
}

// PyTorch's message for a dtype its CPU kernels lack comes first: histc of bools fails in
// linspace, of integers in the histogram kernel.
at::Tensor histc(const at::Tensor& self, int64_t bins, const at::Scalar& min,
                 const at::Scalar& max) {
  TORCH_CHECK(self.scalar_type() != c10::kBool, "\"linspace_cpu\" not implemented for 'Bool'");
  TORCH_CHECK(c10::isFloatingType(self.scalar_type()), "\"histogram_cpu\" not implemented for '",
              self.scalar_type(), "'");
  Call c("histc", {&self});
  return c.result(lazygen::histc(c.arg(self), bins, min.toDouble(), max.toDouble()));
}

at::Tensor pow_scalar(const at::Scalar& self, const at::Tensor& exponent) {
  Call c("pow.Scalar", {&exponent});
  return c.result(lazygen::pow(c.arg(self), c.arg(exponent)));
}

at::Tensor round_decimals(const at::Tensor& self, int64_t decimals) {
  TORCH_CHECK(c10::isFloatingType(self.scalar_type()), "\"round_cpu\" not implemented for '",
              self.scalar_type(), "'");
  Call c("round.decimals", {&self});
  return c.result(lazygen::round(c.arg(self), decimals));
}

at::Tensor take(const at::Tensor& self, const at::Tensor& index) {
  Call c("take", {&self, &index});
  return c.result(lazygen::take(c.arg(self), c.arg(index)));
}

at::Tensor index_copy(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                      const at::Tensor& source) {
  Call c("index_copy", {&self, &index, &source});
  return c.result(lazygen::index_copy(c.arg(self), dim, c.arg(index), c.arg(source)));
}

at::Tensor& index_copy_inplace(at::Tensor& self, int64_t dim, const at::Tensor& index,
                               const at::Tensor& source) {
  Call c("index_copy_", {&self, &index, &source});
  return c.write_back(self, lazygen::index_copy(c.arg(self), dim, c.arg(index), c.arg(source)));
}

at::Tensor index_reduce(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                        const at::Tensor& source, c10::string_view reduce, bool include_self) {
  TORCH_WARN_ONCE("index_reduce() is in beta and the API may change at any time.");
  Call c("index_reduce", {&self, &index, &source});
  return c.result(lazygen::index_reduce(c.arg(self), dim, c.arg(index), c.arg(source),
                                        c.arg(reduce), include_self));
}

at::Tensor& index_reduce_inplace(at::Tensor& self, int64_t dim, const at::Tensor& index,
                                 const at::Tensor& source, c10::string_view reduce,
                                 bool include_self) {
  TORCH_WARN_ONCE("index_reduce() is in beta and the API may change at any time.");
  Call c("index_reduce_", {&self, &index, &source});
  return c.write_back(self, lazygen::index_reduce(c.arg(self), dim, c.arg(index), c.arg(source),
                                                  c.arg(reduce), include_self));
}

// The backward of index_select (and so of repeat_interleave).
at::Tensor& index_add_inplace(at::Tensor& self, int64_t dim, const at::Tensor& index,
                              const at::Tensor& source, const at::Scalar& alpha) {
  Call c("index_add_", {&self, &index, &source});
  return c.write_back(self, index_add(c.arg(self), dim, c.arg(index), c.arg(source), c.arg(alpha)));
}

// take's backward.
at::Tensor& put_inplace(at::Tensor& self, const at::Tensor& index, const at::Tensor& source,
                        bool accumulate) {
  Call c("put_", {&self, &index, &source});
  return c.write_back(self, lazygen::put(c.arg(self), c.arg(index), c.arg(source), accumulate));
}

at::Tensor addbmm(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2,
                  const at::Scalar& beta, const at::Scalar& alpha) {
  Call c("addbmm", {&self, &batch1, &batch2});
  return c.result(
      lazygen::addbmm(c.arg(self), c.arg(batch1), c.arg(batch2), c.arg(beta), c.arg(alpha)));
}

at::Tensor div_tensor_mode(const at::Tensor& self, const at::Tensor& other,
                           c10::optional<c10::string_view> rounding_mode) {
  Call c("div.Tensor_mode", {&self, &other});
  std::optional<std::string_view> mode;
  if (rounding_mode) mode = std::string_view(rounding_mode->data(), rounding_mode->size());
  return c.result(lazygen::div(c.arg(self), c.arg(other), mode));
}

namespace {

// self with value (a 0-dim tensor, cast to self's dtype) where mask is true; mask broadcasts to
// self, not self to mask, as PyTorch's.
Tensor masked_filled(const Call& c, const at::Tensor& self, const at::Tensor& mask,
                     const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0,
              "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  TORCH_CHECK(mask.scalar_type() == c10::kBool,
              "masked_fill_ only supports boolean masks, but got mask with dtype ",
              mask.scalar_type());
  const Tensor& s = c.arg(self);
  Tensor out = where(c.arg(mask), c.arg(value).to(s.dtype()), s);
  TORCH_CHECK(out.sizes() == s.sizes(), "masked_fill: the mask of shape ", mask.sizes(),
              " does not broadcast to self's shape ", self.sizes());
  return out;
}

}  // namespace

at::Tensor masked_fill_tensor(const at::Tensor& self, const at::Tensor& mask,
                              const at::Tensor& value) {
  Call c("masked_fill.Tensor", {&self, &mask, &value});
  return c.result(masked_filled(c, self, mask, value));
}

at::Tensor& masked_fill_inplace_tensor(at::Tensor& self, const at::Tensor& mask,
                                       const at::Tensor& value) {
  Call c("masked_fill_.Tensor", {&self, &mask, &value});
  copy_(c.written(self), masked_filled(c, self, mask, value));
  return self;
}

at::Tensor& masked_fill_inplace_scalar(at::Tensor& self, const at::Tensor& mask,
                                       const at::Scalar& value) {
  Call c("masked_fill_.Scalar", {&self, &mask});
  return c.write_back(self, masked_fill(c.arg(self), c.arg(mask), c.arg(value)));
}

at::Tensor& pow_inplace_scalar(at::Tensor& self, const at::Scalar& exponent) {
  Call c("pow_.Scalar", {&self});
  return c.write_back(self, pow(c.arg(self), c.arg(exponent)));
}

at::Tensor scatter_src(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                       const at::Tensor& src) {
  Call c("scatter.src", {&self, &index, &src});
  return c.result(lazygen::scatter(c.arg(self), dim, c.arg(index), c.arg(src)));
}

at::Tensor& scatter_inplace_src(at::Tensor& self, int64_t dim, const at::Tensor& index,
                                const at::Tensor& src) {
  Call c("scatter_.src", {&self, &index, &src});
  return c.write_back(self, lazygen::scatter(c.arg(self), dim, c.arg(index), c.arg(src)));
}

at::Tensor& index_fill_inplace_int_tensor(at::Tensor& self, int64_t dim, const at::Tensor& index,
                                          const at::Tensor& value) {
  Call c("index_fill_.int_Tensor", {&self, &index, &value});
  return c.write_back(self, lazygen::index_fill(c.arg(self), dim, c.arg(index), c.arg(value)));
}

at::Tensor& index_fill_inplace_int_scalar(at::Tensor& self, int64_t dim, const at::Tensor& index,
                                          const at::Scalar& value) {
  Call c("index_fill_.int_Scalar", {&self, &index});
  const Tensor& s = c.arg(self);
  return c.write_back(self, lazygen::index_fill(s, dim, c.arg(index),
                                                full({}, c.arg(value), s.dtype(), s.device())));
}

at::Tensor masked_select(const at::Tensor& self, const at::Tensor& mask) {
  Call c("masked_select", {&self, &mask});
  return c.result(lazygen::masked_select(c.arg(self), c.arg(mask)));
}

at::Tensor diagonal_backward(const at::Tensor& grad_output, c10::IntArrayRef input_sizes,
                             int64_t offset, int64_t dim1, int64_t dim2) {
  Call c("diagonal_backward", {&grad_output});
  return c.result(
      lazygen::diagonal_backward(c.arg(grad_output), c.arg(input_sizes), offset, dim1, dim2));
}

at::Tensor unfold_backward(const at::Tensor& grad_in, c10::IntArrayRef input_sizes, int64_t dim,
                           int64_t size, int64_t step) {
  Call c("unfold_backward", {&grad_in});
  return c.result(lazygen::unfold_backward(c.arg(grad_in), c.arg(input_sizes), dim, size, step));
}

at::Tensor select_backward(const at::Tensor& grad_output, c10::IntArrayRef input_sizes, int64_t dim,
                           int64_t index) {
  Call c("select_backward", {&grad_output});
  return c.result(lazygen::select_backward(c.arg(grad_output), c.arg(input_sizes), dim, index));
}

at::Tensor roll(const at::Tensor& self, c10::IntArrayRef shifts, c10::IntArrayRef dims) {
  Call c("roll", {&self});
  return c.result(lazygen::roll(c.arg(self), c.arg(shifts), c.arg(dims)));
}

namespace {

// Advanced indexing's index tensors on the device: nullopt for None; a CPU index tensor (x[idx]
// with idx on the CPU, which PyTorch accepts for other devices' self) is copied to the device.
std::vector<std::optional<Tensor>> index_args(const Call& c,
                                              const c10::List<c10::optional<at::Tensor>>& indices) {
  std::vector<std::optional<Tensor>> out;
  for (const c10::optional<at::Tensor>& index : indices) {
    if (!index || !index->defined()) {
      out.emplace_back(std::nullopt);
    } else {
      out.emplace_back(index->device().is_cpu() ? to_device(*index) : c.arg(*index));
    }
  }
  return out;
}

}  // namespace

at::Tensor index_tensor(const at::Tensor& self,
                        const c10::List<c10::optional<at::Tensor>>& indices) {
  Call c("index.Tensor", {&self});
  return c.result(lazygen::index(c.arg(self), index_args(c, indices)));
}

at::Tensor& _index_put_impl_inplace(at::Tensor& self,
                                    const c10::List<c10::optional<at::Tensor>>& indices,
                                    const at::Tensor& values, bool accumulate, bool unsafe) {
  (void)unsafe;  // PyTorch's promise that indices are in range; lazygen checks them anyway
  Call c("_index_put_impl_", {&self, &values});
  return c.write_back(
      self, lazygen::index_put(c.arg(self), index_args(c, indices), c.arg(values), accumulate));
}

at::Tensor pixel_shuffle(const at::Tensor& self, int64_t upscale_factor) {
  Call c("pixel_shuffle", {&self});
  return c.result(lazygen::pixel_shuffle(c.arg(self), upscale_factor));
}

at::Tensor pixel_unshuffle(const at::Tensor& self, int64_t downscale_factor) {
  Call c("pixel_unshuffle", {&self});
  return c.result(lazygen::pixel_unshuffle(c.arg(self), downscale_factor));
}

// Channels [N, g * k, *] read as [N, g, k, *] and transposed to [N, k, g, *], with PyTorch's
// checks and messages.
at::Tensor channel_shuffle(const at::Tensor& self, int64_t groups) {
  TORCH_CHECK(self.dim() > 2,
              "channel_shuffle expects input with > 2 dims, but got input with sizes ",
              self.sizes());
  TORCH_CHECK(groups > 0,
              "Number of groups to divide channels in must be positive. Value of groups:", groups);
  TORCH_CHECK(self.size(1) % groups == 0, "Number of channels must be divisible by groups. Got ",
              self.size(1), " channels and ", groups, " groups.");
  Call c("channel_shuffle", {&self});
  const Tensor& x = c.arg(self);
  std::vector<int64_t> split = x.sizes();
  split[1] = x.size(1) / groups;
  split.insert(split.begin() + 1, groups);
  return c.result(reshape(transpose(reshape(x, split), 1, 2), x.sizes()));
}

at::Tensor& addmm_inplace(at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                          const at::Scalar& beta, const at::Scalar& alpha) {
  Call c("addmm_", {&self, &mat1, &mat2});
  return c.write_back(self,
                      addmm(c.arg(self), c.arg(mat1), c.arg(mat2), c.arg(beta), c.arg(alpha)));
}

at::Tensor& clamp_inplace(at::Tensor& self, const c10::optional<at::Scalar>& min,
                          const c10::optional<at::Scalar>& max) {
  Call c("clamp_", {&self});
  return c.write_back(self, clamp(c.arg(self), c.arg(min), c.arg(max)));
}

namespace {

// clamp with tensor bounds: maximum, then minimum (each promotes and propagates NaN).
Tensor clamped(const Call& c, const at::Tensor& self, const c10::optional<at::Tensor>& min,
               const c10::optional<at::Tensor>& max) {
  TORCH_CHECK((min && min->defined()) || (max && max->defined()),
              "torch.clamp: At least one of 'min' or 'max' must not be None");
  Tensor out = c.arg(self);
  if (std::optional<Tensor> lo = c.arg(min)) out = maximum(out, *lo);
  if (std::optional<Tensor> hi = c.arg(max)) out = minimum(out, *hi);
  return out;
}

// NaN, +inf and -inf replaced (by default with 0 and the dtype's largest and lowest finite
// values); other dtypes have none of them.
Tensor without_nan_or_inf(const Tensor& x, c10::optional<double> nan, c10::optional<double> posinf,
                          c10::optional<double> neginf) {
  if (!is_floating(x.dtype())) return x.clone();
  const double big = x.dtype() == DType::Float32 ? std::numeric_limits<float>::max()
                                                 : std::numeric_limits<double>::max();
  const double inf = std::numeric_limits<double>::infinity();
  auto value = [&](double v) { return full({}, v, x.dtype(), x.device()); };
  const Tensor no_nan = where(isnan(x), value(nan.value_or(0.0)), x);
  const Tensor no_posinf = where(eq(x, inf), value(posinf.value_or(big)), no_nan);
  return where(eq(x, -inf), value(neginf.value_or(-big)), no_posinf);
}

}  // namespace

at::Tensor clamp_tensor(const at::Tensor& self, const c10::optional<at::Tensor>& min,
                        const c10::optional<at::Tensor>& max) {
  Call c("clamp.Tensor", {&self, maybe(min), maybe(max)});
  return c.result(clamped(c, self, min, max));
}

at::Tensor& clamp_inplace_tensor(at::Tensor& self, const c10::optional<at::Tensor>& min,
                                 const c10::optional<at::Tensor>& max) {
  Call c("clamp_.Tensor", {&self, maybe(min), maybe(max)});
  return c.write_back(self, clamped(c, self, min, max));
}

at::Tensor clamp_min_tensor(const at::Tensor& self, const at::Tensor& min) {
  Call c("clamp_min.Tensor", {&self, &min});
  return c.result(maximum(c.arg(self), c.arg(min)));
}

at::Tensor clamp_max_tensor(const at::Tensor& self, const at::Tensor& max) {
  Call c("clamp_max.Tensor", {&self, &max});
  return c.result(minimum(c.arg(self), c.arg(max)));
}

at::Tensor nan_to_num(const at::Tensor& self, c10::optional<double> nan,
                      c10::optional<double> posinf, c10::optional<double> neginf) {
  Call c("nan_to_num", {&self});
  return c.result(without_nan_or_inf(c.arg(self), nan, posinf, neginf));
}

at::Tensor& nan_to_num_inplace(at::Tensor& self, c10::optional<double> nan,
                               c10::optional<double> posinf, c10::optional<double> neginf) {
  Call c("nan_to_num_", {&self});
  return c.write_back(self, without_nan_or_inf(c.arg(self), nan, posinf, neginf));
}

at::Tensor& nan_to_num_out(const at::Tensor& self, c10::optional<double> nan,
                           c10::optional<double> posinf, c10::optional<double> neginf,
                           at::Tensor& out) {
  Call c("nan_to_num.out", {&self, &out});
  return c.assign_out(out, without_nan_or_inf(c.arg(self), nan, posinf, neginf));
}

::std::tuple<at::Tensor, at::Tensor> aminmax(const at::Tensor& self, c10::optional<int64_t> dim,
                                             bool keepdim) {
  Call c("aminmax", {&self});
  const Tensor& x = c.arg(self);
  const std::vector<int64_t> dims = dim ? std::vector<int64_t>{*dim} : std::vector<int64_t>{};
  return c.result(std::make_tuple(amin(x, dims, keepdim), amax(x, dims, keepdim)));
}

at::Tensor count_nonzero_dim_intlist(const at::Tensor& self, c10::IntArrayRef dim) {
  Call c("count_nonzero.dim_IntList", {&self});
  return c.result(sum(ne(c.arg(self), 0), c.arg(dim), false, DType::Int64));
}

// NaNs count as zeros (integers have none).
at::Tensor nansum(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                  c10::optional<at::ScalarType> dtype) {
  Call c("nansum", {&self});
  const Tensor& x = c.arg(self);
  const Tensor numbers =
      is_floating(x.dtype()) ? where(isnan(x), zeros({}, x.dtype(), x.device()), x) : x;
  return c.result(sum(numbers, c.arg(dim), keepdim, c.arg(dtype)));
}

// beta * self + alpha * mat @ vec in mat's dtype, self a vector that broadcasts to the result
// (PyTorch refuses others); self's values are not read when beta is 0 (its NaNs do not propagate).
at::Tensor addmv(const at::Tensor& self, const at::Tensor& mat, const at::Tensor& vec,
                 const at::Scalar& beta, const at::Scalar& alpha) {
  TORCH_CHECK(self.dim() <= 1 && mat.dim() == 2 && vec.dim() == 1,
              "vector + matrix @ vector expected, got ", self.dim(), ", ", mat.dim(), ", ",
              vec.dim());
  Call c("addmv", {&self, &mat, &vec});
  Tensor out = lazygen::mv(c.arg(mat), c.arg(vec));
  if (alpha.toDouble() != 1.0) out = mul(out, c.arg(alpha));
  const Tensor& s = c.arg(self);
  broadcast_sizes("addmv", s.sizes(), out.sizes());  // raises unless self is [], [1] or [n]
  if (beta.toDouble() == 0.0) return c.result(out);
  const Tensor base = s.to(out.dtype());
  return c.result(add(out, beta.toDouble() == 1.0 ? base : mul(base, c.arg(beta))));
}

// 1 above zero, `values` at zero, 0 elsewhere (NaN too, as PyTorch's kernel).
at::Tensor heaviside(const at::Tensor& self, const at::Tensor& values) {
  TORCH_CHECK(self.scalar_type() == values.scalar_type(),
              "heaviside is not yet implemented for tensors with different dtypes");
  Call c("heaviside", {&self, &values});
  const Tensor& x = c.arg(self);
  return c.result(where(eq(x, 0), c.arg(values), gt(x, 0).to(x.dtype())));
}

namespace {

// An eps >= 0 clamps logit's input to [eps, 1 - eps]; none or a negative one leaves it.
bool clamps(c10::optional<double> eps) {
  return eps && *eps >= 0;
}

// self in a floating dtype, clamped when eps says so.
Tensor logit_input(const Tensor& self, c10::optional<double> eps) {
  const Tensor x = is_floating(self.dtype()) ? self : self.to(DType::Float32);
  return clamps(eps) ? clamp(x, Scalar(*eps), Scalar(1.0 - *eps)) : x;
}

}  // namespace

at::Tensor logit(const at::Tensor& self, c10::optional<double> eps) {
  Call c("logit", {&self});
  const Tensor x = logit_input(c.arg(self), eps);
  return c.result(log(div(x, rsub(x, 1.0))));
}

// grad / (x (1 - x)) inside [lo, hi]; outside, 0 where eps clamped x to [eps, 1 - eps], else NaN
// (x outside [0, 1]), as PyTorch's kernel.
at::Tensor logit_backward(const at::Tensor& grad_output, const at::Tensor& self,
                          c10::optional<double> eps) {
  Call c("logit_backward", {&grad_output, &self});
  const Tensor& x = c.arg(self);
  const Tensor grad = div(c.arg(grad_output), mul(x, rsub(x, 1.0)));
  const double lo = clamps(eps) ? *eps : 0.0;
  const double fill = clamps(eps) ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  const Tensor outside = logical_or(lt(x, lo), gt(x, 1.0 - lo));
  return c.result(where(outside, full({}, fill, grad.dtype(), grad.device()), grad));
}

// norm in `dtype` when one is given (PyTorch computes in it).
at::Tensor linalg_vector_norm(const at::Tensor& self, const at::Scalar& ord,
                              at::OptionalIntArrayRef dim, bool keepdim,
                              c10::optional<at::ScalarType> dtype) {
  Call c("linalg_vector_norm", {&self});
  const Tensor& x = c.arg(self);
  const Tensor in = dtype ? x.to(c.arg(*dtype)) : x;
  return c.result(
      lazygen::norm(in, c.arg(ord), c.arg(dim).value_or(std::vector<int64_t>{}), keepdim));
}

at::Tensor& amax_out(const at::Tensor& self, c10::IntArrayRef dim, bool keepdim, at::Tensor& out) {
  Call c("amax.out", {&self, &out});
  return c.assign_out(out, amax(c.arg(self), c.arg(dim), keepdim));
}

// Without a dtype PyTorch sums in out's dtype (matrix_rank counts bools into an int64 out).
at::Tensor& sum_intlist_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                            c10::optional<at::ScalarType> dtype, at::Tensor& out) {
  Call c("sum.IntList_out", {&self, &out});
  const c10::optional<at::ScalarType> in = dtype ? dtype : c10::make_optional(out.scalar_type());
  return c.assign_out(out, lazygen::sum(c.arg(self), c.arg(dim), keepdim, c.arg(in)));
}

::std::tuple<at::Tensor&, at::Tensor&> max_dim_max(const at::Tensor& self, int64_t dim,
                                                   bool keepdim, at::Tensor& max,
                                                   at::Tensor& max_values) {
  Call c("max.dim_max", {&self, &max, &max_values});
  const auto [values, indices] = lazygen::max(c.arg(self), dim, keepdim);
  c.assign_out(max, values);
  c.assign_out(max_values, indices);
  return {max, max_values};  // PyTorch's out= kernels return their outs
}

at::Tensor& sub_inplace_tensor(at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  Call c("sub_.Tensor", {&self, &other});
  return c.write_back(self, sub(c.arg(self), c.arg(other), c.arg(alpha)));
}

at::Tensor& log_inplace(at::Tensor& self) {
  Call c("log_", {&self});
  return c.write_back(self, log(c.arg(self)));
}

at::Tensor& masked_scatter_inplace(at::Tensor& self, const at::Tensor& mask,
                                   const at::Tensor& source) {
  Call c("masked_scatter_", {&self, &mask, &source});
  return c.write_back(self, lazygen::masked_scatter(c.arg(self), c.arg(mask), c.arg(source)));
}

at::Tensor scatter_value(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                         const at::Scalar& value) {
  Call c("scatter.value", {&self, &index});
  const Tensor& s = c.arg(self);
  return c.result(lazygen::scatter(
      s, dim, c.arg(index), full(c.arg(index).sizes(), c.arg(value), s.dtype(), s.device())));
}

at::Tensor& scatter_inplace_value(at::Tensor& self, int64_t dim, const at::Tensor& index,
                                  const at::Scalar& value) {
  Call c("scatter_.value", {&self, &index});
  const Tensor& s = c.arg(self);
  return c.write_back(
      self, lazygen::scatter(s, dim, c.arg(index),
                             full(c.arg(index).sizes(), c.arg(value), s.dtype(), s.device())));
}

// torch.sort's overload: lazygen's sort is stable whatever `stable` says (PyTorch allows that).
::std::tuple<at::Tensor, at::Tensor> sort_stable(const at::Tensor& self, c10::optional<bool> stable,
                                                 int64_t dim, bool descending) {
  (void)stable;
  Call c("sort.stable", {&self});
  return c.result(sort(c.arg(self), dim, descending));
}

// torch.logdet / slogdet / det reach the device here (PyTorch decomposes them into it): sign,
// log|det| and the factorization their backward solves with (linalg_lu_solve). As PyTorch's
// kernel does for a contiguous A (a device tensor always is), the factorization is A^T's, which
// its backward expects.
::std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> _linalg_slogdet(const at::Tensor& A) {
  Call c("_linalg_slogdet", {&A});
  const auto [lu, pivots] = lazygen::lu_factor(transpose(c.arg(A), -2, -1));
  const auto [sign, logabsdet] = lazygen::lu_slogdet(lu, pivots);  // det(A^T) = det(A)
  return {c.result(sign), c.result(logabsdet), c.result(lu), c.result(pivots)};
}

// det = sign * exp(log|det|) (0 for a singular matrix), with A^T's factorization as above.
::std::tuple<at::Tensor, at::Tensor, at::Tensor> _linalg_det(const at::Tensor& A) {
  Call c("_linalg_det", {&A});
  const auto [lu, pivots] = lazygen::lu_factor(transpose(c.arg(A), -2, -1));
  const auto [sign, logabsdet] = lazygen::lu_slogdet(lu, pivots);
  return {c.result(mul(sign, exp(logabsdet))), c.result(lu), c.result(pivots)};
}

// left = false solves X A = B, as A^T X^T = B^T.
at::Tensor linalg_lu_solve(const at::Tensor& LU, const at::Tensor& pivots, const at::Tensor& B,
                           bool left, bool adjoint) {
  Call c("linalg_lu_solve", {&LU, &pivots, &B});
  if (left) return c.result(lazygen::lu_solve(c.arg(LU), c.arg(pivots), c.arg(B), adjoint));
  const Tensor bt = transpose(c.arg(B), -2, -1);
  return c.result(transpose(lazygen::lu_solve(c.arg(LU), c.arg(pivots), bt, !adjoint), -2, -1));
}

at::Tensor diag_embed(const at::Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  Call c("diag_embed", {&self});
  return c.result(lazygen::diag_embed(c.arg(self), offset, dim1, dim2));
}

}  // namespace lazygen::pytorch::adapters
