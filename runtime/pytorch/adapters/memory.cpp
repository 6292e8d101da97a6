// Adapters for moving data: creating device tensors, copies between the CPU and the device, dtype
// casts, resizing and reading one value (ops.yaml, "PyTorch adapters"; declarations in
// lazygen/generated/torch_adapters.h).
#include <ATen/EmptyTensor.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/logspace.h>
#include <ATen/ops/tril_indices.h>
#include <ATen/ops/triu_indices.h>
#include <c10/core/DefaultDtype.h>
#include <c10/util/Exception.h>
#include <c10/util/accumulate.h>

#include "core/lazy/lazy_state.h"
#include "core/lazy/lazy_tensor.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/cat.h"
#include "lazygen/generated/ops/copy_.h"
#include "lazygen/generated/ops/reshape.h"
#include "lazygen/generated/ops/slice.h"
#include "lazygen/generated/torch_adapters.h"
#include "pytorch/autograd_views.h"
#include "pytorch/call.h"
#include "pytorch/device_tensor.h"
#include "pytorch/fallback.h"

namespace lazygen::pytorch::adapters {
namespace {

void check_layout(const char* op, const c10::optional<at::Layout>& layout) {
  TORCH_CHECK(!layout || *layout == at::kStrided, op, ": the lazygen device has strided tensors "
              "only, got layout ", *layout);
}

// A new device tensor with unspecified values (one cpu allocation, not copied).
Tensor device_empty(c10::IntArrayRef sizes, DType dtype) {
  return lazy::make_lazy_tensor_from_data(make_cpu_tensor(sizes.vec(), dtype), kLazy);
}

// `t` converted to `dtype` on the device, traced (a new tensor even when the dtype is the same).
Tensor device_cast(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return t.clone();
  Tensor out = device_empty(t.sizes(), dtype);
  copy_(out, t);
  return out;
}

// out= receives the values PyTorch's CPU function `make` gives for out's dtype, as device data.
template <class Make>
at::Tensor& assign_cpu_values(const char* op, at::Tensor& out, Make make) {
  Call c(op, {&out});
  return c.assign_out(out, to_device(make(at::TensorOptions().dtype(out.scalar_type()))));
}

// The device tensor of PyTorch's CPU tril_indices or triu_indices (`make`).
template <class Make>
at::Tensor triangle_indices(const char* op, Make make, c10::optional<at::ScalarType> dtype,
                            c10::optional<at::Layout> layout) {
  check_layout(op, layout);
  Call c(op, {});
  return c.result(to_device(make(at::TensorOptions().dtype(dtype))));
}

}  // namespace

at::Tensor empty_memory_format(c10::IntArrayRef size, c10::optional<at::ScalarType> dtype,
                               c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                               c10::optional<bool> pin_memory,
                               c10::optional<at::MemoryFormat> memory_format) {
  (void)device, (void)pin_memory, (void)memory_format;  // one device; tensors are contiguous
  check_layout("empty", layout);
  at::detail::check_size_nonnegative(size);  // PyTorch's message, before lazygen's
  DeviceScope scope;
  const at::ScalarType type = dtype.value_or(c10::get_default_dtype_as_scalartype());
  if (c10::multiply_integers(size) == 0 && !is_lazygen_dtype(type)) {  // batch_norm's uint8 reserve
    return at::Tensor(c10::make_intrusive<DeviceTensorImpl>(device_empty(size, DType::Bool), type));
  }
  return wrap(device_empty(size, to_dtype(type, "empty")));
}

at::Tensor empty_strided(c10::IntArrayRef size, c10::IntArrayRef stride,
                         c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> layout,
                         c10::optional<at::Device> device, c10::optional<bool> pin_memory) {
  (void)stride;  // lazy tensors are contiguous (See Note [Device tensors])
  return empty_memory_format(size, dtype, layout, device, pin_memory, c10::nullopt);
}

// An empty tensor of self's dtype unless given: autograd's CopySlices makes the gradient of a
// view's base with it (Note [Writes through views under autograd]).
at::Tensor new_empty_strided(const at::Tensor& self, c10::IntArrayRef size, c10::IntArrayRef stride,
                             c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> layout,
                             c10::optional<at::Device> device, c10::optional<bool> pin_memory) {
  return empty_strided(size, stride, dtype ? dtype : self.scalar_type(), layout, device,
                       pin_memory);
}

// The values are made on the CPU and become device data: no sync, so the graph is not cut (a
// position index in a model's forward pass).
at::Tensor& arange_start_out(const at::Scalar& start, const at::Scalar& end, const at::Scalar& step, at::Tensor& out) {
  return assign_cpu_values("arange", out,
                           [&](at::TensorOptions o) { return at::arange(start, end, step, o); });
}

// eye, linspace, logspace, tril_indices and triu_indices likewise: PyTorch's CPU kernels make the
// values (so they are PyTorch's to the bit), and they become device data.
at::Tensor& linspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps,
                         at::Tensor& out) {
  return assign_cpu_values("linspace", out,
                           [&](at::TensorOptions o) { return at::linspace(start, end, steps, o); });
}

at::Tensor& eye_m_out(int64_t n, int64_t m, at::Tensor& out) {
  return assign_cpu_values("eye", out, [&](at::TensorOptions o) { return at::eye(n, m, o); });
}

at::Tensor& eye_out(int64_t n, at::Tensor& out) {
  return eye_m_out(n, n, out);
}

at::Tensor& logspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps, double base,
                         at::Tensor& out) {
  return assign_cpu_values("logspace", out, [&](at::TensorOptions o) {
    return at::logspace(start, end, steps, base, o);
  });
}

at::Tensor tril_indices(int64_t row, int64_t col, int64_t offset,
                        c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> layout,
                        c10::optional<at::Device> device, c10::optional<bool> pin_memory) {
  (void)device, (void)pin_memory;  // one device
  const auto make = [&](at::TensorOptions o) { return at::tril_indices(row, col, offset, o); };
  return triangle_indices("tril_indices", make, dtype, layout);
}

at::Tensor triu_indices(int64_t row, int64_t col, int64_t offset,
                        c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> layout,
                        c10::optional<at::Device> device, c10::optional<bool> pin_memory) {
  (void)device, (void)pin_memory;  // one device
  const auto make = [&](at::TensorOptions o) { return at::triu_indices(row, col, offset, o); };
  return triangle_indices("triu_indices", make, dtype, layout);
}

// Other sizes make self a new tensor: its elements in order as far as both reach (PyTorch keeps
// them, as a resize keeps the storage's prefix), zeros after them (PyTorch leaves those
// uninitialized). A view keeps its sizes: its base's storage is not its own to grow.
const at::Tensor& resize_inplace(const at::Tensor& self, c10::IntArrayRef size,
                                 c10::optional<at::MemoryFormat> memory_format) {
  (void)memory_format;  // lazy tensors are contiguous (See Note [Device tensors])
  Call c("resize_", {&self});
  const Tensor& t = c.written(self);
  const std::vector<int64_t> sizes = c.arg(size);
  for (int64_t s : sizes)
    TORCH_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", size);
  if (t.sizes() == sizes) return self;
  TORCH_CHECK(lazy::lazy_state(t).view == nullptr,
              "resize_: cannot resize a view of another tensor on the lazygen device (from ",
              self.sizes(), " to ", size, ")");
  const int64_t n = c10::multiply_integers(size), have = t.numel();
  const Tensor flat = reshape(t, {-1});
  const Tensor kept =
      n <= have ? slice(flat, 0, 0, n) : cat({flat, zeros({n - have}, t.dtype(), kLazy)}, 0);
  device_impl(self).set_tensor(reshape(kept, sizes).clone());
  return self;
}

at::Tensor _to_copy(const at::Tensor& self, c10::optional<at::ScalarType> dtype,
                    c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                    c10::optional<bool> pin_memory, bool non_blocking,
                    c10::optional<at::MemoryFormat> memory_format) {
  (void)pin_memory, (void)non_blocking;
  check_layout("to", layout);
  DeviceScope scope;
  const at::ScalarType type = dtype.value_or(self.scalar_type());
  const c10::Device target = device.value_or(self.device());
  if (!is_device_tensor(self)) {
    TORCH_CHECK(target.type() == c10::DeviceType::PrivateUse1, "lazygen: cannot copy a tensor on ",
                self.device(), " to ", target);
    TORCH_CHECK(self.device().is_cpu(), "lazygen: cannot move a tensor on ", self.device(),
                " to the lazygen device; move it to the cpu first");
    return wrap(to_device(self.to(type)));
  }
  const Tensor& t = device_tensor("to", self);
  if (target.is_cpu()) {
    at::Tensor cpu = to_cpu(t).to(type);
    return memory_format ? cpu.contiguous(*memory_format) : cpu;
  }
  TORCH_CHECK(target.type() == c10::DeviceType::PrivateUse1, "lazygen: cannot copy a tensor on ",
              self.device(), " to ", target, " (move it to the cpu first)");
  return wrap(device_cast(t, to_dtype(type, "to")));
}

at::Tensor& copy_inplace(at::Tensor& self, const at::Tensor& src, bool non_blocking) {
  (void)non_blocking;
  DeviceScope scope;
  if (!is_device_tensor(self)) {
    TORCH_CHECK(self.device().is_cpu(), "lazygen: cannot copy from the lazygen device to ",
                self.device());
    self.copy_(to_cpu(device_tensor("copy_", src)));
    return self;
  }
  const Tensor& target = device_tensor("copy_", self);
  check_writable("copy_", target);
  prepare_write_through_view("copy_", self, {&src});
  if (is_device_tensor(src)) {
    copy_(target, device_impl(src).tensor());
  } else {
    TORCH_CHECK(src.device().is_cpu(), "lazygen: cannot copy from ", src.device(),
                " to the lazygen device; move the tensor to the cpu first");
    copy_(target, to_device(src));
  }
  return self;
}

at::Tensor _copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  DeviceScope scope;
  const Tensor& target = device_tensor("_copy_from_and_resize", dst);
  check_writable("_copy_from_and_resize", target);
  Tensor value = is_device_tensor(self) ? device_impl(self).tensor() : to_device(self);
  if (target.sizes() == value.sizes()) {
    copy_(target, value);
  } else {
    TORCH_CHECK(lazy::lazy_state(target).view == nullptr, "_copy_from_and_resize: cannot resize a "
                "view of another tensor on the lazygen device");
    device_impl(dst).set_tensor(device_cast(value, target.dtype()));
  }
  return dst;
}

at::Scalar _local_scalar_dense(const at::Tensor& self) {
  DeviceScope scope;
  return to_cpu(device_tensor("item", self)).item();
}

}  // namespace lazygen::pytorch::adapters
