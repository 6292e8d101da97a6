// The device guard PyTorch needs for every device type it moves tensors to: without one,
// `.to("privateuseone")` fails with "PyTorch is not linked with support for privateuseone
// devices". lazygen has one device (privateuseone:0) and one stream; nothing to switch.
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/Exception.h>

#include "pytorch/device_tensor.h"

namespace lazygen::pytorch {
namespace {

class DeviceGuardImpl final : public c10::impl::DeviceGuardImplInterface {
 public:
  c10::DeviceType type() const override { return c10::DeviceType::PrivateUse1; }
  c10::Device exchangeDevice(c10::Device d) const override {
    check(d);
    return torch_device();
  }
  c10::Device getDevice() const override { return torch_device(); }
  void setDevice(c10::Device d) const override { check(d); }
  void uncheckedSetDevice(c10::Device) const noexcept override {}
  c10::Stream getStream(c10::Device d) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, d);
  }
  c10::Stream exchangeStream(c10::Stream s) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, s.device());
  }
  // One device. PyTorch's autograd engine starts one device thread for it and runs the backward
  // pass there; See Note [One trace for the PyTorch device].
  c10::DeviceIndex deviceCount() const noexcept override { return 1; }

 private:
  static void check(c10::Device d) {
    TORCH_CHECK(d.type() == c10::DeviceType::PrivateUse1 && d.index() <= 0,
                "lazygen has one device, ", torch_device(), "; got ", d);
  }
};

C10_REGISTER_GUARD_IMPL(PrivateUse1, DeviceGuardImpl);

}  // namespace
}  // namespace lazygen::pytorch
