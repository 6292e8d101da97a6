// Adapters for the view ops PyTorch's decompositions call under names lazygen does not have
// (ops.yaml, "PyTorch adapters"): reshape reaches the device as _reshape_alias (a view) or
// _unsafe_view (of a fresh copy). Lazy tensors are contiguous, so both are lazygen views. The
// in-place view ops (transpose_, t_, squeeze_, unsqueeze_) make self the view (Call::become_view)
// where PyTorch's defaults would restride it with as_strided_, which lazy tensors cannot serve.
// diagonal, unfold and as_strided, views lazygen has only as copies, become lazygen views whose
// value is the copy and whose inverse scatters a new value back (Note [Composite views]);
// alias is a view of all of self; narrow_copy is a narrow view's copy.
#include <ATen/ExpandUtils.h>
#include <c10/util/Exception.h>

#include <tuple>
#include <vector>

#include "core/lazy/lazy_tensor.h"
#include "core/lazy/lazy_view.h"
#include "lazygen/composite.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/expand.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/generated/ops/ne.h"
#include "lazygen/generated/ops/where.h"

#include "lazygen/generated/ops/squeeze.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/generated/ops/transpose.h"
#include "lazygen/generated/ops/unsqueeze.h"
#include "lazygen/generated/ops/view.h"
#include "lazygen/generated/torch_adapters.h"
#include "pytorch/call.h"
#include "pytorch/device_tensor.h"
#include "pytorch/fallback.h"

namespace lazygen::pytorch::adapters {

at::Tensor _reshape_alias(const at::Tensor& self, c10::IntArrayRef size, c10::IntArrayRef stride) {
  (void)stride;  // contiguous (See Note [Device tensors])
  Call c("_reshape_alias", {&self});
  return c.result(view(c.arg(self), c.arg(size)));
}

// Note [Expanded strides]
// An expanded tensor reports PyTorch's strides for it (0 along each dim the expand enlarged, the
// input's elsewhere), not contiguous ones (Note [Device tensors]), because PyTorch's autograd
// decides by strides whether a gradient may be kept and later written in place: AccumulateGrad
// keeps an incoming gradient as the parameter's .grad when its strides match the parameter's
// (else it copies it), and the next backward adds into that .grad in place. The gradient of
// `w.sum()` is an expand; reported as contiguous it was kept, and the next step's in-place add
// into an expanded tensor raised (several elements share one location). With its true strides
// it is copied first, as on the cpu, and the engine's in-place accumulation skips it too. The
// strides along the other dims are the input's as reported, so the expand of a view (which
// reports contiguous strides) has the cpu's zeros but not its other strides; views of an
// expanded tensor report contiguous strides again. The device's own view ops read no strides.
at::Tensor expand(const at::Tensor& self, c10::IntArrayRef size, bool implicit) {
  Call c("expand", {&self});
  at::Tensor out = c.result(lazygen::expand(c.arg(self), c.arg(size), c.arg(implicit)));
  const std::vector<int64_t> strides =
      std::get<1>(at::inferExpandGeometry(self.sizes(), self.strides(), size));
  if (!out.strides().equals(strides))
    device_impl(out).report_geometry(strides, self.storage_offset());
  return out;
}

at::Tensor _unsafe_view(const at::Tensor& self, c10::IntArrayRef size) {
  Call c("_unsafe_view", {&self});
  // Not an alias of `self` for PyTorch: a view of a copy (which costs nothing until written).
  return c.result(view(c.arg(self).clone(), c.arg(size)));
}

at::Tensor& transpose_inplace(at::Tensor& self, int64_t dim0, int64_t dim1) {
  Call c("transpose_", {&self});
  return c.become_view(self, transpose(c.arg(self), dim0, dim1));
}

at::Tensor& t_inplace(at::Tensor& self) {
  Call c("t_", {&self});
  return c.become_view(self, t(c.arg(self)));
}

at::Tensor& squeeze_inplace(at::Tensor& self) {
  Call c("squeeze_", {&self});
  std::vector<int64_t> sizes;
  for (int64_t s : c.arg(self).sizes()) {
    if (s != 1) sizes.push_back(s);
  }
  return c.become_view(self, view(c.arg(self), sizes));
}

at::Tensor& squeeze_inplace_dim(at::Tensor& self, int64_t dim) {
  Call c("squeeze_.dim", {&self});
  return c.become_view(self, squeeze(c.arg(self), dim));
}

at::Tensor& unsqueeze_inplace(at::Tensor& self, int64_t dim) {
  Call c("unsqueeze_", {&self});
  return c.become_view(self, unsqueeze(c.arg(self), dim));
}

// Note [Composite views]
// PyTorch's diagonal, unfold and as_strided are views: a write through one reaches its base.
// lazygen has them as copies (diagonal_copy, unfold_copy, as_strided_copy gather the elements).
// The device's diagonal, unfold and as_strided trace that copy and make it a lazygen view of self
// (lazy::make_lazy_view) whose inverse writes a new value back: diagonal_scatter,
// as_strided_scatter, and for unfold the windows' values placed where they came from
// (unfold_backward of the value, kept only where some window covers). Windows
// that overlap (size > step) share elements, and a write through them is refused: PyTorch 1.13
// writes such a view element by element, so what an element holds after `mul_` depends on how
// many windows cover it (see the deliberate differences in docs/pytorch-device.md).
namespace {

constexpr const char* kReportsRootGeometry =
    " that reports its geometry in the tensor it views, whose storage the lazygen device cannot "
    "offer; call as_strided on that tensor, or on a clone of this one";

Tensor composite_view(const Tensor& base, const Tensor& value, lazy::ViewFn step) {
  return lazy::make_lazy_view(base, lazy::ir_value(value), std::move(step));
}

// base with the windows of unfold(dim, size, step) replaced by `windows`.
Tensor unfold_scatter(const Tensor& base, const Tensor& windows, int64_t dim, int64_t size,
                      int64_t step) {
  TORCH_CHECK(size <= step, "unfold: the windows of unfold(", dim, ", ", size, ", ", step,
              ") overlap, so a write through them would write some elements more than once; the "
              "lazygen device refuses it (clone() the windows to write into a copy)");
  const std::vector<int64_t> sizes = base.sizes();
  const Tensor placed = lazygen::unfold_backward(windows, sizes, dim, size, step);
  const Tensor covered = lazygen::unfold_backward(
      ones(windows.sizes(), windows.dtype(), windows.device()), sizes, dim, size, step);
  return where(ne(covered, 0), placed, base);
}

}  // namespace

at::Tensor diagonal(const at::Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  Call c("diagonal", {&self});
  const Tensor& x = c.arg(self);
  return c.result(composite_view(
      x, lazygen::diagonal_copy(x, offset, dim1, dim2),
      [=](const Tensor& base, const Tensor* value) {
        return value == nullptr ? lazygen::diagonal_copy(base, offset, dim1, dim2)
                                : lazygen::diagonal_scatter(base, *value, offset, dim1, dim2);
      }));
}

// The elements of self's storage at `stride`s from `storage_offset`. A tensor that is not a view
// is its own storage, in order: served as a composite view, which is how autograd finds a view
// in its base's gradient (Note [Writes through views under autograd]). A lazygen view reports
// contiguous strides over its own elements, so on the CPU fallback as_strided reads those (a
// copy, as the fallback's views are) -- unless it reports its true geometry in its root, which
// the fallback cannot serve.
at::Tensor as_strided(const at::Tensor& self, c10::IntArrayRef size, c10::IntArrayRef stride,
                      c10::optional<int64_t> storage_offset) {
  const Tensor& x = device_tensor("as_strided", self);
  if (lazy::lazy_state(x).view != nullptr) {
    const bool own_geometry = self.is_contiguous() && self.storage_offset() == 0;
    TORCH_CHECK(own_geometry, "as_strided: a view of shape ", self.sizes(), kReportsRootGeometry);
    static const c10::OperatorHandle op = aten_op("aten::as_strided");
    return call_on_cpu<at::Tensor>(op, self, size, stride, storage_offset);
  }
  Call c("as_strided", {&self});
  const std::vector<int64_t> sizes = c.arg(size), strides = c.arg(stride);
  const std::optional<int64_t> offset = c.arg(storage_offset);
  return c.result(composite_view(
      x, lazygen::as_strided_copy(x, sizes, strides, offset),
      [=](const Tensor& base, const Tensor* value) {
        return value == nullptr ? lazygen::as_strided_copy(base, sizes, strides, offset)
                                : lazygen::as_strided_scatter(base, *value, sizes, strides, offset);
      }));
}

// self again as a new tensor aliasing it (`x[...]`): a lazygen view of all of it. PyTorch's
// composite would restride self's storage, which device tensors do not have.
at::Tensor alias(const at::Tensor& self) {
  Call c("alias", {&self});
  const Tensor& x = c.arg(self);
  return c.result(view(x, x.sizes()));
}

// A narrow view's copy.
at::Tensor narrow_copy(const at::Tensor& self, int64_t dim, int64_t start, int64_t length) {
  Call c("narrow_copy", {&self});
  return c.result(narrow(c.arg(self), dim, start, length).clone());
}

at::Tensor unfold(const at::Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  Call c("unfold", {&self});
  const Tensor& x = c.arg(self);
  return c.result(composite_view(x, lazygen::unfold_copy(x, dimension, size, step),
                                 [=](const Tensor& base, const Tensor* value) {
                                   return value == nullptr
                                              ? lazygen::unfold_copy(base, dimension, size, step)
                                              : unfold_scatter(base, *value, dimension, size, step);
                                 }));
}

}  // namespace lazygen::pytorch::adapters
