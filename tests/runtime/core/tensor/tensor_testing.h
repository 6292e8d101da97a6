// Test helpers for tensor code: read a tensor's values, catch an error's message, and a fake
// non-cpu device.
#pragma once

#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor/device_hooks.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/tensor.h"

namespace lazygen::testing {

// The values of `t` in row-major order, converted to T.
template <class T>
std::vector<T> values(const Tensor& t) {
  const Tensor c = t.cpu().to(dtype_of<T>()).contiguous();
  const T* data = c.numel() ? c.template data_ptr<T>() : nullptr;
  return std::vector<T>(data, data + c.numel());
}

// The message of what `fn` throws, or "" when it does not throw.
template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// The message of the exception of type E that `fn` throws, or "" when it throws none (an
// exception of another type propagates, failing the test).
template <class E, class Fn>
std::string message_of(Fn&& fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

// While alive, `type` is a fake device whose tensors keep their data on the cpu, out of reach
// of raw_data() (like lazy tensors). Restores the previous hooks on destruction.
class FakeDevice {
 public:
  explicit FakeDevice(DeviceType type) : type_(type) {
    previous_ = set_device_hooks(type, DeviceHooks{&to_cpu, &from_cpu});
  }
  ~FakeDevice() { set_device_hooks(type_, previous_); }
  FakeDevice(const FakeDevice&) = delete;
  FakeDevice& operator=(const FakeDevice&) = delete;

 private:
  static std::map<const TensorImpl*, Tensor>& data() {
    static std::map<const TensorImpl*, Tensor> map;
    return map;
  }
  static Tensor to_cpu(const Tensor& t) { return data().at(t.impl()).clone(); }
  static Tensor from_cpu(const Tensor& cpu, Device device) {
    Tensor t(std::make_shared<TensorImpl>(cpu.shape(), device, nullptr));
    data()[t.impl()] = cpu.clone();
    return t;
  }

  DeviceType type_;
  DeviceHooks previous_;
};

}  // namespace lazygen::testing
