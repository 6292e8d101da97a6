// Schema types -> the C++ types of PyTorch's unboxed kernels: what a kernel registered with
// PyTorch's dispatcher for a schema must take and return (PyTorch 1.13's spelling; the
// dispatcher checks the match when the kernel registers).
//
//   schema              parameter                                  return
//   Tensor              const at::Tensor&  (at::Tensor& if written) at::Tensor (at::Tensor& if
//   written)
//                       (written ones const at::Tensor& under use_const_ref_for_mutable_tensors)
//   Tensor?             const c10::optional<at::Tensor>&
//   Tensor[]            at::TensorList (const at::ITensorListRef& for structured ops)
//   ::std::vector<at::Tensor> int, SymInt         int64_t int64_t int[], SymInt[] c10::IntArrayRef
//   (int[]? at::OptionalIntArrayRef) float, bool         double, bool       (bool[N]:
//   ::std::array<bool, N>) str                 c10::string_view Scalar              const
//   at::Scalar&                          at::Scalar ScalarType, Layout, Device, MemoryFormat,
//   Generator: at::ScalarType, ... T? (other T)        c10::optional<T> (by const& for Tensor and
//   Scalar) several returns     ::std::tuple<...> of the above;  none: void
// Types PyTorch kernels take that lazygen's ops do not (Dimname, Storage, quantizers) have no
// mapping: GenError.
#pragma once

#include <string>

#include "api/signature.h"
#include "model/op_entry.h"

namespace lazygen::gen::api {

// The kernel `name` for `op` (parameters in schema order, the dispatcher's: out= arguments last;
// names as cpp_name gives them). Throws GenError (at the schema) for types without a mapping.
CppSignature aten_signature(const OpEntry& op, const std::string& name);

}  // namespace lazygen::gen::api
