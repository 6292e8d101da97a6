// TensorImpl: what a Tensor handle points to. Metadata (sizes, strides, storage offset, dtype,
// device) plus where the data is: a Storage for cpu/cuda tensors, a LazyState for lazy ones.
//
// Eager tensors are strided views of a Storage: element (i0, ..., in) lives at
// storage.data() + (storage_offset + sum(ik * stride_k)) * itemsize(dtype). Views (view, permute,
// slice, ...) are new TensorImpls sharing the Storage. Lazy tensors have no Storage; their
// sizes and dtype are known from shape inference, their strides are contiguous, and their data
// is produced when the pending graph executes (core/lazy/ owns LazyState; the tensor core only
// holds it). The autograd slot is owned by runtime/autograd/ likewise.
//
// Tensor::requires_grad(), requires_grad_() and grad() are defined by runtime/autograd/, which
// owns AutogradMeta; everything else in lazygen/tensor.h is defined in core/tensor/.
//
// Thread safety: sizes, strides, dtype and device never change after construction; the lazy and
// autograd slots may be replaced (by in-place ops and the autograd engine) and follow Tensor's
// rule: one tensor must not be mutated concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/shape.h"
#include "lazygen/tensor.h"
#include "lazygen/types.h"

namespace lazygen::lazy {
struct LazyState;  // defined in runtime/core/lazy/
}  // namespace lazygen::lazy
namespace lazygen::autograd {
struct AutogradMeta;  // defined in runtime/autograd/
}  // namespace lazygen::autograd

namespace lazygen {

// Row-major strides (in elements) for `sizes`; size-0 and size-1 dims get the stride they would
// have with size 1, as PyTorch does.
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes);

class TensorImpl {
 public:
  // A strided view of `storage` (device = storage's device). REQUIRES: the view fits in storage.
  TensorImpl(std::shared_ptr<Storage> storage, std::vector<int64_t> sizes,
             std::vector<int64_t> strides, int64_t storage_offset, DType dtype);
  // A tensor without data yet (lazy device): contiguous strides, no storage.
  TensorImpl(const Shape& shape, Device device, std::shared_ptr<lazy::LazyState> state);

  const std::vector<int64_t>& sizes() const { return sizes_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  DType dtype() const { return dtype_; }
  Device device() const { return device_; }
  bool is_contiguous() const { return is_contiguous_; }
  Shape shape() const { return Shape(dtype_, sizes_); }

  bool has_storage() const { return storage_ != nullptr; }
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  // Element [0, ..., 0]; null for tensors without storage (and for 0-byte storages).
  void* data() const;

  // This tensor becomes `other` (sizes, strides, storage, device and lazy state), for every handle
  // to it; its autograd metadata stays. For resizing out= tensors (Note [Out tensors] in
  // ops/out_tensors.h). REQUIRES: other has this tensor's dtype and is not shared with a view.
  void become(const TensorImpl& other);

  const std::shared_ptr<lazy::LazyState>& lazy_state() const { return lazy_; }
  void set_lazy_state(std::shared_ptr<lazy::LazyState> state) { lazy_ = std::move(state); }
  const std::shared_ptr<autograd::AutogradMeta>& autograd_meta() const { return autograd_; }
  void set_autograd_meta(std::shared_ptr<autograd::AutogradMeta> meta) {
    autograd_ = std::move(meta);
  }

 private:
  std::vector<int64_t> sizes_;
  std::vector<int64_t> strides_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 1;
  DType dtype_;
  Device device_;
  bool is_contiguous_ = true;
  std::shared_ptr<Storage> storage_;
  std::shared_ptr<lazy::LazyState> lazy_;
  std::shared_ptr<autograd::AutogradMeta> autograd_;
};

// True when (sizes, strides) is row-major dense; dims of size 1 may have any stride and
// tensors with no elements are contiguous (PyTorch's definition).
bool is_contiguous_layout(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);

// A new contiguous cpu tensor with uninitialized data (the allocation every kernel makes).
Tensor make_cpu_tensor(const std::vector<int64_t>& sizes, DType dtype);
// A view of `base`'s storage with other sizes, strides (elements) and offset; same dtype.
Tensor make_view(const Tensor& base, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                 int64_t storage_offset);

}  // namespace lazygen
