// gradcheck: compares the gradients autograd computes for a function with central finite
// differences, as torch.autograd.gradcheck does.
//
// fn maps tensors to one tensor. Inputs are cpu tensors; the floating ones (use float64: float32
// finite differences are too noisy) are the ones checked, integer and bool inputs (conditions,
// indices) are passed through and must get no gradient. With a random weight tensor w of the
// output's sizes and L = sum(fn(inputs) * w):
//   analytic:  L.backward() on `device` (inputs moved there, e.g. .to(kLazy), and marked
//              requires_grad on the device: the leaves are the device tensors), read back with
//              .grad().cpu();
//   numerical: (L(x + eps e_j) - L(x - eps e_j)) / (2 eps) per element j, evaluated eagerly on
//              the cpu under NoGradGuard (the reference: it also catches a wrong lazy forward).
// Element j passes when |analytic - numerical| <= atol + rtol * |numerical|.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "lazygen/device.h"
#include "lazygen/tensor.h"

namespace lazygen::testing {

using GradFn = std::function<Tensor(const std::vector<Tensor>&)>;

struct GradcheckOptions {
  Device device = kCPU;  // where the analytic gradient is computed
  double eps = 1e-6;
  double atol = 1e-5;
  double rtol = 1e-3;
  uint64_t seed = 0;  // of the weights
};

// Success, or a failure naming the input, the element and both values (the first mismatch of
// each input). REQUIRES: inputs are defined cpu tensors.
::testing::AssertionResult gradcheck(const GradFn& fn, const std::vector<Tensor>& inputs,
                                     const GradcheckOptions& options = {});

}  // namespace lazygen::testing
