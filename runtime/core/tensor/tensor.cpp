// Tensor's metadata accessors and data movement (lazygen/tensor.h). Printing is in printing.cpp;
// the autograd methods are defined by runtime/autograd/ (see tensor_impl.h).
#include "lazygen/tensor.h"

#include <stdexcept>
#include <string>

#include "core/tensor/device_hooks.h"
#include "core/tensor/strided_loop.h"
#include "core/tensor/tensor_impl.h"

namespace lazygen {
namespace {

const TensorImpl& impl_of(const std::shared_ptr<TensorImpl>& impl) {
  if (!impl) throw std::logic_error("operation on an undefined tensor");
  return *impl;
}

// Wraps `dim` for size()/stride(); errors name the dim and the rank.
size_t checked_dim(const char* what, int64_t dim, int64_t rank) {
  if (dim < -rank || dim >= rank) {
    throw std::out_of_range(std::string(what) + ": dim " + std::to_string(dim) +
                            " is out of range for a tensor of rank " + std::to_string(rank) +
                            (rank == 0 ? ""
                                       : " (expected to be in range of [" + std::to_string(-rank) +
                                             ", " + std::to_string(rank - 1) + "])"));
  }
  return static_cast<size_t>(dim < 0 ? dim + rank : dim);
}

Tensor cpu_copy(const Tensor& src, DType dtype) {
  Tensor out = make_cpu_tensor(src.sizes(), dtype);
  detail::copy_into("to", out, src);
  return out;
}

}  // namespace

const std::vector<int64_t>& Tensor::sizes() const {
  return impl_of(impl_).sizes();
}
const std::vector<int64_t>& Tensor::strides() const {
  return impl_of(impl_).strides();
}
int64_t Tensor::size(int64_t dim) const {
  return sizes()[checked_dim("size()", dim, this->dim())];
}
int64_t Tensor::stride(int64_t dim) const {
  return strides()[checked_dim("stride()", dim, this->dim())];
}
int64_t Tensor::dim() const {
  return impl_of(impl_).dim();
}
int64_t Tensor::numel() const {
  return impl_of(impl_).numel();
}
int64_t Tensor::storage_offset() const {
  return impl_of(impl_).storage_offset();
}
DType Tensor::dtype() const {
  return impl_of(impl_).dtype();
}
Device Tensor::device() const {
  return impl_of(impl_).device();
}
bool Tensor::is_contiguous() const {
  return impl_of(impl_).is_contiguous();
}

void* Tensor::raw_data() const {
  const TensorImpl& impl = impl_of(impl_);
  if (!impl.has_storage()) {
    throw std::runtime_error("raw_data(): a " + impl.device().str() +
                             " tensor has no data yet; call cpu() first");
  }
  return impl.data();
}

template <class T>
T* Tensor::data_ptr() const {
  if (dtype() != dtype_of<T>()) {
    throw std::invalid_argument("data_ptr<" + std::string(dtype_name(dtype_of<T>())) +
                                ">(): the tensor's dtype is " + std::string(dtype_name(dtype())));
  }
  return static_cast<T*>(raw_data());
}

template <class T>
T Tensor::item() const {
  if (numel() != 1) {
    throw std::invalid_argument("item(): a tensor with " + std::to_string(numel()) +
                                " elements cannot be converted to a scalar");
  }
  if (!device().is_cpu()) return cpu().item<T>();
  const void* data = raw_data();
  return dispatch_dtype(dtype(), [&](auto tag) {
    using S = decltype(tag);
    return static_cast<T>(*static_cast<const S*>(data));
  });
}

#define LAZYGEN_INSTANTIATE(T)             \
  template T* Tensor::data_ptr<T>() const; \
  template T Tensor::item<T>() const;
LAZYGEN_INSTANTIATE(bool)
LAZYGEN_INSTANTIATE(int32_t)
LAZYGEN_INSTANTIATE(int64_t)
LAZYGEN_INSTANTIATE(float)
LAZYGEN_INSTANTIATE(double)
#undef LAZYGEN_INSTANTIATE

Tensor Tensor::to(Device device) const {
  const Device from = this->device();
  if (from == device) return *this;
  if (from.is_cpu()) return device_hooks(device.type).from_cpu(*this, device);
  Tensor cpu = device_hooks(from.type).to_cpu(*this);
  return device.is_cpu() ? cpu : device_hooks(device.type).from_cpu(cpu, device);
}

Tensor Tensor::to(DType dtype) const {
  if (this->dtype() == dtype) return *this;
  const Device device = this->device();
  if (device.is_cpu()) return cpu_copy(*this, dtype);
  const DeviceHooks& hooks = device_hooks(device.type);
  if (hooks.to_dtype != nullptr) return hooks.to_dtype(*this, dtype);
  return hooks.from_cpu(cpu_copy(hooks.to_cpu(*this), dtype), device);
}

Tensor Tensor::contiguous() const {
  return is_contiguous() ? *this : clone();
}

Tensor Tensor::clone() const {
  const Device device = this->device();
  if (device.is_cpu()) return cpu_copy(*this, dtype());
  const DeviceHooks& hooks = device_hooks(device.type);
  if (hooks.clone != nullptr) return hooks.clone(*this);
  // Clone on the cpu too: to_cpu may hand back memory the device still uses.
  return hooks.from_cpu(hooks.to_cpu(*this).clone(), device);
}

}  // namespace lazygen
