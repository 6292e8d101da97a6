// Conversions between PyTorch's values and lazygen's, and the three ways data crosses between a
// CPU at::Tensor and the lazygen device.
//
// Element types: lazygen has bool, int32, int64, float32 and float64 (lazygen/dtype.h); any other
// PyTorch dtype is refused with a c10::Error naming it, never converted silently. Scalars keep
// their category (bool, integral, floating); complex scalars are refused likewise.
//
// Data (See Note [Device tensors]):
//   to_device(cpu)        copies a CPU tensor's values to the device (the user may keep writing
//                         the CPU tensor);
//   to_cpu(device)        syncs what the device tensor needs and copies its values into a new
//                         CPU tensor the caller owns;
//   cpu_view / lazygen_cpu_view share memory without copying (the CPU fallback's inputs and
//                         results): each keeps the other side's memory alive.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/Optional.h>

#include <optional>
#include <string>
#include <vector>

#include "lazygen/dtype.h"
#include "lazygen/scalar.h"
#include "lazygen/tensor.h"
#include "lazygen/types.h"

namespace lazygen::pytorch {

// Throws c10::Error "<what>: dtype torch.uint8 is not supported on the lazygen device ..."
DType to_dtype(c10::ScalarType t, const char* what = "lazygen");
// One of lazygen's five dtypes (to_dtype does not throw).
bool is_lazygen_dtype(c10::ScalarType t);
c10::ScalarType to_scalar_type(DType t);
bool has_dtype(c10::ScalarType t);  // whether lazygen has it
std::string python_name(c10::ScalarType t);  // "torch.uint8", for messages

Scalar to_scalar(const c10::Scalar& s);
c10::Scalar to_torch_scalar(const Scalar& s);

std::vector<int64_t> to_ints(c10::IntArrayRef ints);
std::optional<MemoryFormat> to_memory_format(const c10::optional<c10::MemoryFormat>& f);

// A new device tensor holding a copy of `cpu`'s values (any strides; dtype kept).
Tensor to_device(const at::Tensor& cpu);
// The values of the lazy tensor `t` in a new contiguous CPU tensor (syncs what it needs).
at::Tensor to_cpu(const Tensor& t);

// An at::Tensor sharing the memory of the lazygen CPU tensor `t` (kept alive by it).
at::Tensor cpu_view(const Tensor& t);
// A lazygen CPU tensor sharing the memory of the CPU at::Tensor `t` (kept alive by it).
Tensor lazygen_cpu_view(const at::Tensor& t);

}  // namespace lazygen::pytorch
