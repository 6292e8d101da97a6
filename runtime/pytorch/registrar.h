// Registrar: registers the lazygen device's kernels with PyTorch's dispatcher, op by op, after
// checking that PyTorch wants a backend kernel for the op.
//
// Note [Which ops the device registers]
// The generated glue offers every op of ops.yaml and the adapters offer theirs; an op is
// registered on PrivateUse1 only when
//   - PyTorch has an op of that name (lazygen-only ops such as conv2d_backward_input are not
//     PyTorch's),
//   - PyTorch does not implement it as CompositeImplicitAutograd alone (conv2d, max_pool2d,
//     reshape, nll_loss, ...): such an op decomposes into ops the device does register, and a
//     backend kernel for it would replace the decomposition below autograd, so the autograd
//     formulas of the ops it calls would never be recorded and gradients would be lost without an
//     error. An op that also has an autograd kernel of its own (silu_backward, mish_backward:
//     their composite serves XLA and Lazy only) is differentiated above the device, so its
//     kernel is registered;
//   - the kernel's C++ signature matches PyTorch's schema and PyTorch's other kernels of the op
//     (the dispatcher refuses a mismatch; the refusal is recorded instead of ending the process).
// The in-place and out= forms the generator derives from pointwise ops (origin kDerivedForm; See
// Note [Derived forms for PyTorch] in generator/dest/torch_kernels.cpp) are offered whether or not
// PyTorch has them: one that PyTorch lacks, decomposes or gives another signature is skipped
// without a record.
// Every decision is recorded with its reason (registration_report(); the Python package's
// lazygen_torch.registration_report()), and the tests check that each op of ops.yaml is either
// registered or skipped for one of the first two reasons.
//
// Note [Dim errors as IndexError]
// PyTorch raises IndexError ("Dimension out of range (expected to be in range of [-2, 1], but got
// 5)") for a dim outside a tensor's range, and programs catch it as such. lazygen's ops throw
// DimError (lazygen/shape.h) there; every kernel the registrar registers runs inside
// WithPyTorchErrors, which turns a DimError into PyTorch's c10::IndexError with PyTorch's
// message. Other lazygen errors reach Python as RuntimeError, as PyTorch's own do.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/op_registration/infer_schema.h>
#include <torch/library.h>

#include <string>
#include <utility>
#include <vector>

#include "lazygen/shape.h"

namespace lazygen::pytorch {

// Throws PyTorch's IndexError for `e`. See Note [Dim errors as IndexError].
[[noreturn]] void raise_dim_error(const DimError& e);

// FuncPtr's kernel (a TORCH_FN) with a DimError raised as PyTorch raises it.
template <class FuncPtr, class FuncType = typename FuncPtr::FuncType>
struct WithPyTorchErrors;
template <class FuncPtr, class R, class... Args>
struct WithPyTorchErrors<FuncPtr, R(Args...)> {
  static R call(Args... args) {
    try {
      return FuncPtr::func_ptr()(std::forward<Args>(args)...);
    } catch (const DimError& e) {
      raise_dim_error(e);
    }
  }
};

// The origin of the in-place and out= forms derived from pointwise ops.
inline constexpr const char* kDerivedForm = "derived form";
// The origin of the kernels registered on AutogradPrivateUse1 in place of PyTorch's
// decomposition (Note [Decompositions above autograd] in pytorch/decompositions.cpp): the second
// check is reversed for them, an op must be CompositeImplicitAutograd alone.
inline constexpr const char* kDecomposition = "decomposition";

struct Registration {
  std::string name;    // "add.Tensor"
  std::string origin;  // "generated", "adapter", kDerivedForm, kDecomposition, "foreach"
  bool registered = false;
  std::string reason;  // why it was skipped
};

// Every op offered so far, in order.
const std::vector<Registration>& registration_report();

class Registrar {
 public:
  Registrar(torch::Library& library, const char* origin) : library_(library), origin_(origin) {}

  // Registers `fn` for the aten op `name` ("add.Tensor") unless Note [Which ops the device
  // registers] says to skip it. `fn` is TORCH_FN(kernel); it runs within WithPyTorchErrors.
  template <class FuncPtr>
  void add(const char* name, FuncPtr fn) {
    using FuncType = typename FuncPtr::FuncType;
    (void)fn;  // the kernel is FuncPtr's, called through WithPyTorchErrors
    if (offer(name, c10::inferFunctionSchemaFlattenedReturns<FuncType>())) {
      impl(name, TORCH_FN(WithPyTorchErrors<FuncPtr>::call));
    }
  }
  // add() for a boxed kernel (torch::CppFunction::makeFromBoxedFunction), which takes any
  // signature: only the first two checks apply.
  void add_boxed(const char* name, torch::CppFunction fn) {
    if (offer(name, c10::nullopt)) impl(name, std::move(fn));
  }

 private:
  // Records the decision; true when the op is to be registered. `inferred`: the kernel's schema
  // (nullopt for a boxed kernel).
  bool offer(const char* name, const c10::optional<c10::FunctionSchema>& inferred);
  template <class Fn>
  void impl(const char* name, Fn&& fn) {
    try {
      library_.impl(name, std::forward<Fn>(fn));
    } catch (const c10::Error& e) {
      refused(e.what_without_backtrace());
    }
  }
  // Marks the op offered last as skipped: the dispatcher refused its kernel.
  void refused(const std::string& why);

  torch::Library& library_;
  const char* origin_;
};

}  // namespace lazygen::pytorch
