// The CPU fallback: every op the lazygen device does not lower runs on the CPU, counted.
//
// Note [CPU fallback]
// As in LTC, an op without a lazygen kernel on PrivateUse1 arrives at one boxed fallback, which
//   - counts it in the metric named as LTC names it, "aten::<op>[.<overload>]" ("aten::sin");
//   - syncs the device tensors among its arguments (one graph; the trace is cut there) and runs
//     the op with PyTorch's CPU kernel: inputs it only reads are shared with the device data
//     without a copy, inputs it writes get a private CPU copy;
//   - writes mutated arguments back with an in-place update of the device tensor, so that a write
//     through a view reaches its base (Note [Lazy views]); an argument the op resized takes the
//     new sizes;
//   - returns Tensor results as device tensors holding the CPU results (no copy), and a written
//     argument it returns as that argument.
// Note [Functional ops on the fallback]: for PyTorch's structured ops (sin, exp_, cumsum, ...)
// every backend without a kernel of its own inherits one that calls the op's out= form, so on
// PrivateUse1 `sin` would reach the boxed fallback as `sin.out` (and be counted so). So once the
// device's kernels are registered, register_cpu_fallbacks registers the fallback itself for
// every aten op that has such an inherited kernel and no device kernel: each op then arrives
// under its own name.
// A view op (it returns an alias of an input without writing it) cannot alias across the CPU
// round trip: its result is a copy, and an in-place write through that copy (or any view of it)
// raises instead of being lost (check_writable). Errors raised by the CPU kernel reach the user
// unchanged. Results of a dtype the device lacks (uint8, ...) raise, naming the op.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <torch/library.h>

#include <tuple>
#include <utility>

#include "lazygen/tensor.h"

namespace lazygen::pytorch {

// Runs `op` on the arguments on `stack` through the CPU fallback (counted like any fallback):
// for adapters that lower only some cases of an op (a 2-d convolution) and hand the rest over.
void run_on_cpu(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// The aten op `name` ("aten::convolution") with `overload` ("" for none), for call_on_cpu;
// callers keep it in a function-local static (the lookup takes the dispatcher's lock).
inline c10::OperatorHandle aten_op(const char* name, const char* overload = "") {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, overload);
}

// run_on_cpu with typed arguments and result: R is at::Tensor or a std::tuple of them.
template <class R, class... Args>
R call_on_cpu(const c10::OperatorHandle& op, Args&&... args) {
  torch::jit::Stack stack;
  torch::jit::push(stack, std::forward<Args>(args)...);
  run_on_cpu(op, &stack);
  if constexpr (std::is_same_v<R, at::Tensor>) {
    return stack.back().toTensor();
  } else {
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return R(stack[I].toTensor()...);
    }(std::make_index_sequence<std::tuple_size_v<R>>{});
  }
}

// See Note [Functional ops on the fallback]. Call after every kernel of the device is registered.
void register_cpu_fallbacks(torch::Library& library);

// Throws c10::Error when `t` (or the tensor it is a view of) is the copied result of a view op
// that ran on the CPU fallback, since a write to it could not reach the viewed tensor; `op` is
// the in-place op for the message.
void check_writable(const char* op, const Tensor& t);

}  // namespace lazygen::pytorch
