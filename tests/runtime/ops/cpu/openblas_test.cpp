// OpenBLAS runs the kernels for this CPU's vector units (Note [Choosing OpenBLAS's kernels] in
// runtime/ops/cpu/openblas.h), whether or not it knows the CPU's model.
#include "ops/cpu/openblas.h"

#include <gtest/gtest.h>
#include <strings.h>

#include <cstdlib>

namespace lazygen::cpu {
namespace {

TEST(OpenBlas, RunsTheKernelsTheCoreTypeNames) {
  const OpenBlas& blas = openblas();
  const char* core_type = std::getenv("OPENBLAS_CORETYPE");
  if (openblas_core_for_this_cpu().empty() && !core_type) {
    GTEST_SKIP() << "no AVX2: OpenBLAS chose " << blas.core << " itself";
  }
  ASSERT_NE(core_type, nullptr) << "lazygen set no OPENBLAS_CORETYPE before opening OpenBLAS";
  EXPECT_EQ(strcasecmp(blas.core.c_str(), core_type), 0)
      << "OPENBLAS_CORETYPE=" << core_type << " but OpenBLAS runs " << blas.core
      << "'s kernels: was it loaded before lazygen opened it?";
}

TEST(OpenBlas, ACpuWithAvx2NeverRunsSse3Kernels) {
  if (openblas_core_for_this_cpu().empty()) GTEST_SKIP() << "no AVX2 on this CPU";
  const std::string core = openblas().core;
  for (const char* old : {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom"}) {
    EXPECT_NE(strcasecmp(core.c_str(), old), 0) << "OpenBLAS runs " << core << "'s kernels";
  }
}

}  // namespace
}  // namespace lazygen::cpu
