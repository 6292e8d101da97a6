// How a PyTorch kernel of the lazygen device runs a lazygen op: DeviceScope binds the calling
// thread to the device's trace context, and Call converts the op's arguments.
//
// Note [One trace for the PyTorch device]
// lazygen traces per thread (Note [Live tensors per thread]), but PyTorch runs the backward pass
// on its autograd engine's device thread while the training thread calls mark_step(). So every
// entry from PyTorch into lazygen (generated kernels, adapters, the CPU fallback, the Python
// package's mark_step) runs inside a DeviceScope: the thread is bound to one process-wide trace
// context (Note [Trace contexts]) and holds its lock, so forward, backward and optimizer step
// trace into one graph wherever they run, one thread at a time. Scopes nest (a fallback calls
// kernels); the lock is recursive and the binding is made once per outermost scope.
//
// Note [Arguments from PyTorch]
// Tensor arguments must be on the lazygen device, with one exception PyTorch makes too: a
// zero-dim CPU tensor (a Python number PyTorch wrapped as a tensor, or a CPU scalar tensor)
// joins the op as a zero-dim device value. A wrapped number takes part in type promotion as a
// number, not as a tensor (`x * 0.5` stays float32 for a float32 `x`, even a zero-dim one), so it
// is given the dtype the op's other tensors promote to when that is at least its own category,
// else the default dtype of its category (torch.get_default_dtype() for floating, int64). Any
// other tensor of another device is an error naming both devices, as PyTorch words it.
#pragma once

#include <ATen/core/IListRef.h>
#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/Optional.h>

#include <array>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "lazygen/tensor.h"
#include "pytorch/convert.h"
#include "pytorch/device_tensor.h"

namespace lazygen::pytorch {

class DeviceScope {
 public:
  DeviceScope();
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
};

// The tensor of an optional argument, or null (for Call's list of tensors).
inline const at::Tensor* maybe(const c10::optional<at::Tensor>& t) {
  return t ? &*t : nullptr;
}

// The lazygen tensor behind a device tensor argument. Throws c10::Error (naming `op` and the
// devices) for a tensor on another device; undefined tensors are an error too.
const Tensor& device_tensor(const char* op, const at::Tensor& t);

class Call : public DeviceScope {
 public:
  static constexpr size_t kMaxTensors = 12;

  // `tensors`: the op's Tensor and Tensor? arguments (null for an absent optional), converted
  // now per Note [Arguments from PyTorch].
  Call(const char* op, std::initializer_list<const at::Tensor*> tensors);

  const char* op() const { return op_; }

  const Tensor& arg(const at::Tensor& t) const;
  // A tensor the op writes: arg(t), after check_writable (pytorch/fallback.h).
  const Tensor& written(const at::Tensor& t) const;
  std::optional<Tensor> arg(const c10::optional<at::Tensor>& t) const;
  std::vector<Tensor> arg(at::TensorList ts) const;
  std::vector<Tensor> arg(const at::ITensorListRef& ts) const;
  Scalar arg(const c10::Scalar& s) const { return to_scalar(s); }
  std::optional<Scalar> arg(const c10::optional<c10::Scalar>& s) const;
  std::vector<int64_t> arg(c10::IntArrayRef ints) const { return to_ints(ints); }
  std::optional<std::vector<int64_t>> arg(at::OptionalIntArrayRef ints) const;
  std::optional<int64_t> arg(c10::optional<int64_t> v) const;
  DType arg(c10::ScalarType t) const { return to_dtype(t, op_); }
  std::optional<DType> arg(c10::optional<c10::ScalarType> t) const;
  std::optional<double> arg(c10::optional<double> v) const;
  int64_t arg(int64_t v) const { return v; }
  double arg(double v) const { return v; }
  bool arg(bool v) const { return v; }
  std::string_view arg(c10::string_view s) const { return {s.data(), s.size()}; }

  // A new device tensor for an op's result.
  at::Tensor result(Tensor t) const { return wrap(std::move(t)); }
  template <class... T>
  std::tuple<std::conditional_t<true, at::Tensor, T>...> result(std::tuple<T...> ts) const {
    return std::apply([](auto&... t) { return std::make_tuple(wrap(std::move(t))...); }, ts);
  }
  // An out= argument receives `result` as PyTorch's out= semantics say: the result's dtype
  // must cast to out's, out is resized (with PyTorch's warning when it had elements) when its
  // sizes differ, then the values are copied in. Returns `out`.
  at::Tensor& assign_out(at::Tensor& out, const Tensor& result) const;
  // An in-place op's self receives `result`, the functional op's result, as PyTorch's in-place
  // ops write: its dtype must cast to self's ("result type Float can't be cast to the desired
  // output type Long") and its shape must be self's ("output with shape [3] doesn't match the
  // broadcast shape [2, 3]"); then copy_ writes it (through a view, into its base). Returns self.
  at::Tensor& write_back(at::Tensor& self, const Tensor& result) const;
  // An in-place view op (transpose_, unsqueeze_) makes self `view`, a lazygen view of self's
  // tensor: PyTorch gives self new sizes over the same storage, so a write through self or
  // through another alias of that storage reaches both. Returns self.
  at::Tensor& become_view(at::Tensor& self, Tensor view) const;

 private:
  const char* op_;
  size_t count_ = 0;
  std::array<const at::Tensor*, kMaxTensors> sources_{};
  std::array<Tensor, kMaxTensors> tensors_;
};

}  // namespace lazygen::pytorch
