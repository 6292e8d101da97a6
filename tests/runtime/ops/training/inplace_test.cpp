// Tests for the in-place ops the optimizers use (sqrt_, div_.Tensor, div_.Scalar): values against
// std::sqrt and division, lazy against eager, and that an in-place op may not grow self.
#include <gtest/gtest.h>

#include <cmath>

#include "lazygen/factory.h"
#include "lazygen/generated/ops/sqrt.h"
#include "lazygen/generated/ops/sqrt_.h"
#include "runtime/ops/training/training_reference.h"

namespace lazygen {
namespace {

using testing::values;

TEST(InPlaceOptimizerOps, SqrtAndDivUpdateSelfOnEveryDevice) {
  Generator g(11);
  Tensor a = rand({5, 6}, g), b = rand({6}, g);
  testing::expect_lazy_matches_eager({a, b}, [](const std::vector<Tensor>& t) {
    Tensor s = t[0].clone();
    sqrt_(s);
    s.div_(t[1]);
    s.div_(4.0);
    return s;
  });
  Tensor s = a.clone();
  s.sqrt_().div_(b);
  const auto av = values<float>(a), bv = values<float>(b), sv = values<float>(s);
  for (size_t i = 0; i < sv.size(); ++i) EXPECT_NEAR(sv[i], std::sqrt(av[i]) / bv[i % 6], 1e-5);
  EXPECT_THROW(zeros({6}).div_(zeros({5, 6})), ShapeError);  // may not grow self
}

}  // namespace
}  // namespace lazygen
