// Small pieces several emitters share: which arguments play which role, and the one-line C++
// expressions built from them (argument lists, shape-function calls).
#pragma once

#include <string>
#include <vector>

#include "api/signature.h"
#include "model/op_entry.h"

namespace lazygen::gen::dest {

inline constexpr const char* kIncludeDir = "include/lazygen/generated/";

// `ir::op_kind("add.Tensor")`: the op's kind as a C++ constant expression (Note [Op kinds] in
// runtime/core/ir/node.h).
inline std::string kind_of(const OpEntry& op) {
  return "ir::op_kind(\"" + op.schema.name.str() + "\")";
}

// "lazygen/generated/ops/add.h": the header declaring the op API's overloads named `api_name`
// (See Note [Per-op headers] in op_api.cpp).
inline std::string op_api_header(const std::string& api_name) {
  return "lazygen/generated/ops/" + api_name + ".h";
}

// `#include "<header>"`.
std::string include_line(const std::string& header);
// `#include` lines for `headers`, sorted and without repeats.
std::vector<std::string> include_lines(std::vector<std::string> headers);

// `#include` lines, sorted and without repeats, for the op API headers of every API name of `ops`
// that the C++ `code` calls (`name(`, `lazygen::name(`; not members, not other namespaces').
std::vector<std::string> called_op_includes(const std::vector<OpEntry>& ops,
                                            const std::string& code);

// Tensor inputs of a pointwise expression, then its Scalars, as the expression references them
// (schema order; `out` arguments never).
struct PointwiseInputs {
  std::vector<const Argument*> tensors;
  std::vector<const Argument*> scalars;
};
PointwiseInputs pointwise_inputs(const OpEntry& op);

// The written argument an in-place/out= op returns (`self` / `out`), or nullptr if functional.
const Argument* written_argument(const OpEntry& op);
// A `derivatives:` entry `<input>: non_differentiable`: no gradient flows to that input, on purpose.
bool is_non_differentiable(const Derivative& d);
// The derivative entries with a formula (not non_differentiable).
std::vector<const Derivative*> differentiable(const OpEntry& op);
// Whether a Scalar argument takes part in type promotion (See Note [Scaling scalars]).
bool promotes(const Argument& scalar);
// The op's Scalar arguments that take part in type promotion, in schema order.
std::vector<const Argument*> promoting_scalars(const OpEntry& op);

// "// <schema>\nstd::vector<Shape> compute_shape_add_tensor(...);": the op's shape function as
// shape_inference.h declares it.
std::string shape_declaration(const OpEntry& op);
// "lazygen/generated/shapes/add_tensor.h": the header declaring the op's shape function.
std::string shape_header(const OpEntry& op);
// "lazygen/generated/ir/add_tensor.h": the header holding the op's IR node class.
std::string ir_node_header(const OpEntry& op);
// "lazygen/generated/cpu/add_tensor.h": the header declaring the op's eager CPU kernel (and, for
// `pointwise:` ops, its loop and compute-dtype function).
std::string cpu_kernel_header(const OpEntry& op);
// "lazygen/generated/cuda/add_tensor.h": the header declaring a `pointwise:` op's eager CUDA
// kernel launcher.
std::string cuda_kernel_header(const OpEntry& op);
// "lazygen/generated/autograd/add_tensor.h": the header declaring the autograd recording function
// (record_add_tensor) of an op with `derivatives:`.
std::string record_header(const OpEntry& op);
// "lazygen/generated/lazy/add_tensor.h": the header declaring the op's lazy-device function (and,
// for view ops, its hand-written inverse).
std::string lazy_op_header(const OpEntry& op);

// "compute_shape_add_tensor(self.shape(), other.shape(), alpha)" for eager/lazy callers.
std::string shape_call(const OpEntry& op);
// "self.device()" or "tensors.front().device()": where a lazy result lives.
std::string device_expr(const OpEntry& op);
// "{detail::device_of(self), detail::device_of(other)}"
std::string device_args(const OpEntry& op);
// A member name for an attribute that cannot clash with Node's own methods.
std::string member_name(const Argument& arg);

std::string join(const std::vector<std::string>& items, const std::string& sep);
// "0x18": a C++ hexadecimal literal of v.
std::string hex_literal(unsigned v);

}  // namespace lazygen::gen::dest
