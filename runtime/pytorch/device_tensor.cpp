// DeviceTensorImpl (pytorch/device_tensor.h): metadata kept equal to the lazygen tensor's, and
// shallow copies that share the lazygen handle.
#include "pytorch/device_tensor.h"

#include <ATen/core/Tensor.h>

#include "core/tensor/tensor_impl.h"
#include "pytorch/convert.h"

namespace lazygen::pytorch {

DeviceTensorImpl::DeviceTensorImpl(Tensor tensor)
    : c10::TensorImpl(c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                      c10::scalarTypeToTypeMeta(to_scalar_type(tensor.dtype())), torch_device()),
      tensor_(std::move(tensor)) {
  set_storage_access_should_throw();
  refresh_metadata();
}

DeviceTensorImpl::DeviceTensorImpl(Tensor tensor, c10::ScalarType reported)
    : DeviceTensorImpl(std::move(tensor)) {
  TORCH_INTERNAL_ASSERT(tensor_.numel() == 0, "a placeholder device tensor holds no elements");
  placeholder_ = reported;
  data_type_ = c10::scalarTypeToTypeMeta(reported);
}

void DeviceTensorImpl::set_tensor(Tensor tensor) {
  placeholder_ = c10::nullopt;
  tensor_ = std::move(tensor);
  data_type_ = c10::scalarTypeToTypeMeta(to_scalar_type(tensor_.dtype()));
  refresh_metadata();
}

void DeviceTensorImpl::report_geometry(const std::vector<int64_t>& strides,
                                       int64_t storage_offset) {
  sizes_and_strides_.set_strides(strides);
  storage_offset_ = storage_offset;
  refresh_contiguous();
}

void DeviceTensorImpl::refresh_metadata() {
  const std::vector<int64_t>& sizes = tensor_.sizes();
  const std::vector<int64_t> strides = contiguous_strides(sizes);
  sizes_and_strides_.set_sizes(sizes);
  sizes_and_strides_.set_strides(strides);
  storage_offset_ = 0;
  refresh_numel();
  refresh_contiguous();
}

template <class Version>
c10::intrusive_ptr<c10::TensorImpl> DeviceTensorImpl::detached_copy(
    Version&& version, bool allow_metadata_change) const {
  auto copy = c10::make_intrusive<DeviceTensorImpl>(tensor_);
  copy_tensor_metadata(this, copy.get(), std::forward<Version>(version), allow_metadata_change);
  copy->placeholder_ = placeholder_;
  return copy;
}

c10::intrusive_ptr<c10::TensorImpl> DeviceTensorImpl::shallow_copy_and_detach(
    const c10::VariableVersion& version_counter, bool allow_tensor_metadata_change) const {
  return detached_copy(version_counter, allow_tensor_metadata_change);
}

c10::intrusive_ptr<c10::TensorImpl> DeviceTensorImpl::shallow_copy_and_detach(
    c10::VariableVersion&& version_counter, bool allow_tensor_metadata_change) const {
  return detached_copy(std::move(version_counter), allow_tensor_metadata_change);
}

void DeviceTensorImpl::shallow_copy_from(const c10::intrusive_ptr<c10::TensorImpl>& impl) {
  auto* other = dynamic_cast<DeviceTensorImpl*>(impl.get());
  TORCH_CHECK(other != nullptr, "cannot assign a tensor on ", impl->device(),
              " to the data of a tensor on ", torch_device());
  copy_tensor_metadata(other, this, version_counter(), allow_tensor_metadata_change());
  set_tensor(other->tensor_);
  placeholder_ = other->placeholder_;
  if (placeholder_) data_type_ = c10::scalarTypeToTypeMeta(*placeholder_);
}

void refuse_placeholder(const char* op, const at::Tensor& t) {
  if (c10::optional<c10::ScalarType> dtype = device_impl(t).placeholder_dtype()) to_dtype(*dtype, op);
}

c10::Device torch_device() {
  return c10::Device(c10::DeviceType::PrivateUse1, 0);
}

bool is_device_tensor(const at::TensorBase& t) {
  return t.defined() && t.device().type() == c10::DeviceType::PrivateUse1;
}

DeviceTensorImpl& device_impl(const at::TensorBase& t) {
  return *static_cast<DeviceTensorImpl*>(t.unsafeGetTensorImpl());
}

at::Tensor wrap(Tensor tensor) {
  return at::Tensor(c10::make_intrusive<DeviceTensorImpl>(std::move(tensor)));
}

}  // namespace lazygen::pytorch
