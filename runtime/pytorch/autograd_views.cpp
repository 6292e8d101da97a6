// Views reporting their true geometry before autograd records a write through them
// (pytorch/autograd_views.h).
#include "pytorch/autograd_views.h"

#include <ATen/core/grad_mode.h>
#include <c10/util/Exception.h>

#include <optional>
#include <utility>
#include <vector>

#include "core/lazy/lazy_tensor.h"
#include "core/lazy/lazy_view.h"
#include "pytorch/device_tensor.h"

namespace lazygen::pytorch {
namespace {

bool records_grad(const at::Tensor& self, c10::ArrayRef<const at::Tensor*> sources) {
  if (!at::GradMode::is_enabled()) return false;
  if (self.requires_grad()) return true;
  for (const at::Tensor* s : sources) {
    if (s != nullptr && s->defined() && s->requires_grad()) return true;
  }
  return false;
}

struct Geometry {
  std::vector<int64_t> strides;
  int64_t offset = 0;
};

// The strides and offset that place every element where `positions` (a cpu int64 tensor) says,
// when some do (non-negative strides, as as_strided takes).
std::optional<Geometry> strided(const Tensor& positions) {
  const std::vector<int64_t>& sizes = positions.sizes();
  const int64_t* p = positions.data_ptr<int64_t>();
  Geometry g{std::vector<int64_t>(sizes.size(), 1), positions.numel() > 0 ? p[0] : 0};
  if (positions.numel() == 0) return g;
  int64_t step = 1;  // row-major offset of a unit step along the dim
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] > 1) g.strides[d] = p[step] - g.offset;
    if (g.strides[d] < 0) return std::nullopt;
    step *= sizes[d];
  }
  std::vector<int64_t> index(sizes.size(), 0);
  for (int64_t k = 0; k < positions.numel(); ++k) {
    int64_t at = g.offset;
    for (size_t d = 0; d < sizes.size(); ++d) at += index[d] * g.strides[d];
    if (at != p[k]) return std::nullopt;
    for (size_t d = sizes.size(); d-- > 0;) {  // the next row-major index
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
  return g;
}

[[noreturn]] void refuse(const char* op, const at::Tensor& self, const char* why) {
  TORCH_CHECK(false, op, ": cannot write in place into this view of shape ", self.sizes(),
              " while autograd records the write: ", why,
              ". Build the value without writing into a view (torch.cat, torch.stack, "
              "torch.where, or index_put_ / scatter_ on the whole tensor), or write under "
              "torch.no_grad() if no gradient should flow through it");
}

}  // namespace

void prepare_write_through_view(const char* op, const at::Tensor& self,
                                c10::ArrayRef<const at::Tensor*> sources) {
  if (!self.defined() || !is_device_tensor(self) || !self.is_view() ||
      !records_grad(self, sources)) {
    return;
  }
  const Tensor& t = device_impl(self).tensor();
  const lazy::LazyState& s = lazy::lazy_state(t);
  const at::TensorBase& base = self._base();
  if (s.view == nullptr || !is_device_tensor(base) ||
      &lazy::lazy_state(device_impl(base).tensor()) != s.view->root.get()) {
    refuse(op, self, "the view's base is not a tensor of the lazygen device it aliases");
  }
  const std::optional<Geometry> g = strided(lazy::view_positions(s));
  if (!g) refuse(op, self, "its elements are not evenly strided in the tensor it views");
  device_impl(self).report_geometry(g->strides, g->offset);
}

}  // namespace lazygen::pytorch
