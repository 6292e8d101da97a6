// Named lazy backends (exec/backend_registry.h) and their selection through set_lazy_backend
// (lazygen/lazy.h). This program does not link lazygen_cuda, so "cuda" is not registered.
#include "exec/backend_registry.h"

#include <gtest/gtest.h>

#include "backend/null/null_backend.h"
#include "lazygen/factory.h"
#include "lazygen/lazy.h"
#include "lazygen/operators.h"
#include "lazygen/tensor.h"

namespace lazygen::exec {
namespace {

std::shared_ptr<Backend> make_null() {
  return std::make_shared<NullBackend>();
}

std::shared_ptr<Backend> make_failing() {
  throw std::runtime_error("no such device: test");
}

TEST(BackendRegistry, ARegisteredBackendIsSelectedByNameAndCpuComesBack) {
  register_backend_factory("null-test", &make_null);
  set_lazy_backend("null-test");
  EXPECT_EQ(lazy_backend(), "null");
  set_lazy_backend("cpu");
  EXPECT_EQ(lazy_backend(), "cpu");
}

TEST(BackendRegistry, AFailingFactoryLeavesTheBackendAsItWas) {
  register_backend_factory("failing-test", &make_failing);
  EXPECT_THROW(set_lazy_backend("failing-test"), std::runtime_error);
  EXPECT_EQ(lazy_backend(), "cpu");
}

TEST(BackendRegistry, CudaWithoutTheCudaLibrarySaysItIsNotLinked) {
  try {
    set_lazy_backend("cuda");
    ADD_FAILURE() << "selected";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("no CUDA device: the CUDA backend is not linked", 0), 0u)
        << e.what();
  }
  EXPECT_THROW(set_lazy_backend("tpu"), std::invalid_argument);
  EXPECT_EQ(lazy_backend(), "cpu");
}

}  // namespace
}  // namespace lazygen::exec
