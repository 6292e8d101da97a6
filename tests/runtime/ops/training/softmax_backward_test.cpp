// Tests for _softmax_backward_data and _log_softmax_backward_data (ops/cpu/softmax_backward.cpp)
// against a direct loop in double: every dim (rows and columns), float64 and float32, float32 rows
// long enough for the 16-lane path and its tail (Note [Vectorized softmax backward rows]).
#include <gtest/gtest.h>

#include <cmath>

#include "lazygen/factory.h"
#include "lazygen/generated/cpu/_log_softmax.h"
#include "lazygen/generated/cpu/_log_softmax_backward_data.h"
#include "lazygen/generated/cpu/_softmax.h"
#include "lazygen/generated/cpu/_softmax_backward_data.h"
#include "runtime/ops/training/training_reference.h"

namespace lazygen {
namespace {

using testing::expect_near_all;
using testing::values;

// dx of (log_)softmax at output y, for upstream gradient dy, down dim d of a row-major tensor.
std::vector<double> direct_backward(const Tensor& dy, const Tensor& y, int64_t d, bool log) {
  const auto yv = values<double>(y), dyv = values<double>(dy);
  int64_t stride = 1;
  for (int64_t i = d + 1; i < y.dim(); ++i) stride *= y.size(i);
  const int64_t n = y.size(d);
  std::vector<double> want(yv.size());
  for (size_t i = 0; i < yv.size(); ++i) {
    // The first element of i's slice along d, then the sum down that slice.
    const int64_t k = static_cast<int64_t>(i);
    const int64_t base = k - ((k / stride) % n) * stride;
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      const int64_t at = base + j * stride;
      sum += log ? dyv[at] : dyv[at] * yv[at];
    }
    want[i] = log ? dyv[i] - std::exp(yv[i]) * sum : yv[i] * (dyv[i] - sum);
  }
  return want;
}

Tensor backward(const Tensor& dy, const Tensor& y, int64_t dim, bool log) {
  return log ? cpu::_log_softmax_backward_data(dy, y, dim, y.dtype())
             : cpu::_softmax_backward_data(dy, y, dim, y.dtype());
}

void expect_matches_direct(const std::vector<int64_t>& sizes, DType dtype, double tol) {
  Generator g(8);
  const Tensor x = randn(sizes, g, dtype), dy = randn(sizes, g, dtype);
  for (bool log : {false, true}) {
    for (int64_t dim = -1; dim < static_cast<int64_t>(sizes.size()); ++dim) {
      SCOPED_TRACE(::testing::Message() << (log ? "log_softmax" : "softmax") << " dim " << dim);
      const Tensor y = log ? cpu::_log_softmax(x, dim, false) : cpu::_softmax(x, dim, false);
      const int64_t d = dim < 0 ? dim + static_cast<int64_t>(sizes.size()) : dim;
      expect_near_all(backward(dy, y, dim, log), direct_backward(dy, y, d, log), tol);
    }
  }
}

TEST(SoftmaxBackward, MatchesTheDirectLoopDownEveryDim) {
  expect_matches_direct({3, 4, 5}, DType::Float64, 1e-12);
  expect_matches_direct({3, 4, 5}, DType::Float32, 2e-6);
}

TEST(SoftmaxBackward, LongFloatRowsMatchTheDirectLoop) {
  expect_matches_direct({6, 300}, DType::Float32, 2e-6);  // 18 strips of 16 and a tail of 12
  expect_matches_direct({2, 16}, DType::Float32, 2e-6);   // one strip, no tail
}

TEST(SoftmaxBackward, ZeroDimAndEmptyTensors) {
  const Tensor y = full({}, Scalar(0.25)), dy = full({}, Scalar(2.0));
  EXPECT_FLOAT_EQ(values<float>(cpu::_softmax_backward_data(dy, y, 0, DType::Float32))[0],
                  0.25f * (2.0f - 0.5f));
  EXPECT_FLOAT_EQ(values<float>(cpu::_log_softmax_backward_data(dy, y, -1, DType::Float32))[0],
                  2.0f - std::exp(0.25f) * 2.0f);
  EXPECT_EQ(cpu::_softmax_backward_data(zeros({0, 3}), zeros({0, 3}), 1, DType::Float32).numel(),
            0);
}

TEST(SoftmaxBackward, RejectsMismatchedOperands) {
  for (bool log : {false, true}) {
    EXPECT_THROW(backward(zeros({2, 3}), zeros({3, 2}), 1, log), ShapeError);
    EXPECT_THROW(backward(zeros({2, 3}), zeros({2, 3}), 2, log), ShapeError);
    EXPECT_THROW(backward(zeros({2}, DType::Int64), zeros({2}, DType::Int64), 0, log), ShapeError);
    EXPECT_THROW(backward(zeros({2}), zeros({2}, DType::Float64), 0, log), ShapeError);
  }
}

}  // namespace
}  // namespace lazygen
