// Tests for lazygen/device.h: parsing, printing and ordering.
#include "lazygen/device.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace lazygen {
namespace {

TEST(Device, ParsesTypesAndIndices) {
  EXPECT_EQ(Device("cpu"), kCPU);
  EXPECT_EQ(Device("cuda"), Device(DeviceType::CUDA, 0));
  EXPECT_EQ(Device("cuda:1"), Device(DeviceType::CUDA, 1));
  EXPECT_EQ(Device("lazy"), kLazy);
  EXPECT_EQ(Device("lazy:3").index, 3);
}

TEST(Device, PrintsLikePyTorch) {
  EXPECT_EQ(kCPU.str(), "cpu");
  EXPECT_EQ(Device(DeviceType::CUDA, 2).str(), "cuda:2");
  EXPECT_EQ(kLazy.str(), "lazy:0");
  EXPECT_EQ(Device(Device("cuda:7").str()), Device(DeviceType::CUDA, 7));
}

TEST(Device, RejectsMalformedSpecsNamingTheText) {
  for (const char* bad : {"gpu", "cuda:", "cuda:x", "cuda:-1", "cuda:1x", "", "lazy:99999"}) {
    try {
      Device d{std::string(bad)};
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("'" + std::string(bad) + "'"), std::string::npos);
    }
  }
}

TEST(Device, OrdersByTypeThenIndex) {
  EXPECT_LT(kCPU, Device(DeviceType::CUDA, 0));
  EXPECT_LT(Device(DeviceType::CUDA, 0), Device(DeviceType::CUDA, 1));
  EXPECT_LT(Device(DeviceType::CUDA, 5), kLazy);
}

}  // namespace
}  // namespace lazygen
