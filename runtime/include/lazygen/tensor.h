// Tensor: the user-facing handle. Cheap to copy (one shared_ptr); copies alias the same tensor.
//
// A tensor lives on a device: cpu (data now), cuda (data now, on the GPU) or lazy (a pending IR
// value until something needs the data; see runtime/core/lazy_tensor.h). Ops are free functions
// and methods generated from ops.yaml (lazygen/ops.h); the handle itself only answers metadata
// questions and moves data. Thread safety: distinct tensors may be used from distinct threads;
// one tensor must not be mutated concurrently.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/scalar.h"
#include "lazygen/shape.h"

namespace lazygen {

class TensorImpl;  // runtime/core/tensor/tensor_impl.h
namespace autograd {
class Function;  // runtime/autograd/function.h
}  // namespace autograd

class Tensor {
 public:
  Tensor() = default;  // an undefined tensor (defined() is false)
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  const std::vector<int64_t>& sizes() const;
  const std::vector<int64_t>& strides() const;
  int64_t size(int64_t dim) const;  // negative dims count from the end
  int64_t stride(int64_t dim) const;
  int64_t dim() const;
  int64_t numel() const;
  int64_t storage_offset() const;
  DType dtype() const;
  Device device() const;
  Shape shape() const { return Shape(dtype(), sizes()); }
  bool is_contiguous() const;

  // Typed pointer to element [0,...,0] of a cpu tensor; throws if T does not match dtype().
  template <class T>
  T* data_ptr() const;
  void* raw_data() const;  // cpu/cuda only; throws on lazy tensors (use cpu() first)

  // The value of a one-element tensor; on the lazy device this executes what is pending.
  template <class T>
  T item() const;

  Tensor to(Device device) const;  // copies unless already there; lazy -> cpu executes
  Tensor to(DType dtype) const;
  Tensor cpu() const { return to(kCPU); }
  Tensor contiguous() const;
  Tensor clone() const;
  std::string str() const;  // printed like PyTorch: tensor([[1., 2.]], device='lazy:0')

  // Autograd (runtime/autograd/; see lazygen/autograd.h). requires_grad(): gradients flow to or
  // through this tensor (a leaf marked with requires_grad_, or the result of a recorded op).
  // requires_grad_ marks a leaf; it throws for non-floating dtypes and for non-leaves asked to
  // stop requiring grad. grad(): the gradient accumulated by backward() (undefined before).
  bool requires_grad() const;
  Tensor& requires_grad_(bool value = true);  // (`requires` is a C++20 keyword)
  Tensor grad() const;
  // lazygen::backward(*this, gradient, retain_graph).
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false) const;
  // A tensor sharing this one's data (or, on the lazy device, its pending value) without
  // autograd history: it does not require grad, and in-place updates are seen by both.
  Tensor detach() const;
  // Resets grad() to undefined (PyTorch's zero_grad(set_to_none=True)).
  void zero_grad_() const;
  // The backward function of the op that produced this tensor; null for leaves.
  const std::shared_ptr<autograd::Function>& grad_fn() const;

  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }

  // Methods generated from ops.yaml (`variants: method`): x.add(y), x.add_(y), x.sum(), ...
#include "lazygen/generated/tensor_methods.inc"
  // Methods of the composite ops (lazygen/composite.h).
  Tensor matmul(const Tensor& other) const;

 private:
  std::shared_ptr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace lazygen
