// Tests for autograd/formulas.h: mm_mat2_backward gives mat2's gradient in mat2's layout with the
// value alpha * mat1^T @ grad, eager and lazy.
#include "autograd/formulas.h"

#include <gtest/gtest.h>

#include "lazygen/autograd.h"
#include "lazygen/factory.h"
#include "lazygen/generated/ops/addmm.h"
#include "lazygen/generated/ops/mm.h"
#include "lazygen/generated/ops/sum.h"
#include "lazygen/lazy.h"
#include "lazygen/operators.h"

namespace lazygen::autograd {
namespace {

void expect_close(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.sizes(), b.sizes());
  const Tensor x = a.cpu().contiguous(), y = b.cpu().contiguous();
  for (int64_t i = 0; i < x.numel(); ++i) {
    EXPECT_NEAR(x.data_ptr<double>()[i], y.data_ptr<double>()[i], 1e-12) << "element " << i;
  }
}

TEST(MmMat2Backward, TransposedMat2GetsAGradientInItsLayout) {
  Generator gen(7);
  const Tensor grad = randn({4, 3}, gen, DType::Float64), mat1 = randn({4, 5}, gen, DType::Float64);
  const Tensor weight = randn({3, 5}, gen, DType::Float64);
  const Tensor g = mm_mat2_backward(grad, mat1, weight.t(), 2.0);
  expect_close(g, mm(mat1.t(), grad) * 2.0);
  // (grad^T @ mat1)^T: transposed like weight.t(), so g.t() is contiguous like the weight.
  EXPECT_EQ(g.stride(0), 1);
  EXPECT_TRUE(g.t().is_contiguous());
}

TEST(MmMat2Backward, ContiguousMat2GetsAContiguousGradient) {
  Generator gen(8);
  const Tensor grad = randn({4, 3}, gen, DType::Float64), mat1 = randn({4, 5}, gen, DType::Float64);
  const Tensor mat2 = randn({5, 3}, gen, DType::Float64);
  const Tensor g = mm_mat2_backward(grad, mat1, mat2, 1);
  expect_close(g, mm(mat1.t(), grad));
  EXPECT_TRUE(g.is_contiguous());
}

TEST(MmMat2Backward, LinearWeightGradientIsContiguousEagerAndLazyAgrees) {
  Generator gen(9);
  const Tensor x = randn({6, 5}, gen, DType::Float64), b = randn({3}, gen, DType::Float64);
  const Tensor w0 = randn({3, 5}, gen, DType::Float64);
  Tensor grads[2];
  for (Device device : {kCPU, kLazy}) {
    Tensor w = w0.to(device).detach();
    w.requires_grad_(true);
    sum(addmm(b.to(device), x.to(device), w.t()) * x.to(device).narrow(1, 0, 3)).backward();
    if (device == kCPU) {
      EXPECT_TRUE(w.grad().is_contiguous());
    }
    grads[device.is_lazy() ? 1 : 0] = w.grad().cpu();
  }
  expect_close(grads[1], grads[0]);
  expect_close(grads[0], mm(x.narrow(1, 0, 3).t(), x));
}

}  // namespace
}  // namespace lazygen::autograd
