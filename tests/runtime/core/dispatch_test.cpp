// The op API's argument checks (core/dispatch.h) through the ops that use them, on the cpu and
// the lazy device: `dtypes:` refusals and the checked conversion of scaling Scalars.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <utility>

#include "lazygen/factory.h"
#include "lazygen/generated/ops/_softmax.h"
#include "lazygen/generated/ops/add.h"
#include "lazygen/generated/ops/add_out.h"
#include "lazygen/generated/ops/fill_.h"
#include "lazygen/generated/ops/fmod.h"
#include "lazygen/generated/ops/neg.h"
#include "lazygen/generated/ops/pow.h"
#include "lazygen/generated/ops/remainder.h"
#include "lazygen/generated/ops/t.h"
#include "lazygen/lazy.h"
#include "runtime/core/tensor/tensor_testing.h"

namespace lazygen {
namespace {

// The message of the ShapeError `f` throws, or "".
template <class F>
std::string message_of(F&& f) {
  return testing::message_of<ShapeError>(std::forward<F>(f));
}

class DispatchChecks : public ::testing::TestWithParam<Device> {
 protected:
  void TearDown() override { mark_step(); }
  Tensor make(DType dtype) const { return zeros({2}, dtype, GetParam()); }
};

TEST_P(DispatchChecks, ADTypeAnOpIsNotBuiltForIsRefusedByName) {
  EXPECT_EQ(message_of([&] { neg(make(DType::Bool)); }),
            "neg: not implemented for bool tensors (it takes int32, int64, float32, float64)");
  EXPECT_NE(message_of([&] { _softmax(make(DType::Int64), 0, false); }).find("int64"), std::string::npos);
  EXPECT_EQ(message_of([&] { neg(make(DType::Int32)); }), "");
}

TEST_P(DispatchChecks, AScalarOutsideTheDtypesRangeIsRefusedAsPyTorchDoes) {
  const std::string overflow = "fill_.Scalar: value 1e+300 cannot be converted to type float32 without overflow";
  EXPECT_EQ(message_of([&] { fill_(make(DType::Float32), 1e300); }), overflow);
  EXPECT_NE(message_of([&] { fill_(make(DType::Int32), int64_t{1} << 40); }), "");
  EXPECT_NE(message_of([&] { make(DType::Int32).fill_(2.5e10); }), "");
  EXPECT_NE(message_of([&] { add(make(DType::Float32), make(DType::Float32), -1e39); }), "");
  // Within range, infinities and NaN for floating dtypes, and anything for bool fit.
  EXPECT_EQ(message_of([&] { fill_(make(DType::Float32), std::numeric_limits<double>::infinity()); }), "");
  EXPECT_EQ(message_of([&] { fill_(make(DType::Int64), int64_t{1} << 62); }), "");
  EXPECT_EQ(message_of([&] { fill_(make(DType::Bool), 5); }), "");
  EXPECT_EQ(message_of([&] { fill_(make(DType::Float64), 1e300); }), "");
}

TEST_P(DispatchChecks, IntegralDivisionByZeroAndNegativePowersAreRefusedAsPyTorchDoes) {
  const Tensor ints = full({2}, 5, DType::Int64, GetParam());
  const Tensor zero_in_divisor = arange(2, DType::Int64, GetParam());  // [0, 1]
  EXPECT_EQ(message_of([&] { remainder(ints, zero_in_divisor); }), "remainder.Tensor: ZeroDivisionError");
  EXPECT_EQ(message_of([&] { fmod(ints, 0); }), "fmod.Scalar: ZeroDivisionError");
  EXPECT_EQ(message_of([&] { pow(ints, -1); }),
            "pow.Tensor_Scalar: Integers to negative integer powers are not allowed.");
  EXPECT_EQ(message_of([&] { pow(make(DType::Bool), -2); }),
            "pow.Tensor_Scalar: Integers to negative integer powers are not allowed.");
  // Empty inputs compute nothing to divide (a negative power is refused all the same), floating
  // dtypes divide by zero to inf/NaN, and tensor exponents are per element (0 for |base| > 1).
  EXPECT_EQ(message_of([&] { remainder(zeros({0}, DType::Int64, GetParam()), 0); }), "");
  EXPECT_NE(message_of([&] { pow(zeros({0}, DType::Int64, GetParam()), -1); }), "");
  EXPECT_EQ(message_of([&] { fmod(ints, zero_in_divisor.to(DType::Float32)); }), "");
  EXPECT_EQ(message_of([&] { pow(ints, 2.5); }), "");
  EXPECT_EQ(pow(ints, full({2}, -1, DType::Int64, GetParam())).cpu().data_ptr<int64_t>()[0], 0);
  EXPECT_EQ(remainder(ints, 3).cpu().data_ptr<int64_t>()[1], 2);
}

TEST_P(DispatchChecks, AnEmptyOutTensorIsResizedToTheResult) {
  const Tensor a = full({2, 3}, 1.5, DType::Float32, GetParam()), b = full({3}, 2.0, DType::Float32, GetParam());
  const Tensor out = empty({0}, DType::Float64, GetParam());
  const Tensor alias = out;  // another handle to the same tensor sees the new one
  add_out(out, a, b);
  EXPECT_EQ(alias.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(alias.dtype(), DType::Float64);
  EXPECT_EQ(alias.cpu().data_ptr<double>()[5], 3.5);
  // A non-empty out tensor of another shape is refused, and keeps its values.
  const Tensor small = full({2}, 7.0, DType::Float32, GetParam());
  EXPECT_NE(message_of([&] { add_out(small, a, b); }), "");
  EXPECT_EQ(small.sizes(), (std::vector<int64_t>{2}));
  EXPECT_EQ(small.cpu().data_ptr<float>()[1], 7.0f);
}

TEST_P(DispatchChecks, AnInPlaceOpThatOverflowsWritesNothing) {
  Tensor t = full({2}, 3, DType::Int32, GetParam());
  EXPECT_NE(message_of([&] { fill_(t, int64_t{1} << 40); }), "");
  EXPECT_EQ(t.cpu().data_ptr<int32_t>()[0], 3);
}

INSTANTIATE_TEST_SUITE_P(Devices, DispatchChecks, ::testing::Values(kCPU, kLazy),
                         [](const ::testing::TestParamInfo<Device>& info) {
                           return info.param.is_lazy() ? "lazy" : "cpu";
                         });

}  // namespace
}  // namespace lazygen
