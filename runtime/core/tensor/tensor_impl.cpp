// TensorImpl construction and the layout helpers of tensor_impl.h.
#include "core/tensor/tensor_impl.h"

#include <algorithm>
#include <stdexcept>

#include "lazygen/tensor.h"

namespace lazygen {

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

bool is_contiguous_layout(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  for (int64_t s : sizes) {
    if (s == 0) return true;
  }
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

TensorImpl::TensorImpl(std::shared_ptr<Storage> storage, std::vector<int64_t> sizes,
                       std::vector<int64_t> strides, int64_t storage_offset, DType dtype)
    : sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      storage_offset_(storage_offset),
      numel_(checked_numel("TensorImpl", sizes_)),
      dtype_(dtype),
      device_(storage->device()),
      storage_(std::move(storage)) {
  if (sizes_.size() != strides_.size()) {
    throw std::invalid_argument("TensorImpl: sizes " + sizes_str(sizes_) + " and strides " +
                                sizes_str(strides_) + " differ in rank");
  }
  is_contiguous_ = is_contiguous_layout(sizes_, strides_);
}

TensorImpl::TensorImpl(const Shape& shape, Device device, std::shared_ptr<lazy::LazyState> state)
    : sizes_(shape.sizes),
      strides_(contiguous_strides(shape.sizes)),
      numel_(checked_numel("TensorImpl", shape.sizes)),
      dtype_(shape.dtype),
      device_(device),
      lazy_(std::move(state)) {}

void TensorImpl::become(const TensorImpl& other) {
  sizes_ = other.sizes_;
  strides_ = other.strides_;
  storage_offset_ = other.storage_offset_;
  numel_ = other.numel_;
  device_ = other.device_;
  is_contiguous_ = other.is_contiguous_;
  storage_ = other.storage_;
  lazy_ = other.lazy_;
}

void* TensorImpl::data() const {
  if (!storage_ || storage_->data() == nullptr) return nullptr;
  return static_cast<char*>(storage_->data()) +
         storage_offset_ * static_cast<int64_t>(itemsize(dtype_));
}

Tensor make_cpu_tensor(const std::vector<int64_t>& sizes, DType dtype) {
  const int64_t numel = checked_numel("empty", sizes);
  auto storage = Storage::allocate_cpu(static_cast<size_t>(numel) * itemsize(dtype));
  return Tensor(
      std::make_shared<TensorImpl>(std::move(storage), sizes, contiguous_strides(sizes), 0, dtype));
}

Tensor make_view(const Tensor& base, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                 int64_t storage_offset) {
  const TensorImpl& impl = *base.impl();
  if (!impl.has_storage()) {
    throw std::invalid_argument("make_view: a " + impl.device().str() +
                                " tensor has no storage to view");
  }
  return Tensor(std::make_shared<TensorImpl>(impl.storage(), std::move(sizes), std::move(strides),
                                             storage_offset, impl.dtype()));
}

}  // namespace lazygen
