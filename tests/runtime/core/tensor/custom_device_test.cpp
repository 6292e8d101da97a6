// A device library written outside lazygen, as a vendor would: a "toy" device type registered at
// run time (register_device_type), its memory host memory owned by toy storages, its hooks moving
// data to and from the cpu (core/tensor/device_hooks.h) and one eager kernel, add.Tensor,
// registered with the op dispatch (Note [Device kernels] in core/dispatch.h). No file of lazygen
// names the device.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/dispatch.h"
#include "core/tensor/device_hooks.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/device.h"
#include "lazygen/factory.h"
#include "lazygen/generated/cpu/add_tensor.h"
#include "lazygen/generated/ops/add.h"
#include "lazygen/generated/ops/relu.h"
#include "lazygen/operators.h"
#include "lazygen/tensor.h"
#include "tensor_testing.h"

namespace lazygen {
namespace {

DeviceType toy() {
  static const DeviceType type = register_device_type("toy");
  return type;
}

std::size_t nbytes_of(const std::vector<int64_t>& sizes, DType dtype) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return static_cast<std::size_t>(n) * itemsize(dtype);
}

// A contiguous toy tensor over fresh host memory that its storage frees.
Tensor empty_toy(const std::vector<int64_t>& sizes, DType dtype, Device device) {
  const std::size_t bytes = nbytes_of(sizes, dtype);
  void* data = std::malloc(bytes == 0 ? 1 : bytes);
  auto storage = std::make_shared<Storage>(data, bytes, bytes, device,
                                           [](void* p, std::size_t) { std::free(p); });
  return Tensor(
      std::make_shared<TensorImpl>(std::move(storage), sizes, contiguous_strides(sizes), 0, dtype));
}

// The same elements seen as a cpu tensor (toy memory is host memory), for copies and kernels.
Tensor as_cpu(const Tensor& t) {
  const Storage& memory = *t.impl()->storage();
  auto storage = Storage::wrap(memory.data(), memory.nbytes(), kCPU);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), t.sizes(), t.strides(),
                                             t.storage_offset(), t.dtype()));
}

Tensor toy_to_cpu(const Tensor& t) {
  return as_cpu(t).clone();
}

Tensor toy_from_cpu(const Tensor& cpu, Device target) {
  const Tensor src = cpu.contiguous();
  Tensor out = empty_toy(src.sizes(), src.dtype(), target);
  if (out.numel() > 0)
    std::memcpy(out.raw_data(), src.raw_data(), nbytes_of(src.sizes(), src.dtype()));
  return out;
}

std::atomic<int> toy_adds{0};

// add.Tensor on toy tensors: the cpu kernel over the same memory, its result moved to the device.
Tensor toy_add(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  ++toy_adds;
  return toy_from_cpu(cpu::add_tensor(as_cpu(self), as_cpu(other), alpha), self.device());
}

// What the device library's initializer would do when linked.
void install_toy_device() {
  static const bool installed = [] {
    DeviceHooks hooks;
    hooks.to_cpu = &toy_to_cpu;
    hooks.from_cpu = &toy_from_cpu;
    set_device_hooks(toy(), hooks);
    detail::register_device_kernel(toy(), "add.Tensor", &toy_add);
    return true;
  }();
  (void)installed;
}

TEST(CustomDevice, ARegisteredTypeParsesPrintsAndKeepsItsValue) {
  const DeviceType t = toy();
  EXPECT_GT(static_cast<int>(t), static_cast<int>(DeviceType::Lazy));
  EXPECT_EQ(register_device_type("toy"), t);
  EXPECT_EQ(register_device_type("cuda"), DeviceType::CUDA);
  EXPECT_EQ(Device("toy:3"), Device(t, 3));
  EXPECT_EQ(Device(t, 2).str(), "toy:2");
  EXPECT_EQ(device_type_name(t), "toy");
}

TEST(CustomDevice, BadNamesAndUnregisteredTypesAreRefused) {
  for (const char* bad :
       {"", "Toy", "9lives", "a-b", "toy:0", "a234567890123456789012345678901234"}) {
    EXPECT_THROW(register_device_type(bad), std::invalid_argument) << bad;
  }
  EXPECT_THROW(Device("undeclared:0"), std::invalid_argument);
  EXPECT_THROW(device_type_name(static_cast<DeviceType>(kMaxDeviceTypes - 1)),
               std::invalid_argument);
}

// In a child process (a death test forks), so that this process keeps free slots.
TEST(CustomDevice, TheSeventeenthTypeIsRefusedWithItsName) {
  EXPECT_EXIT(
      {
        int registered = 0;
        try {
          for (char c = 'a'; c <= 'z'; ++c) {
            register_device_type(std::string("dev_") + c);
            ++registered;
          }
        } catch (const std::length_error& e) {
          const bool named =
              std::string(e.what()).find("at most 16 device types") != std::string::npos;
          std::exit(named && registered < 26 ? 0 : 2);
        }
        std::exit(1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(CustomDevice, TensorsMoveToTheDeviceAndBack) {
  install_toy_device();
  const Tensor x = randn({3, 4});
  const Tensor on_toy = x.to(Device(toy()));
  EXPECT_EQ(on_toy.device(), Device(toy()));
  EXPECT_EQ(testing::values<float>(on_toy), testing::values<float>(x));
}

TEST(CustomDevice, OpsDispatchToTheDevicesKernels) {
  install_toy_device();
  const Tensor x = randn({3, 4}), y = randn({3, 4});
  const Tensor a = x.to(Device(toy())), b = y.to(Device(toy()));
  const int before = toy_adds.load();
  const Tensor sum = a + b;
  EXPECT_EQ(toy_adds.load(), before + 1);
  EXPECT_EQ(sum.device(), Device(toy()));
  EXPECT_EQ(testing::values<float>(sum), testing::values<float>(x + y));
}

TEST(CustomDevice, AnOpWithoutAKernelOrAcrossDevicesSaysSo) {
  install_toy_device();
  const Tensor a = randn({2}).to(Device(toy()));
  try {
    relu(a);
    ADD_FAILURE() << "relu ran without a toy kernel";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("relu: no toy kernel"), std::string::npos) << e.what();
  }
  try {
    add(a, randn({2}));
    ADD_FAILURE() << "added a toy and a cpu tensor";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("expected all tensors on one device, got toy:0 and cpu"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace lazygen
