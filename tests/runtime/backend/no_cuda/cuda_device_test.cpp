// Tests of lazygen_cuda built without CUDA (runtime/backend/no_cuda/): no device, and a clear
// error, never a crash, when a program asks for one.
#include <gtest/gtest.h>

#include <string>

#include "lazygen/cuda.h"
#include "lazygen/device.h"
#include "lazygen/dtype.h"
#include "lazygen/factory.h"
#include "lazygen/lazy.h"
#include "lazygen/operators.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"

namespace lazygen::cuda {
namespace {

TEST(NoCudaDevice, ReportsNoDeviceAndWhy) {
  EXPECT_EQ(device_count(), 0);
  EXPECT_FALSE(is_available());
  EXPECT_EQ(unavailable_reason().rfind("no CUDA device: lazygen was built without CUDA", 0), 0u);
  synchronize();
  empty_cache();
  EXPECT_EQ(memory_stats().bytes_in_use, 0u);
}

TEST(NoCudaDevice, MovingATensorToCudaThrowsTheReason) {
  try {
    (void)ones({2}).to(Device("cuda"));
    ADD_FAILURE() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), unavailable_reason());
  }
  EXPECT_THROW((void)zeros({2}, DType::Float32, Device("cuda:0")), std::runtime_error);
}

TEST(NoCudaDevice, TheLazyCudaBackendCannotBeSelectedAndSaysWhy) {
  try {
    set_lazy_backend("cuda");
    ADD_FAILURE() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), unavailable_reason());
  }
  EXPECT_EQ(lazy_backend(), "cpu");
}

}  // namespace
}  // namespace lazygen::cuda
