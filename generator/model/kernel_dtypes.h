// The dtypes an op computes in, and so the dtypes its generated kernels are instantiated for.
//
// Note [Kernel dtypes]
// An op accepts a set of dtypes, named as PyTorch prints them (bool int32 int64 float32 float64):
// ops.yaml's `dtypes:`, else PyTorch's own list for an op of that schema name (pytorch_dtypes.inc,
// measured from PyTorch's CPU kernels by scripts/pytorch_dtypes.py), else all five. The set is of
// the dtype the op's inputs promote to (tensors and promoting Scalars, PyTorch's result_type).
//   - The op API refuses any other (detail::check_dtypes), as PyTorch's kernels do.
//   - The op's compute dtypes are the accepted ones mapped through its `dtype:` rule (`float`
//     computes integral and bool inputs in float32); an op whose expression reads no tensor
//     (fill_'s `value`) computes in every dtype: eagerly at its Scalars' full width, fused in
//     the written tensor's dtype.
//   - Generated kernels (eager CPU and CUDA, fused tiles, register chains, NVRTC probes) are
//     instantiated for the compute dtypes only, so an expression needs to compile, warning-free,
//     for those alone: PyTorch's hardswish_backward, `where(self < -3, 0, ...)`, is never
//     instantiated for bool. The functor's kDTypes carries the set to the runtime.
//   - An expression calling an Integral-domain function (bitwise_*) must have no floating compute
//     dtype (validate.cpp).
#pragma once

#include <string>
#include <vector>

#include "model/op_entry.h"

namespace lazygen::gen {

// The five dtype names in DType order (runtime/include/lazygen/dtype.h): bool, int32, int64,
// float32, float64.
const std::vector<std::string>& all_dtype_names();

// PyTorch's list for `schema_name` ("hardswish_backward", "add.Tensor"), or null when PyTorch
// takes all five (or the op is not PyTorch's).
const std::vector<std::string>* pytorch_dtypes(const std::string& schema_name);

// What the op accepts: `dtypes:`, else pytorch_dtypes, else all five, in DType order.
std::vector<std::string> accepted_dtypes(const OpEntry& op);
// accepted_dtypes is all five: the op API needs no check.
bool accepts_every_dtype(const OpEntry& op);

// The dtypes a `pointwise:` op's kernels compute in, in DType order (See the Note).
std::vector<std::string> compute_dtypes(const OpEntry& op);
// dtype names as a bit mask (bit i: the i-th of all_dtype_names; lazygen::dtype_bit at runtime).
unsigned dtype_mask(const std::vector<std::string>& dtypes);
// compute_dtypes as the bit mask a functor's kDTypes holds.
unsigned compute_dtype_mask(const OpEntry& op);

}  // namespace lazygen::gen
