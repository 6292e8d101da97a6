// Helpers shared by the CUDA tests: "cuda" tensors over host memory (for dispatch and argument
// checks without a GPU), the message an operation throws, and the fixture of the lazy-device
// tests that run on a GPU (skipped, naming the reason, where none is usable).
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend/cuda/lazy/cuda_backend.h"
#include "core/tensor/tensor_impl.h"
#include "lazygen/cuda.h"
#include "lazygen/lazy.h"
#include "runtime/fusion/fusion_test_util.h"

namespace lazygen::cuda::testing {

inline const Device kCuda{DeviceType::CUDA, 0};

// A "cuda" tensor over host memory: enough for dispatch, views and argument checks; never hand it
// to a kernel. `data` must outlive it.
inline Tensor fake_cuda(std::vector<float>& data, std::vector<int64_t> sizes) {
  auto storage = Storage::wrap(data.data(), data.size() * sizeof(float), kCuda);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), sizes, contiguous_strides(sizes),
                                             0, DType::Float32));
}

// Backend options of the compile-only tests: PTX for sm_90 (NVRTC needs no device), kernel
// cache in memory only.
inline CudaBackend::Options sm90_memory_only() {
  CudaBackend::Options o;
  o.arch = 90;
  o.cache.dir = std::filesystem::path();  // memory only
  return o;
}

// What f throws, or "(no error)".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

// Lazy graphs on the CUDA backend: skips without a device, else switches the lazy backend to
// cuda for the test and back to cpu after it.
class LazyCudaTest : public lazygen::testing::FusionTest {
 protected:
  void SetUp() override {
    if (!is_available()) GTEST_SKIP() << unavailable_reason();
    FusionTest::SetUp();
    set_lazy_backend("cuda");
  }
  void TearDown() override {
    if (!is_available()) return;
    set_lazy_backend("cpu");
    FusionTest::TearDown();
  }
};

}  // namespace lazygen::cuda::testing
