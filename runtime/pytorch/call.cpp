// DeviceScope and Call (pytorch/call.h): the device's shared trace context, and argument
// conversion per Note [Arguments from PyTorch].
#include "pytorch/call.h"

#include <ATen/core/Tensor.h>
#include <c10/core/DefaultDtype.h>
#include <c10/util/Exception.h>

#include <mutex>

#include "core/lazy/lazy_state.h"
#include "core/lazy/lazy_tensor.h"
#include "core/lazy/trace_context.h"
#include "core/tensor/shape_rules.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/copy_.h"
#include "lazygen/generated/ops/t.h"
#include "pytorch/autograd_views.h"
#include "pytorch/fallback.h"

namespace lazygen::pytorch {
namespace {

// See Note [One trace for the PyTorch device]. Never destroyed: tensors may die during exit.
struct DeviceTrace {
  std::mutex mutex;
  lazy::TraceContext context;
};
DeviceTrace& device_trace() {
  static DeviceTrace* trace = new DeviceTrace;
  return *trace;
}

thread_local int t_depth = 0;
thread_local std::optional<lazy::TraceContextScope> t_binding;

bool is_wrapped_number(const at::Tensor& t) {
  return t.unsafeGetTensorImpl()->is_wrapped_number();
}

int category(DType t) {
  return t == DType::Bool ? 0 : is_integral(t) ? 1 : 2;
}

// The dtype a wrapped number of dtype `own` joins an op with, given the dtype the op's other
// tensors promote to (nullopt: there are none). See Note [Arguments from PyTorch].
DType wrapped_number_dtype(DType own, std::optional<DType> others) {
  if (others && category(*others) >= category(own)) return *others;
  if (own == DType::Float64) return to_dtype(c10::get_default_dtype_as_scalartype());
  return own;
}

// The dtype PyTorch's promotion gives the defined ones of `tensors`; nullopt when there are none.
std::optional<DType> promoted(const std::array<Tensor, Call::kMaxTensors>& tensors, size_t n) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < n; ++i) {
    if (tensors[i].defined()) shapes.push_back(tensors[i].shape());
  }
  if (shapes.empty()) return std::nullopt;
  std::vector<const Shape*> pointers;
  for (const Shape& s : shapes) pointers.push_back(&s);
  return shape_rules::result_type(pointers);
}

[[noreturn]] void wrong_device(const char* op, const at::Tensor& t) {
  TORCH_CHECK(false, "Expected all tensors to be on the same device, but found at least two "
              "devices, ", torch_device(), " and ", t.device(), "! (when calling ", op,
              " on the lazygen device; move the tensor with .to(", torch_device(), "))");
}

// A zero-dim CPU tensor's value as a device tensor of `dtype`.
Tensor scalar_on_device(const at::Tensor& t, DType dtype) {
  Tensor cpu = scalar_tensor(to_scalar(t.item()), dtype);
  return lazy::make_lazy_tensor_from_data(std::move(cpu), kLazy);
}

}  // namespace

DeviceScope::DeviceScope() {
  if (t_depth++ > 0) return;
  DeviceTrace& trace = device_trace();
  trace.mutex.lock();
  t_binding.emplace(trace.context);
}

DeviceScope::~DeviceScope() {
  if (--t_depth > 0) return;
  t_binding.reset();
  device_trace().mutex.unlock();
}

const Tensor& device_tensor(const char* op, const at::Tensor& t) {
  TORCH_CHECK(t.defined(), op, ": expected a tensor on ", torch_device(),
              ", got an undefined tensor");
  if (!is_device_tensor(t)) wrong_device(op, t);
  refuse_placeholder(op, t);
  return device_impl(t).tensor();
}

Call::Call(const char* op, std::initializer_list<const at::Tensor*> tensors) : op_(op) {
  TORCH_INTERNAL_ASSERT(tensors.size() <= kMaxTensors, op, ": too many tensor arguments");
  bool wrapped = false;
  for (const at::Tensor* t : tensors) {
    const size_t i = count_++;
    sources_[i] = t;
    if (t == nullptr || !t->defined()) continue;
    if (is_device_tensor(*t)) {
      refuse_placeholder(op, *t);
      tensors_[i] = device_impl(*t).tensor();
    } else if (!t->device().is_cpu() || t->dim() != 0) {
      wrong_device(op, *t);
    } else if (is_wrapped_number(*t)) {
      wrapped = true;
    } else {
      tensors_[i] = scalar_on_device(*t, to_dtype(t->scalar_type(), op));
    }
  }
  if (!wrapped) return;
  const std::optional<DType> others = promoted(tensors_, count_);
  for (size_t i = 0; i < count_; ++i) {
    const at::Tensor* t = sources_[i];
    if (t == nullptr || !t->defined() || tensors_[i].defined()) continue;
    tensors_[i] = scalar_on_device(*t, wrapped_number_dtype(to_dtype(t->scalar_type(), op), others));
  }
}

const Tensor& Call::arg(const at::Tensor& t) const {
  for (size_t i = 0; i < count_; ++i) {
    if (sources_[i] == &t && tensors_[i].defined()) return tensors_[i];
  }
  return device_tensor(op_, t);
}

const Tensor& Call::written(const at::Tensor& t) const {
  const Tensor& target = arg(t);
  check_writable(op_, target);
  prepare_write_through_view(op_, t, c10::ArrayRef<const at::Tensor*>(sources_.data(), count_));
  return target;
}

at::Tensor& Call::write_back(at::Tensor& self, const Tensor& result) const {
  const Tensor& target = written(self);
  shape_rules::check_cast(op_, result.dtype(), target.dtype(), target.sizes());
  TORCH_CHECK(result.sizes() == target.sizes(), "output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", c10::IntArrayRef(result.sizes()));
  copy_(target, result);
  return self;
}

at::Tensor& Call::become_view(at::Tensor& self, Tensor view) const {
  device_impl(self).set_tensor(std::move(view));
  return self;
}

std::optional<Tensor> Call::arg(const c10::optional<at::Tensor>& t) const {
  if (!t || !t->defined()) return std::nullopt;
  return arg(*t);
}

std::vector<Tensor> Call::arg(at::TensorList ts) const {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const at::Tensor& t : ts) out.push_back(device_tensor(op_, t));
  return out;
}

std::vector<Tensor> Call::arg(const at::ITensorListRef& ts) const {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const at::Tensor& t : ts) out.push_back(device_tensor(op_, t));
  return out;
}

std::optional<Scalar> Call::arg(const c10::optional<c10::Scalar>& s) const {
  if (!s) return std::nullopt;
  return to_scalar(*s);
}

std::optional<std::vector<int64_t>> Call::arg(at::OptionalIntArrayRef ints) const {
  if (!ints) return std::nullopt;
  return to_ints(*ints);
}

std::optional<int64_t> Call::arg(c10::optional<int64_t> v) const {
  if (!v) return std::nullopt;
  return *v;
}

std::optional<DType> Call::arg(c10::optional<c10::ScalarType> t) const {
  if (!t) return std::nullopt;
  return to_dtype(*t, op_);
}

std::optional<double> Call::arg(c10::optional<double> v) const {
  if (!v) return std::nullopt;
  return *v;
}

at::Tensor& Call::assign_out(at::Tensor& out, const Tensor& result) const {
  const Tensor& target = device_tensor(op_, out);
  check_writable(op_, target);
  const c10::ScalarType from = to_scalar_type(result.dtype());
  TORCH_CHECK(c10::canCast(from, out.scalar_type()), "result type ", from,
              " can't be cast to the desired output type ", out.scalar_type());
  if (target.sizes() == result.sizes()) {
    copy_(target, result);
    return out;
  }
  TORCH_CHECK(lazy::lazy_state(target).view == nullptr, op_, ": cannot resize the out= tensor "
              "of shape ", out.sizes(), " to ", c10::IntArrayRef(result.sizes()),
              ": it is a view of another tensor");
  if (target.numel() != 0) {
    TORCH_WARN("An output with one or more elements was resized since it had shape ", out.sizes(),
               ", which does not match the required output shape ",
               c10::IntArrayRef(result.sizes()), ". This behavior is deprecated, and in a future "
               "PyTorch release outputs will not be resized unless they have zero elements. You "
               "can explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
               "with t.resize_(0).");
  }
  Tensor resized = result.clone();  // out must not alias whatever the result aliases
  if (result.dtype() != target.dtype()) {
    resized = empty(result.sizes(), target.dtype(), kLazy);
    copy_(resized, result);
  }
  device_impl(out).set_tensor(std::move(resized));
  return out;
}

}  // namespace lazygen::pytorch
