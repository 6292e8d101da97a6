// The lazygen device's tensors as PyTorch sees them: a storage-less c10::TensorImpl on the
// PrivateUse1 dispatch key (device string "privateuseone") that holds a lazygen lazy tensor.
//
// Note [Device tensors]
// PyTorch 1.13 cannot name new devices, so lazygen takes PrivateUse1; the `Lazy` key belongs to
// LTC (registering there collides with torch._lazy.ts_backend). A DeviceTensorImpl owns one
// lazygen::Tensor on the lazy device and reports its sizes, dtype and contiguous strides (lazy
// tensors are contiguous; as in LTC, views report the strides of a fresh tensor). It has no
// storage: data_ptr() and storage() throw, and everything that needs the values goes through a
// kernel that syncs (`.cpu()`, `.item()`, the CPU fallback).
//
// Aliasing follows the lazygen tensor, not the TensorImpl: detach(), `.data` and PyTorch's
// shallow copies share the lazygen handle, so an in-place op through either is seen by both, and
// a view op returns a lazygen view (Note [Lazy views]) whose in-place updates reach its base.
// The handle is replaced only when PyTorch replaces a tensor's contents wholesale (resizing an
// out= argument, `.data = ...`); sizes are refreshed then.
//
// Thread safety: as c10::TensorImpl (one writer at a time).
#pragma once

#include <c10/core/TensorImpl.h>

#include "lazygen/tensor.h"

namespace lazygen::pytorch {

class DeviceTensorImpl final : public c10::TensorImpl {
 public:
  // REQUIRES: `tensor` is a lazy tensor of a dtype PyTorch has (all of lazygen's).
  explicit DeviceTensorImpl(Tensor tensor);
  // A placeholder: a zero-element tensor of a dtype lazygen lacks (`reported`, e.g. the uint8
  // reserve PyTorch's batch_norm makes and never reads). It reports that dtype over an empty bool
  // lazygen tensor; ops refuse it as they refuse the dtype (Call, device_tensor, the fallback).
  DeviceTensorImpl(Tensor tensor, c10::ScalarType reported);

  const Tensor& tensor() const { return tensor_; }
  // The dtype a placeholder reports; nullopt for every other tensor.
  c10::optional<c10::ScalarType> placeholder_dtype() const { return placeholder_; }
  // Makes this tensor hold `tensor` (possibly of other sizes) and refreshes sizes and dtype.
  void set_tensor(Tensor tensor);
  // Reports `strides` and `storage_offset` instead of contiguous ones: a view's true geometry in
  // its root (Note [Writes through views under autograd]). Until the next set_tensor.
  void report_geometry(const std::vector<int64_t>& strides, int64_t storage_offset);

  c10::intrusive_ptr<c10::TensorImpl> shallow_copy_and_detach(
      const c10::VariableVersion& version_counter,
      bool allow_tensor_metadata_change) const override;
  c10::intrusive_ptr<c10::TensorImpl> shallow_copy_and_detach(
      c10::VariableVersion&& version_counter, bool allow_tensor_metadata_change) const override;
  void shallow_copy_from(const c10::intrusive_ptr<c10::TensorImpl>& impl) override;

 private:
  void refresh_metadata();
  template <class Version>
  c10::intrusive_ptr<c10::TensorImpl> detached_copy(Version&& version,
                                                     bool allow_metadata_change) const;

  Tensor tensor_;
  c10::optional<c10::ScalarType> placeholder_;
};

// Throws, as to_dtype does for the dtype, when `t` is a placeholder (an op's argument cannot be).
void refuse_placeholder(const char* op, const at::Tensor& t);

// The device PyTorch names the lazygen device by: privateuseone:0.
c10::Device torch_device();
bool is_device_tensor(const at::TensorBase& t);
// The DeviceTensorImpl of a device tensor. REQUIRES: is_device_tensor(t).
DeviceTensorImpl& device_impl(const at::TensorBase& t);
// A new at::Tensor on the lazygen device holding `tensor`. REQUIRES: `tensor` is lazy.
at::Tensor wrap(Tensor tensor);

}  // namespace lazygen::pytorch
